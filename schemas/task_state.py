"""Typed knowledge and the task continuation capsule (TRUST-FACTS §5), as contracts.

A capsule is what a person (or a tool) says about where one task stands, carried as a typed payload
on an ingested event (``ConversationEvent.task_state``). It becomes an ordinary claim — subject the
task id, predicate ``task_state`` — whose evidence kind is decided by the event's role and channel
like any other (``engine.trust``), so it is journaled, survives restart and replays identically.
It is a working-memory aid: it grants no permission and starts nothing.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field, model_validator

from schemas.common import Contract, ExternalId
from schemas.enums import _CaseInsensitiveEnum

#: Bounds of a capsule (TRUST-FACTS §5): at most eight open questions, one next step.
MAX_OPEN_QUESTIONS: Final = 8
MAX_TEXT: Final = 1000
#: A decision's rationale as the world view shows it, at most this many characters.
MAX_RATIONALE: Final = 280


class TaskStateCodes:
    """Stable reason codes for a refused capsule (an event's ``task_state``)."""

    #: ``completed`` without a passed last step with measurement evidence, or with open questions or a next step.
    COMPLETION_UNVERIFIED = "task_completion_unverified"
    #: Any other malformed capsule (too many questions, unknown state, empty objective…).
    INVALID = "invalid_task_state"


class KnowledgeKind(_CaseInsensitiveEnum):
    """What sort of knowledge a claim is: a typed view over the claim, derived from its node type and
    predicate (``engine.knowledge``), never stored apart from it."""

    FACT = "fact"
    PREFERENCE = "preference"
    DECISION = "decision"
    TASK_STATE = "task_state"
    ERROR_LESSON = "error_lesson"


class TaskStatus(_CaseInsensitiveEnum):
    ACTIVE = "active"
    BLOCKED = "blocked"
    PAUSED = "paused"
    #: Terminal: the world view lists completed capsules apart from resumable work.
    COMPLETED = "completed"


class VerifiedStep(Contract):
    """The last step that was checked, and the measurement that checked it (a test run, a tool result)."""

    step: str = Field(min_length=1, max_length=MAX_TEXT)
    outcome: Literal["passed", "failed"]
    #: The measurement's id where it is kept (a CI run, a tool call's event id).
    measurement_id: str = Field(min_length=1, max_length=200)
    #: SHA-256 of the measurement's output, so the claim names exactly what was measured.
    measurement_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")


class TaskState(Contract):
    """A task continuation capsule: where one task stands, so work can resume after a session ends."""

    task_id: ExternalId
    objective: str = Field(min_length=1, max_length=MAX_TEXT)
    state: TaskStatus
    last_verified_step: VerifiedStep | None = None
    open_questions: tuple[str, ...] = Field(default=(), max_length=MAX_OPEN_QUESTIONS)
    next_step: str | None = Field(default=None, min_length=1, max_length=MAX_TEXT)
    #: The event ids of the capsules this one replaces: the explicit supersession that ends a competition
    #: between established capsules of the task (without it, they are all withheld from continuation).
    supersedes: tuple[ExternalId, ...] = Field(default=(), max_length=MAX_OPEN_QUESTIONS)

    @model_validator(mode="after")
    def _completion(self) -> TaskState:
        for q in self.open_questions:
            if not q.strip() or len(q) > MAX_TEXT:
                raise ValueError(f"{TaskStateCodes.INVALID}: open questions must be non-empty and bounded")
        if self.state is TaskStatus.COMPLETED:
            reason = completion_refusal(self)
            if reason is not None:
                raise ValueError(f"{TaskStateCodes.COMPLETION_UNVERIFIED}: {reason}")
        return self


def completion_refusal(capsule: TaskState) -> str | None:
    """Why ``capsule`` may not say ``completed`` (None when it may): a completed task needs a passed
    last step with measurement evidence (id and digest), no open question and no next step."""
    step = capsule.last_verified_step
    if step is None or step.outcome != "passed":
        return "completed needs a passed last verified step"
    if step.measurement_sha256 is None:
        return "completed needs measurement evidence (measurement_id and measurement_sha256)"
    if capsule.open_questions:
        return "completed leaves no open questions"
    if capsule.next_step is not None:
        return "completed has no next step"
    return None
