"""Request/response contracts of retrieval, shared by the embedded runner, the HTTP API and the CLI.

They live here rather than in ``schemas/`` because only retrieval produces them;
they still derive from ``schemas.common.Contract`` so they are frozen, strict
and JSON round-trippable like every other contract.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal

from pydantic import Field, model_validator

from schemas.common import ActorRef, Contract, KeyId, UtcDatetime
from schemas.enums import (
    ConditionState,
    EpistemicType,
    LifecycleState,
    NodeType,
    Polarity,
    Scope,
    SourceType,
)


class RetrievalMode(StrEnum):
    DEFAULT = "default"
    EXPLICIT = "explicit"

    @classmethod
    def _missing_(cls, value: object) -> object:
        if isinstance(value, str):
            for member in cls:
                if member.value == value.strip().lower():
                    return member
        return None


class Intent(StrEnum):
    """Code intents of PRME-FACTS §6.1 plus ``current_state`` (drives the recency boost)."""

    SEMANTIC = "semantic"
    TEMPORAL = "temporal"
    CURRENT_STATE = "current_state"


class Representation(StrEnum):
    """Packing fidelity, richest first (PRME-FACTS §6.5; PROSE is folded into FULL)."""

    FULL = "FULL"
    STRUCTURED = "STRUCTURED"
    KEY_VALUE = "KEY_VALUE"
    REFERENCE = "REFERENCE"


class TimeWindow(Contract):
    """Half-open ``[start, end)``; either side may be open."""

    start: UtcDatetime | None = None
    end: UtcDatetime | None = None

    @model_validator(mode="after")
    def _ordered(self) -> TimeWindow:
        if self.start is not None and self.end is not None and self.end <= self.start:
            raise ValueError("time window end must be after start")
        return self

    def contains(self, when: datetime) -> bool:
        return (self.start is None or when >= self.start) and (self.end is None or when < self.end)


class RetrievalRequest(Contract):
    query: str = Field(min_length=1, max_length=4000)
    tenant_id: KeyId
    owner_id: KeyId
    scope: Scope | None = None
    scope_id: KeyId | None = None
    mode: RetrievalMode = RetrievalMode.DEFAULT
    limit: int = Field(default=20, ge=1, le=1000)
    #: Floor on semantic relevance (cosine floored at 0), PRME-FACTS §6.3 v2.
    min_score: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    #: <= 0 is accepted on purpose: it yields an empty bundle with ``BUDGET_ERROR``.
    token_budget: int = Field(default=4096, le=1_000_000)
    node_types: frozenset[NodeType] | None = None
    source_types: frozenset[SourceType] | None = None
    #: Hard filter on a memory's time (``valid_from``).
    time_window: TimeWindow | None = None
    valid_at: UtcDatetime | None = None
    knowledge_at: UtcDatetime | None = None
    reference_time: UtcDatetime | None = None
    #: In DEFAULT mode, also explain what the epistemic filter removed (costs one extra search pass).
    debug: bool = False

    @model_validator(mode="after")
    def _scope_id_needs_scope(self) -> RetrievalRequest:
        if self.scope_id is not None and self.scope is None:
            raise ValueError("scope_id requires scope")
        return self


class ProvenanceLabel(Contract):
    """How an item is known: every retrieved item carries one."""

    epistemic_type: EpistemicType
    source_type: SourceType
    confidence: float
    effective_confidence: float
    lifecycle: LifecycleState
    condition: str | None = None
    condition_state: ConditionState | None = None
    evidence_event_ids: tuple[str, ...] = ()
    asserted_by: ActorRef


class ScoreTrace(Contract):
    """Why an item scored what it did (RRF v2)."""

    paths: tuple[str, ...]
    ranks: dict[str, int] = Field(default_factory=dict)
    channel_scores: dict[str, float] = Field(default_factory=dict)
    rrf_base: float
    factors: dict[str, float] = Field(default_factory=dict)
    tie_break: float = 0.0
    semantic_relevance: float = 0.0
    fused_score: float


class RetrievedItem(Contract):
    node_id: str
    node_type: NodeType
    subject: str
    predicate: str
    object: str | None = None
    polarity: Polarity
    content: str
    scope: Scope
    scope_id: str | None = None
    valid_from: UtcDatetime
    valid_to: UtcDatetime | None = None
    recorded_at: UtcDatetime
    salience: float
    score: float
    label: ProvenanceLabel
    trace: ScoreTrace
    conflict_flag: bool = False
    contradicts_id: str | None = None
    #: Every contradiction partner present in the result, presentation order.
    contradicts_ids: tuple[str, ...] = ()
    #: Non-default states worth a reader's attention, e.g. ``inferred``, ``contested``.
    flags: tuple[str, ...] = ()
    in_context: bool = False
    representation: Representation | None = None


class Exclusion(Contract):
    """One candidate left out (or, in EXPLICIT mode, kept despite) a rule.

    ``reason`` uses the PRME reason strings: ``epistemic_filtered:<type>``,
    ``lifecycle_filtered:<state>``, ``condition_filtered:<state>``,
    ``unverified_below_threshold:<c><=<t>``, ``BUDGET_EXHAUSTED``, plus
    ``below_min_score:<s><<m>`` and ``filtered:<field>``.
    """

    node_id: str
    reason: str
    stage: Literal["policy", "filter", "min_score", "packing"]
    #: True when EXPLICIT mode kept the item anyway; the reason says what DEFAULT would do.
    included: bool = False


class RetrievalResponse(Contract):
    items: tuple[RetrievedItem, ...]
    excluded: tuple[Exclusion, ...] = ()
    context: str
    tokens_used: int
    token_budget: int
    sections: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    intent: Intent
    time_window: TimeWindow | None = None
    mode: RetrievalMode
    embedding_mismatch: bool = False
    min_score_skipped: bool = False
    candidate_count: int = 0
    reference_time: UtcDatetime
    request_fingerprint: str


# --- world context ------------------------------------------------------------


class WorldClaim(Contract):
    node_id: str
    node_type: NodeType
    subject: str
    predicate: str
    object: str | None = None
    polarity: Polarity
    content: str
    label: ProvenanceLabel
    valid_from: UtcDatetime
    valid_to: UtcDatetime | None = None
    conflict_flag: bool = False
    #: Why a proposal or stale item is not a fact, e.g. ``inferred``, ``condition:FALSE``, ``validity_ended``.
    reason: str | None = None


class WorldConflict(Contract):
    subject: str
    predicate: str
    #: Presentation order (PRME-FACTS §4 tie-break): the first side leads, the rest carry ``conflict_flag``.
    sides: tuple[WorldClaim, ...]
    node_ids: tuple[str, ...]


class WorldContext(Contract):
    tenant_id: str
    owner_id: str
    scope: Scope | None = None
    scope_id: str | None = None
    reference_time: UtcDatetime
    facts: tuple[WorldClaim, ...] = ()
    conflicts: tuple[WorldConflict, ...] = ()
    proposals: tuple[WorldClaim, ...] = ()
    stale: tuple[WorldClaim, ...] = ()
