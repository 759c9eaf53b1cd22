"""Commands that change epistemic state explicitly (assistants, users, operators).

Each command kind is its own model, discriminated by ``command``; every one
carries the owner/scope it acts in, the acting actor, the time it was issued
(the reducer never reads a clock) and an optional ``request_id`` for exact
retries.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from pydantic import Field, JsonValue, TypeAdapter, field_validator

from schemas.common import ActorRef, ExternalId, ScopeRef, UtcDatetime
from schemas.enums import (
    ConditionState,
    EpistemicType,
    EvaluationMethod,
    SignalType,
    TriggerType,
)


class CommandBase(ScopeRef):
    schema_version: Literal[1] = 1
    command_id: ExternalId
    request_id: str | None = None
    actor: ActorRef
    issued_at: UtcDatetime
    session_id: ExternalId | None = None
    reason: str | None = Field(default=None, max_length=4000)
    evidence_ids: tuple[ExternalId, ...] = ()

    @field_validator("request_id")
    @classmethod
    def _uuid(cls, value: str | None) -> str | None:
        if value is None:
            return None
        return str(uuid.UUID(value))

    @property
    def input_id(self) -> str:
        return f"command:{self.tenant_id}/{self.command_id}"

    def content_fingerprint(self) -> dict[str, Any]:
        """What must be equal for a retry with the same request id to be 'the same'."""
        return self.model_dump(mode="json", exclude={"command_id", "issued_at", "request_id"})


class ReinforceCommand(CommandBase):
    command: Literal["reinforce"] = "reinforce"
    node_id: str
    signal: SignalType = SignalType.CONFIRMED
    signal_source: str | None = None


class PenalizeCommand(CommandBase):
    command: Literal["penalize"] = "penalize"
    node_id: str
    signal: SignalType = SignalType.CORRECTED
    signal_source: str | None = None


class ContradictCommand(CommandBase):
    command: Literal["contradict"] = "contradict"
    node_a: str
    node_b: str
    description: str | None = Field(default=None, max_length=4000)


class ResolveContradictionCommand(CommandBase):
    command: Literal["resolve_contradiction"] = "resolve_contradiction"
    winner_id: str
    loser_id: str


class EvaluateConditionCommand(CommandBase):
    command: Literal["evaluate_condition"] = "evaluate_condition"
    node_id: str
    state: ConditionState
    method: EvaluationMethod = EvaluationMethod.USER


class EpistemicTransitionCommand(CommandBase):
    command: Literal["epistemic_transition"] = "epistemic_transition"
    node_id: str
    to_type: EpistemicType
    trigger_type: TriggerType = TriggerType.USER_CORRECTION


class PromoteCommand(CommandBase):
    command: Literal["promote"] = "promote"
    node_id: str


class ArchiveCommand(CommandBase):
    command: Literal["archive"] = "archive"
    node_id: str
    policy_ref: str | None = None


class DeprecateCommand(CommandBase):
    command: Literal["deprecate"] = "deprecate"
    node_id: str


Command = Annotated[
    ReinforceCommand
    | PenalizeCommand
    | ContradictCommand
    | ResolveContradictionCommand
    | EvaluateConditionCommand
    | EpistemicTransitionCommand
    | PromoteCommand
    | ArchiveCommand
    | DeprecateCommand,
    Field(discriminator="command"),
]

COMMAND_ADAPTER: TypeAdapter[Command] = TypeAdapter(Command)


def parse_command(data: str | bytes | dict[str, JsonValue]) -> Command:
    if isinstance(data, dict):
        return COMMAND_ADAPTER.validate_python(data)
    return COMMAND_ADAPTER.validate_json(data)
