"""Epistemic policy: what DEFAULT mode may show, and how much each kind of knowledge weighs.

PRME-FACTS §4. The same rules are expressed twice on purpose: as a
``SearchFilter`` pushed into the backend (so excluded kinds never even become
candidates) and as a per-node check (to explain exclusions in EXPLICIT/debug
output and as a guard when a backend ignores part of the filter). Both derive
from the constants below so they cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from engine.config import DEFAULT_CONFIG
from engine.filters import condition_state_of, epistemic_exclusion, is_expired
from schemas.canonical import iso
from schemas.enums import (
    ACTIVE_LIFECYCLE_STATES,
    ConditionState,
    EpistemicType,
    LifecycleState,
    NodeType,
)
from schemas.nodes import MemoryNode
from schemas.retrieval import Exclusion, RetrievalMode, RetrievalRequest
from schemas.search import SearchFilter
from schemas.visibility import is_visible

#: UNVERIFIED is shown in DEFAULT mode only when confidence is strictly above this: the engine's number
#: (``EngineConfig.unverified_threshold``, PRME-FACTS §4), so assertion state and retrieval agree.
UNVERIFIED_THRESHOLD = DEFAULT_CONFIG.unverified_threshold

#: Code weights (PRME-FACTS §4); CONDITIONAL is resolved through its condition state.
EPISTEMIC_WEIGHTS: dict[EpistemicType, float] = {
    EpistemicType.OBSERVED: 1.0,
    EpistemicType.ASSERTED: 0.9,
    EpistemicType.INFERRED: 0.7,
    EpistemicType.HYPOTHETICAL: 0.3,
    EpistemicType.CONDITIONAL: 0.5,
    EpistemicType.DEPRECATED: 0.1,
    EpistemicType.UNVERIFIED: 0.5,
}

#: A conditional is weighed as the type it behaves like in its current state.
CONDITION_WEIGHTS: dict[ConditionState, float] = {
    ConditionState.TRUE: 0.9,
    ConditionState.UNKNOWN: 0.3,
    ConditionState.FALSE: 0.1,
    ConditionState.EXPIRED: 0.1,
}

NODE_TYPE_BOOSTS: dict[NodeType, float] = {
    NodeType.FACT: 1.15,
    NodeType.PREFERENCE: 1.15,
    NodeType.DECISION: 1.15,
    NodeType.INSTRUCTION: 1.15,
    NodeType.SUMMARY: 1.10,
}

DEFAULT_EXCLUDED_TYPES = frozenset({EpistemicType.HYPOTHETICAL, EpistemicType.DEPRECATED})
DEFAULT_EPISTEMIC_TYPES = frozenset(EpistemicType) - DEFAULT_EXCLUDED_TYPES
DEFAULT_LIFECYCLES = ACTIVE_LIFECYCLE_STATES
DEFAULT_CONDITION_STATES = frozenset({ConditionState.TRUE})
#: The exclusion reason and flag of a claim whose explicit ``expires_at`` has passed (the world view's
#: stale reason too). Applied per node at the reference time, not pushed into the backends' filters.
EXPIRED = "expired"


def epistemic_weight(node: MemoryNode) -> float:
    if node.epistemic_type is EpistemicType.CONDITIONAL:
        return CONDITION_WEIGHTS[condition_state_of(node)]
    return EPISTEMIC_WEIGHTS[node.epistemic_type]


def node_type_boost(node_type: NodeType) -> float:
    return NODE_TYPE_BOOSTS.get(node_type, 1.0)


def default_exclusion_reason(
    node: MemoryNode, threshold: float = UNVERIFIED_THRESHOLD, at: datetime | None = None
) -> str | None:
    """The reason DEFAULT mode drops ``node``, or None when it is shown.

    Checked in a fixed order so a node that breaks several rules always reports
    the same reason: epistemic type, lifecycle, condition, UNVERIFIED threshold,
    then (given the reference time ``at``) an explicit expiry that has passed: ``expired``.
    An expired claim is dropped as a claim whose condition EXPIRED is (PRME-FACTS §4): expired
    evidence is never silently reused (TRUST-FACTS §4) until a revalidation gives it a new expiry.
    The epistemic rule itself is the engine's (``engine.filters``).
    """
    reason = epistemic_exclusion(node, threshold)
    if reason is not None and reason.startswith("epistemic_filtered:"):
        return reason
    if node.lifecycle not in DEFAULT_LIFECYCLES:
        return f"lifecycle_filtered:{node.lifecycle.value.lower()}"
    if reason is None and at is not None and is_expired(node, at):
        return EXPIRED
    return reason


def default_flags(node: MemoryNode, at: datetime | None = None) -> tuple[str, ...]:
    """Non-default states a reader must see (``inferred``, ``contested``, ``expired``...).

    ``not_default`` marks an item only EXPLICIT mode returns.
    """
    flags: list[str] = []
    if node.epistemic_type not in (EpistemicType.OBSERVED, EpistemicType.ASSERTED):
        flags.append(node.epistemic_type.value.lower())
    if node.epistemic_type is EpistemicType.CONDITIONAL:
        flags.append(f"condition:{condition_state_of(node).value.lower()}")
    if node.lifecycle not in (LifecycleState.TENTATIVE, LifecycleState.STABLE):
        flags.append(node.lifecycle.value.lower())
    if at is not None and is_expired(node, at):
        flags.append(EXPIRED)
    if default_exclusion_reason(node, at=at) is not None:
        flags.append("not_default")
    return tuple(flags)


def apply_policy(
    nodes: Iterable[MemoryNode], mode: RetrievalMode, threshold: float = UNVERIFIED_THRESHOLD,
    at: datetime | None = None,
) -> tuple[list[MemoryNode], list[Exclusion]]:
    """Split candidates into kept nodes and exclusions.

    EXPLICIT keeps everything but still lists what DEFAULT would have dropped,
    with ``included=True``, so a caller can see why an item is unusual.
    """
    kept: list[MemoryNode] = []
    exclusions: list[Exclusion] = []
    for node in nodes:
        reason = default_exclusion_reason(node, threshold, at)
        if reason is None:
            kept.append(node)
            continue
        explicit = mode is RetrievalMode.EXPLICIT
        exclusions.append(Exclusion(node_id=node.node_id, reason=reason, stage="policy", included=explicit))
        if explicit:
            kept.append(node)
    return kept, exclusions


def explicit_search_filter(request: RetrievalRequest) -> SearchFilter:
    """Owner/scope and the caller's typed filters; no epistemic restriction."""
    window = request.time_window
    return SearchFilter(
        tenant_id=request.tenant_id,
        owner_id=request.owner_id,
        scope=request.scope,
        scope_id=request.scope_id,
        node_types=request.node_types,
        source_types=request.source_types,
        valid_at=iso(request.valid_at) if request.valid_at is not None else None,
        recorded_before=iso(request.knowledge_at) if request.knowledge_at is not None else None,
        time_from=iso(window.start) if window is not None and window.start is not None else None,
        time_to=iso(window.end) if window is not None and window.end is not None else None,
        readable=request.readable,
    )


