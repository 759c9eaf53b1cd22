"""Request/response contracts of retrieval, shared by the embedded runner, the HTTP API and the CLI.

They live here rather than in ``schemas/`` because only retrieval produces them;
they still derive from ``schemas.common.Contract`` so they are frozen, strict
and JSON round-trippable like every other contract.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from typing import Literal

from pydantic import Field, model_validator

from schemas.common import ActorRef, Contract, KeyId, UtcDatetime, added_field
from schemas.enums import (
    ConditionState,
    EpistemicType,
    EvidenceKind,
    LifecycleState,
    NodeType,
    Polarity,
    Role,
    Scope,
    SourceType,
)
from schemas.task_state import KnowledgeKind, TaskStatus, VerifiedStep


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
    #: What to rank: claims and source excerpts together (default), or one kind only.
    sources: Literal["all", "claims", "excerpts"] = "all"
    #: Set by the server for a reader not allowed for ``owner_id`` (``schemas.visibility``): only the
    #: owner's records of these visibilities are searched and shown. None = allowed for the owner.
    readable: frozenset[str] | None = added_field()

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
    """One ranked item: a claim, or an excerpt of what was said (never a fact: ``kind`` says which).

    For an excerpt, ``node_id`` is the excerpt's id, ``subject`` the speaker, ``predicate`` ``said``,
    ``content`` the message text, ``valid_from`` when it was said, ``event_id`` the message and
    ``claim_ids`` the claims taken from it.
    """

    kind: Literal["claim", "excerpt"] = "claim"
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
    #: The claim's explicit expiry (TRUST-FACTS §4); DEFAULT mode leaves it out once passed (``expired``).
    expires_at: UtcDatetime | None = added_field()
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
    #: Who said it (the source event's display name) and the dates its text refers to.
    speaker: str | None = None
    role: Role | None = None
    event_dates: tuple[str, ...] = ()
    #: Excerpts only: the message and the claims extracted from it.
    event_id: str | None = None
    claim_ids: tuple[str, ...] = ()


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
    #: Id of the retrieval receipt recorded for this answer (``GET /v1/retrievals/{id}``); None when
    #: receipts are off or the caller did not record one.
    receipt_id: str | None = None


# --- retrieval receipts --------------------------------------------------------

#: Namespace of derived receipt ids (stable across processes and restarts).
RECEIPT_NAMESPACE = uuid.UUID("0f6c3b1e-8d2a-4f57-b1c4-3e9a7d2c5b80")


def receipt_id_for(
    tenant_id: str, owner_id: str, request_fingerprint: str, answer_sha256: str, actor_id: str | None = None
) -> str:
    """UUIDv5 of who asked, what exactly (the fingerprint covers the reference time) and what was answered.

    The asking principal (``actor_id``) is part of it: a receipt belongs to the caller that made it,
    and another caller's identical question is its own receipt, never a row beside this one.

    The receive time is left out on purpose: a retrieval pinned to a reference time is a pure function
    of the request and the memory, and its answer must stay byte-identical when asked again
    (``receipt_id`` included). Asked without a pinned time the reference time is the clock, so every
    call gets its own receipt; a pinned question asked again with the same answer shares the id, and
    the table keeps one row per receive time.
    """
    seed = f"{tenant_id}|{owner_id}|{request_fingerprint}|{answer_sha256}"
    if actor_id is not None:
        seed += f"|{actor_id}"
    return str(uuid.uuid5(RECEIPT_NAMESPACE, seed))


def chosen_receipt_id(tenant_id: str, actor_id: str, chosen: str) -> str:
    """The receipt id of a retrieval whose caller chose ``chosen`` (an Idempotency-Key UUID).

    Scoped to the caller: another key that sends the same value gets another receipt, so no caller
    can hide, replace or read another's receipt by reusing its id.
    """
    return str(uuid.uuid5(RECEIPT_NAMESPACE, f"chosen|{tenant_id}|{actor_id}|{chosen}"))


def answer_sha256(response: RetrievalResponse) -> str:
    """Digest of what an answer showed and left out: its items in order, their scores, the packed context
    and the exclusions."""
    parts = [response.context, *(f"{i.node_id}:{i.score!r}:{int(i.in_context)}" for i in response.items)]
    parts += [f"{e.node_id}:{e.stage}:{e.reason}:{int(e.included)}" for e in response.excluded]
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


class ReceiptItem(Contract):
    """One item of the answer, in bundle order, as it was when it was shown."""

    node_id: str
    #: Node version at retrieval time (0 when the serving process could not tell).
    version: int = Field(default=0, ge=0)
    score: float
    #: Whether the packed context (what the assistant reads) holds it, not only the item list.
    in_context: bool


class RetrievalReceipt(Contract):
    """The audit record of one retrieval (PRME-FACTS 5.3 RETRIEVAL_REQUEST): what memory an assistant
    was shown, what was left out and why, under which configuration. Never folded into state."""

    receipt_id: str
    tenant_id: str
    owner_id: str
    scope: Scope | None = None
    scope_id: str | None = None
    #: The API key id, or ``cli``.
    actor_id: str
    mode: RetrievalMode
    query_intent: Intent
    #: The query text as stored: secrets masked like raw events unless raw secrets are retained.
    query: str
    reference_time: UtcDatetime
    received_at: UtcDatetime
    candidates_generated: int = Field(ge=0)
    candidates_after_filter: int = Field(ge=0)
    included: tuple[ReceiptItem, ...] = ()
    #: The response's exclusions; ``included=True`` marks what EXPLICIT mode kept despite a rule.
    excluded: tuple[Exclusion, ...] = ()
    tokens_used: int
    token_budget: int
    embedding_model: str
    embedding_version: str
    embedding_mismatch: bool = False
    warnings: tuple[str, ...] = ()
    #: SHA-256 of the packed context text: proves which context a stored answer was given.
    context_sha256: str
    request_fingerprint: str

    @classmethod
    def of(
        cls,
        request: RetrievalRequest,
        response: RetrievalResponse,
        *,
        receipt_id: str | None = None,
        actor_id: str,
        query: str,
        received_at: datetime,
        embedding_model: str,
        embedding_version: str,
        versions: Mapping[str, int] | None = None,
    ) -> RetrievalReceipt:
        """The receipt of ``response``; ``query`` is the already-masked text, ``receipt_id`` the caller's
        choice (e.g. an Idempotency-Key) or else :func:`receipt_id_for` the request and its answer.

        ``candidates_after_filter`` is what reached fusion: the candidates minus those a policy or
        filter stage removed. Without ``debug`` in DEFAULT mode the epistemic filter runs inside the
        search, so it equals ``candidates_generated`` there.
        """
        removed = {e.node_id for e in response.excluded if e.stage in ("policy", "filter") and not e.included}
        known = versions or {}
        if receipt_id is None:
            receipt_id = receipt_id_for(
                request.tenant_id, request.owner_id, response.request_fingerprint, answer_sha256(response), actor_id
            )
        return cls(
            receipt_id=receipt_id,
            tenant_id=request.tenant_id,
            owner_id=request.owner_id,
            scope=request.scope,
            scope_id=request.scope_id,
            actor_id=actor_id,
            mode=response.mode,
            query_intent=response.intent,
            query=query,
            reference_time=response.reference_time,
            received_at=received_at,
            candidates_generated=response.candidate_count,
            candidates_after_filter=max(0, response.candidate_count - len(removed)),
            included=tuple(
                # an excerpt's document has one version: what was said does not change
                ReceiptItem(node_id=i.node_id, version=1 if i.kind == "excerpt" else known.get(i.node_id, 0),
                            score=i.score, in_context=i.in_context)
                for i in response.items
            ),
            excluded=response.excluded,
            tokens_used=response.tokens_used,
            token_budget=response.token_budget,
            embedding_model=embedding_model,
            embedding_version=embedding_version,
            embedding_mismatch=response.embedding_mismatch,
            warnings=response.warnings,
            context_sha256=hashlib.sha256(response.context.encode("utf-8")).hexdigest(),
            request_fingerprint=response.request_fingerprint,
        )


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
    #: Until when the claim holds (its source's ``expires_at`` or its last revalidation); stale after it.
    expires_at: UtcDatetime | None = added_field()
    conflict_flag: bool = False
    #: Why a proposal or stale item is not a fact, e.g. ``inferred``, ``condition:FALSE``, ``validity_ended``,
    #: ``expired`` (its ``expires_at`` passed; a revalidation makes it current again).
    reason: str | None = None
    #: The claim as typed knowledge (fact, preference, decision, task_state, error_lesson), derived
    #: from its predicate and node type (``engine.knowledge``); None for a to-do, a note, a summary.
    knowledge_kind: KnowledgeKind | None = added_field()
    #: A decision's reason, where its own sentence gives one (at most 280 characters).
    rationale: str | None = added_field()


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
    #: Where work stands (``retrieval.continuation``): resumable, completed and withheld capsules.
    continuation: Continuation | None = None
    #: For the selected task (``continuation_task_id``): the established knowledge relevant to it.
    task_context: TaskContext | None = None


class TaskCapsule(Contract):
    """A task continuation capsule as the world view shows it, with where it came from."""

    task_id: str
    node_id: str
    objective: str
    state: TaskStatus
    last_verified_step: VerifiedStep | None = None
    open_questions: tuple[str, ...] = ()
    next_step: str | None = None
    evidence_kind: EvidenceKind
    #: Provenance: the event(s) that carried it, their session and conversation, when it was recorded.
    event_ids: tuple[str, ...] = ()
    session_id: str | None = None
    conversation_id: str | None = None
    recorded_at: UtcDatetime
    #: Established capsules it replaced (their node ids), by explicit supersession.
    supersedes: tuple[str, ...] = ()


class WithheldTask(Contract):
    """A task whose established capsules compete (or are contested): none is resumable until one
    explicitly supersedes the others (or a person deprecates the wrong one)."""

    task_id: str
    reason: Literal["competing_capsules", "contested"]
    node_ids: tuple[str, ...]


class Continuation(Contract):
    """Resumable work: only current, established, conflict-free capsules (TRUST-FACTS §5). A model's
    capsule stays in ``proposals``, however often repeated. A capsule grants no permission and starts
    nothing; it tells whoever resumes where the work stood."""

    #: Non-terminal capsules (active, blocked, paused), newest first, at most 8.
    resumable: tuple[TaskCapsule, ...] = ()
    #: Completed capsules, shown apart, newest first, at most 8.
    completed: tuple[TaskCapsule, ...] = ()
    withheld: tuple[WithheldTask, ...] = ()
    #: The task the request selected, if any: then only its capsule (or its withholding) is listed.
    selected_task_id: str | None = None


class TaskContext(Contract):
    """For one resumable task: up to 6 established facts, preferences, decisions and lessons whose words
    meet its objective, open questions or next step. Uncertain, stale, superseded, contested, foreign
    and task-state claims are never part of it."""

    task_id: str
    capsule: TaskCapsule
    claims: tuple[WorldClaim, ...] = ()


WorldContext.model_rebuild()
