"""Commands that change epistemic state explicitly (assistants, users, operators).

Each command kind is its own model, discriminated by ``command``; every one
carries the owner/scope it acts in, the acting actor, the time it was issued
(the reducer never reads a clock) and an optional ``request_id`` for exact
retries.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field, JsonValue, TypeAdapter, field_validator

from schemas.common import ActorRef, ExternalId, ScopeRef, UtcDatetime, added_field
from schemas.enums import (
    ConditionState,
    EpistemicType,
    EvaluationMethod,
    PrincipalKind,
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
    #: The kind of principal the command arrived through, set by the edge (API key, publisher); with
    #: ``actor.actor_type`` it decides the command's evidence kind (``engine.trust``). None = a trusted
    #: local operator or relay, as before channels existed.
    channel: PrincipalKind | None = added_field()

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


class RevalidateCommand(CommandBase):
    """New evidence that a claim still holds, and until when (TRUST-FACTS §4).

    Makes a stale (expired) claim current again, or moves a current claim's expiry; the lifecycle is
    untouched (stale is derived, never a state). Needs evidence: ``evidence_ids`` (events of this
    stream) or an ``evidence_quote``; the previous expiry and evidence stay in the claim's history.
    """

    command: Literal["revalidate"] = "revalidate"
    node_id: str
    expires_at: UtcDatetime
    evidence_quote: str | None = Field(default=None, max_length=8000)


class RevalidationCodes:
    """Stable codes of a refused revalidation (journaled as COMMAND_REJECTED; the API answers 409)."""

    EXPIRY_IN_PAST = "expiry_in_past"
    EVIDENCE_REQUIRED = "evidence_required"
    CLAIM_RETIRED = "claim_retired"
    VALIDITY_ENDED = "validity_ended"
    CONDITION_NOT_TRUE = "condition_not_true"


class EraseCommand(CommandBase):
    """One erasure's part for one ``tenant/owner/scope`` (its routing key); see ``schemas.erasure``.

    The caller resolves the scope to event ids from the raw events (``event_ids``: every event the
    erasure removes, of any owner of the tenant), so the reducer also strips them from the evidence of
    the claims that only cite them. ``subject_owner`` is the owner whose memory is erased (owner,
    conversation and event scopes); the command's own ``owner_id`` only routes it.
    """

    command: Literal["erase"] = "erase"
    erasure_id: str = Field(min_length=1, max_length=64)
    kind: Literal["owner", "speaker", "conversation", "event"]
    subject_owner: str | None = None
    speaker_id: ExternalId | None = None
    conversation_id: ExternalId | None = None
    event_ids: tuple[ExternalId, ...] = ()


Command = Annotated[
    ReinforceCommand
    | PenalizeCommand
    | ContradictCommand
    | ResolveContradictionCommand
    | EvaluateConditionCommand
    | EpistemicTransitionCommand
    | PromoteCommand
    | ArchiveCommand
    | DeprecateCommand
    | RevalidateCommand
    | EraseCommand,
    Field(discriminator="command"),
]

COMMAND_ADAPTER: TypeAdapter[Command] = TypeAdapter(Command)


def parse_command(data: str | bytes | dict[str, JsonValue]) -> Command:
    if isinstance(data, dict):
        return COMMAND_ADAPTER.validate_python(data)
    return COMMAND_ADAPTER.validate_json(data)


@dataclass(frozen=True)
class CommandSpec:
    """One explicit command as every entry point offers it: the CLI, the HTTP API and the reducer.

    The entry points are generated from this table, so a command's name, the nodes it names, the
    permission it needs and its help text are written once.
    """

    #: CLI command and HTTP route name (``epistream reinforce``, ``POST /v1/nodes/{id}/reinforce``).
    name: str
    model: type[CommandBase]
    #: Fields naming nodes; the first names the node whose owner and scope the command acts in.
    targets: tuple[str, ...]
    #: API-key permission needed (``assert`` or ``deprecate``); see ``epistream.api.auth.Permission``.
    permission: Literal["assert", "deprecate"]
    summary: str
    #: CLI option names that differ from ``--<field-name>``.
    cli_options: tuple[tuple[str, str], ...] = ()

    @property
    def command(self) -> str:
        """The wire name (the model's ``command`` literal) the reducer dispatches on."""
        value: str = self.model.model_fields["command"].default
        return value

    def own_fields(self) -> list[str]:
        """Fields a caller sets for this command beyond the common ones and its targets."""
        common = set(CommandBase.model_fields) | {"command", *self.targets}
        return [name for name in self.model.model_fields if name not in common]

    def option_name(self, field: str) -> str:
        return dict(self.cli_options).get(field, "--" + field.replace("_", "-"))


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("reinforce", ReinforceCommand, ("node_id",), "assert",
                "Apply a positive signal (CONFIRMED, REFERENCED, ...) to a claim's confidence."),
    CommandSpec("penalize", PenalizeCommand, ("node_id",), "assert",
                "Apply a negative signal (CORRECTED, CONTRADICTED_BY_OBSERVATION, ...) to a claim's confidence."),
    CommandSpec("contradict", ContradictCommand, ("node_a", "node_b"), "assert",
                "Record that two claims contradict each other (both become CONTESTED)."),
    CommandSpec("resolve", ResolveContradictionCommand, ("winner_id", "loser_id"), "assert",
                "Resolve a contradiction explicitly: the winner becomes STABLE, the loser DEPRECATED."),
    CommandSpec("condition", EvaluateConditionCommand, ("node_id",), "assert",
                "Evaluate a CONDITIONAL claim's condition (UNKNOWN, TRUE, FALSE, EXPIRED).",
                cli_options=(("state", "--state"),)),
    CommandSpec("transition", EpistemicTransitionCommand, ("node_id",), "assert",
                "Change how a claim is known (e.g. HYPOTHETICAL -> ASSERTED); forbidden moves are rejected.",
                cli_options=(("to_type", "--to"), ("trigger_type", "--trigger"))),
    CommandSpec("promote", PromoteCommand, ("node_id",), "assert", "Promote a claim to STABLE."),
    CommandSpec("archive", ArchiveCommand, ("node_id",), "deprecate", "Archive a claim (final)."),
    CommandSpec("deprecate", DeprecateCommand, ("node_id",), "deprecate",
                "Deprecate a claim (known wrong or replaced)."),
    CommandSpec("revalidate", RevalidateCommand, ("node_id",), "assert",
                "Revalidate a claim with new evidence and a new expiry: a stale (expired) claim is current again.",
                cli_options=(("expires_at", "--expires-at"), ("evidence_quote", "--quote"))),
)  # fmt: skip

COMMAND_SPECS: dict[str, CommandSpec] = {spec.name: spec for spec in COMMANDS}
