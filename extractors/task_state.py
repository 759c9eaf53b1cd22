"""The claim an event's task continuation capsule becomes (TRUST-FACTS §5).

A capsule is a typed payload, not prose: no extractor reads it and no grounding applies. Every
extractor's validation step (``extractors.validation.validate_with_context``) appends this claim, so
it is part of the event's journaled extraction result, and the reducer creates it with the evidence
kind of the event's role and channel (a user's capsule is a human statement, a tool's a
measurement, an assistant's or an agent channel's a model suggestion that stays a proposal).
"""

from __future__ import annotations

from typing import Any, Final

from engine.knowledge import CAPSULE_KEY, TASK_STATE_PREDICATE
from extractors.secrets import mask_text
from schemas.claims import Claim
from schemas.enums import EpistemicType, NodeType, Polarity, Role, TemporalIntent
from schemas.events import ConversationEvent
from schemas.task_state import TaskState

GROUNDING_METHOD: Final = "typed_payload"

_EPISTEMIC: dict[Role, EpistemicType] = {
    Role.USER: EpistemicType.ASSERTED, Role.HUMAN: EpistemicType.ASSERTED,
    Role.PARTICIPANT: EpistemicType.ASSERTED, Role.TOOL: EpistemicType.OBSERVED,
    Role.ASSISTANT: EpistemicType.INFERRED, Role.SYSTEM: EpistemicType.INFERRED,
}  # fmt: skip


def masked_capsule(capsule: TaskState) -> TaskState:
    """The capsule with a secret in any of its texts masked, as admission masks a message's content."""
    step = capsule.last_verified_step
    update: dict[str, Any] = {
        "objective": mask_text(capsule.objective),
        "open_questions": tuple(mask_text(q) or q for q in capsule.open_questions),
        "next_step": mask_text(capsule.next_step),
    }
    if step is not None:
        update["last_verified_step"] = step.model_copy(update={"step": mask_text(step.step)})
    return capsule.model_copy(update=update)


def describe(capsule: TaskState) -> str:
    """One line a person (or a retrieval answer) can read: ``task T (active): objective. Next: …``."""
    text = f"task {capsule.task_id} ({capsule.state.value}): {capsule.objective}"
    if capsule.next_step is not None:
        text += f" Next: {capsule.next_step}"
    return text


def task_state_claim(event: ConversationEvent) -> Claim | None:
    """The ``task_state`` claim of ``event``'s capsule, or None when it carries none."""
    if event.task_state is None:
        return None
    capsule = masked_capsule(event.task_state)
    text = describe(capsule)
    return Claim(
        node_type=NodeType.TASK,
        subject=capsule.task_id,
        predicate=TASK_STATE_PREDICATE,
        object=capsule.state.value,
        polarity=Polarity.POSITIVE,
        epistemic_type=_EPISTEMIC[event.role],
        temporal_intent=TemporalIntent.ASSERTION,
        evidence_quote=text[:8000],
        claim_text=text[:8000],
        grounding_method=GROUNDING_METHOD,
        metadata={CAPSULE_KEY: capsule.model_dump(mode="json", exclude_none=True)},
    )
