"""Stored memory: nodes and the edges between them."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, JsonValue

from schemas.claims import EvidenceSpan
from schemas.common import ActorRef, Contract, ScopeRef, UtcDatetime, added_field
from schemas.enums import (
    ConditionState,
    DecayProfile,
    EdgeType,
    EpistemicType,
    EvidenceKind,
    LifecycleState,
    NodeType,
    Polarity,
    Role,
    SourceType,
    TemporalIntent,
)
from schemas.visibility import Visibility


class ConditionEvaluation(Contract):
    evaluated_at: UtcDatetime
    method: str
    evaluated_by: str
    reason: str | None = None
    evidence_id: str | None = None


class Revalidation(Contract):
    """The latest revalidation of a claim (TRUST-FACTS §4): new evidence that it still holds, a new expiry.

    Earlier ones stay in the claim's REVALIDATED operations (each with its node before and after).
    """

    revalidated_at: UtcDatetime
    revalidated_by: str
    previous_expires_at: UtcDatetime | None = None
    expires_at: UtcDatetime
    evidence_ids: tuple[str, ...] = ()
    evidence_quote: str | None = None
    reason: str | None = None


class MemoryNode(ScopeRef):
    """A claim as memory: how it is known, why, by whom, and how it changed.

    Everything the reducer needs to continue from a node is on the node, so the
    last ``after`` snapshot in the operation log is the complete state.
    """

    schema_version: Literal[1] = 1
    node_id: str
    version: int = Field(ge=1)
    node_type: NodeType
    subject: str
    predicate: str
    object: str | None = None
    polarity: Polarity = Polarity.POSITIVE
    content: str
    epistemic_type: EpistemicType
    source_type: SourceType
    #: Who authored the words (TRUST-FACTS §2), fixed at creation and never changed; unset on
    #: claims written before evidence kinds (``engine.trust.evidence_kind_of`` derives theirs).
    evidence_kind: EvidenceKind | None = added_field()
    confidence: float = Field(ge=0.0, le=1.0)
    salience: float = Field(ge=0.0, le=1.0)
    lifecycle: LifecycleState = LifecycleState.TENTATIVE
    decay_profile: DecayProfile
    condition: str | None = None
    condition_state: ConditionState | None = None
    condition_evaluation: ConditionEvaluation | None = None
    temporal_intent: TemporalIntent | None = None
    evidence_refs: tuple[str, ...] = ()
    #: Evidence references an erasure removed (the events are gone; the claim's own content stays).
    erased_evidence_refs: tuple[str, ...] = added_field(())
    evidence_quote: str | None = None
    evidence_span: EvidenceSpan | None = None
    asserted_by: ActorRef
    role: Role | None = None
    #: Who said it, as the source event names them (display name); ``asserted_by`` holds their id.
    speaker: str | None = added_field()
    session_id: str | None = None
    conversation_id: str | None = None
    valid_from: UtcDatetime
    valid_to: UtcDatetime | None = None
    #: Until when the claim holds, as its source said (``expires_at`` on the event or claim) or its last
    #: revalidation set it; after that it is stale (``engine.world_rules.stale_reason``: ``expired``), a
    #: derived condition, not a lifecycle state. An explicit expiry replaces the node type's TTL.
    expires_at: UtcDatetime | None = added_field()
    revalidation: Revalidation | None = added_field()
    #: Dates the claim's text refers to ("yesterday" → the day before the message), see
    #: ``extractors.dates``; not ``valid_from``, which is when the claim starts to hold.
    event_dates: tuple[str, ...] = added_field(())
    #: Who may read it across owners (``schemas.visibility``), from its source event; unset is private.
    visibility: Visibility | None = added_field()
    recorded_at: UtcDatetime
    created_at: UtcDatetime
    updated_at: UtcDatetime
    last_reinforced_at: UtcDatetime
    superseded_by: str | None = None
    supersedes: tuple[str, ...] = ()
    contradicts: tuple[str, ...] = ()
    previously_rejected: str | None = None
    reinforcement_count: int = 0
    #: ``"<actor_id>|<signal>" -> count`` for the 1/n rule on repeated signals.
    signal_counts: dict[str, int] = Field(default_factory=dict)
    #: ``session_id -> total gamma applied`` for the per-session cap.
    session_gamma: dict[str, float] = Field(default_factory=dict)
    classification_confidence: float = 1.0
    extractor: str | None = None
    grounding_method: str | None = None
    metadata: dict[str, JsonValue] = Field(default_factory=dict)


class Edge(ScopeRef):
    schema_version: Literal[1] = 1
    edge_id: str
    edge_type: EdgeType
    source_id: str
    target_id: str
    created_at: UtcDatetime
    created_by: ActorRef
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    valid_from: UtcDatetime
    valid_to: UtcDatetime | None = None
    active: bool = True
    provenance_event_id: str | None = None
    relation_label: str | None = None
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
