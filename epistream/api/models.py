"""Wire models of the HTTP API that are not already contracts elsewhere.

Request bodies never carry ``tenant_id``: the tenant is the API key's. Owner
and scope may be given and are checked against the key's grants.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from engine.assertion_state import DEFAULT_NODE_TYPES
from engine.results import Outcome
from schemas.common import ExternalId, KeyId, UtcDatetime
from schemas.enums import (
    ConditionState,
    EpistemicType,
    EvaluationMethod,
    NodeType,
    Scope,
    SignalType,
    SourceType,
    TriggerType,
)
from schemas.nodes import MemoryNode
from schemas.retrieval import RetrievalMode, TimeWindow


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RetrieveBody(_Body):
    query: str = Field(min_length=1, max_length=4000)
    #: Defaults to the key's only owner when the key is bound to exactly one.
    owner_id: KeyId | None = None
    scope: Scope | None = None
    scope_id: KeyId | None = None
    mode: RetrievalMode = RetrievalMode.DEFAULT
    limit: int = Field(default=20, ge=1, le=1000)
    min_score: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    token_budget: int = Field(default=4096, ge=-1_000_000, le=1_000_000)
    node_types: list[NodeType] | None = Field(default=None, max_length=32)
    source_types: list[SourceType] | None = Field(default=None, max_length=32)
    time_window: TimeWindow | None = None
    valid_at: UtcDatetime | None = None
    knowledge_at: UtcDatetime | None = None
    reference_time: UtcDatetime | None = None
    debug: bool = False
    #: What to rank: claims and the messages they come from (default), or one kind only.
    sources: Literal["all", "claims", "excerpts"] = "all"


#: PRME-FACTS §9: the node types an assertion-state query reads unless told otherwise.
ASSERTION_NODE_TYPES: tuple[NodeType, ...] = tuple(sorted(DEFAULT_NODE_TYPES, key=lambda t: t.value))


class AssertionStateBody(_Body):
    """PRME-FACTS §9 query fields; the tenant is the key's, the owner defaults to the key's only owner."""

    owner_id: KeyId | None = None
    #: Required and non-empty (§9); the pattern also turns away whitespace-only values.
    subject: str = Field(min_length=1, max_length=500, pattern=r"\S")
    predicate: str = Field(min_length=1, max_length=500, pattern=r"\S")
    valid_at: UtcDatetime
    knowledge_at: UtcDatetime | None = None
    scope: Scope | None = None
    scope_id: KeyId | None = None
    #: An empty list would match nothing and read as ``unknown``; it is rejected instead.
    node_types: list[NodeType] = Field(default_factory=lambda: list(ASSERTION_NODE_TYPES), min_length=1,
                                       max_length=32)
    limit: int = Field(default=1000, ge=1, le=10_000)


class EventsBody(_Body):
    events: list[dict[str, JsonValue]] = Field(min_length=1)


class EventResult(BaseModel):
    index: int
    event_id: str | None = None
    status: Literal["accepted", "duplicate", "rejected"]
    code: str | None = None
    message: str | None = None


class EventsResponse(BaseModel):
    accepted: int
    duplicates: int
    rejected: int
    results: list[EventResult]
    claims: int = 0
    operations: int = 0


class _CommandBody(_Body):
    reason: str | None = Field(default=None, max_length=4000)
    evidence_ids: list[ExternalId] = Field(default_factory=list, max_length=100)
    session_id: ExternalId | None = None


class ContradictBody(_CommandBody):
    node_a: str = Field(min_length=1, max_length=200)
    node_b: str = Field(min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=4000)


class ResolveBody(_CommandBody):
    winner_id: str = Field(min_length=1, max_length=200)
    loser_id: str = Field(min_length=1, max_length=200)


class ConditionBody(_CommandBody):
    state: ConditionState
    method: EvaluationMethod = EvaluationMethod.USER


class SignalBody(_CommandBody):
    signal: SignalType | None = None
    signal_source: str | None = Field(default=None, max_length=200)


class TransitionBody(_CommandBody):
    to_type: EpistemicType
    trigger_type: TriggerType = TriggerType.USER_CORRECTION


class PlainCommandBody(_CommandBody):
    pass


class ArchiveBody(_CommandBody):
    policy_ref: str | None = Field(default=None, max_length=200)


class RevalidateBody(_CommandBody):
    """New evidence (``evidence_ids`` of this stream, or ``evidence_quote``) and the claim's new expiry."""

    expires_at: UtcDatetime
    evidence_quote: str | None = Field(default=None, max_length=8000)


class CommandResponse(BaseModel):
    """The engine's outcome of the one command a request became.

    ``node`` is the target as it stands after the command (PRME-FACTS §5.5: a retry of a committed
    request changes nothing and returns the current node). Distributed mode leaves it out: the
    workers' copy may not show the command yet.
    """

    command: str
    command_id: str
    outcome: Outcome
    node: MemoryNode | None = None


class HealthCheck(BaseModel):
    ok: bool
    latency_ms: float
    error: str | None = None


class HealthResponse(BaseModel):
    status: Literal["ok", "degraded"]
    checks: dict[str, HealthCheck]


def dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json")