def default_search_filter(request: RetrievalRequest, threshold: float = UNVERIFIED_THRESHOLD) -> SearchFilter:
    """The DEFAULT-mode rules of §4 as a filter the backend applies inside its query."""
    return explicit_search_filter(request).model_copy(
        update={
            "epistemic_types": DEFAULT_EPISTEMIC_TYPES,
            "lifecycles": DEFAULT_LIFECYCLES,
            "condition_states": DEFAULT_CONDITION_STATES,
            "unverified_min_confidence": threshold,
        }
    )


def search_filter_for(request: RetrievalRequest, threshold: float = UNVERIFIED_THRESHOLD) -> SearchFilter:
    if request.mode is RetrievalMode.EXPLICIT:
        return explicit_search_filter(request)
    return default_search_filter(request, threshold)


def _parse(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def node_matches_filter(node: MemoryNode, flt: SearchFilter) -> bool:
    """Reference semantics of every ``SearchFilter`` field.

    Backends must return a subset of what this accepts; the retriever re-checks
    candidates with it so a backend that ignores a field cannot leak.
    """
    if node.tenant_id != flt.tenant_id or node.owner_id != flt.owner_id:
        return False
    if not is_visible(node.visibility, flt.readable):
        return False
    if flt.scope is not None and node.scope is not flt.scope:
        return False
    if flt.scope_id is not None and node.scope_id != flt.scope_id:
        return False
    if flt.node_types is not None and node.node_type not in flt.node_types:
        return False
    if flt.source_types is not None and node.source_type not in flt.source_types:
        return False
    if flt.epistemic_types is not None and node.epistemic_type not in flt.epistemic_types:
        return False
    if flt.lifecycles is not None and node.lifecycle not in flt.lifecycles:
        return False
    if (
        flt.condition_states is not None
        and node.epistemic_type is EpistemicType.CONDITIONAL
        and condition_state_of(node) not in flt.condition_states
    ):
        return False
    if (
        flt.unverified_min_confidence is not None
        and node.epistemic_type is EpistemicType.UNVERIFIED
        and node.confidence <= flt.unverified_min_confidence
    ):
        return False
    if flt.valid_at is not None:
        at = _parse(flt.valid_at)
        if node.valid_from > at or (node.valid_to is not None and node.valid_to <= at):
            return False
    if flt.recorded_before is not None and node.recorded_at > _parse(flt.recorded_before):
        return False
    if flt.time_from is not None and node.valid_from < _parse(flt.time_from):
        return False
    return not (flt.time_to is not None and node.valid_from >= _parse(flt.time_to))
