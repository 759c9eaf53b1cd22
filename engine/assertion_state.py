"""Assertion state of (subject, predicate) at a point in time (PRME-FACTS §9).

Reports what the *stored, eligible* claims say — never inferred from recency:
two values with no explicit link are ``multiple``, not "the newer one wins".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

from engine.config import DEFAULT_CONFIG, EngineConfig
from engine.filters import exclusion_reasons
from engine.normalize import normalize_predicate, normalize_text
from schemas.canonical import to_utc
from schemas.common import ScopeRef
from schemas.enums import EdgeType, EpistemicType, LifecycleState, NodeType, Polarity
from schemas.errors import ValidationFailed
from schemas.nodes import Edge, MemoryNode

DEFAULT_NODE_TYPES = frozenset({NodeType.FACT, NodeType.DECISION, NodeType.PREFERENCE})
Status = Literal["unknown", "single", "consistent", "multiple", "contested"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TimelineEntry(_Model):
    node_id: str
    object: str | None
    polarity: Polarity
    normalized_object: str
    epistemic_type: EpistemicType
    lifecycle: LifecycleState
    confidence: float
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    created_at: datetime
    updated_at: datetime
    superseded_by: str | None
    evidence_refs: tuple[str, ...]
    contradiction_ids: tuple[str, ...]
    exclusion_reasons: tuple[str, ...]


class CurrentValue(_Model):
    object: str | None
    polarity: Polarity
    normalized_object: str
    normalized_polarity: str
    candidate_count: int
    evidence_count: int
    samples: tuple[str, ...]


class Conflict(_Model):
    edge_id: str
    source_id: str
    target_id: str
    active_at_valid_at: bool
    active_between_current_candidates: bool


class HistoricalCoverage(_Model):
    knowledge_at: datetime
    exact_snapshot: bool = False


class AssertionState(_Model):
    schema_version: Literal[1] = 1
    subject: str
    predicate: str
    valid_at: datetime
    knowledge_at: datetime | None
    status: Status
    scanned_nodes: int
    matched_records: int
    current_candidate_count: int
    conflict_count: int
    current_values: tuple[CurrentValue, ...]
    current_candidates: tuple[TimelineEntry, ...]
    timeline: tuple[TimelineEntry, ...]
    conflicts: tuple[Conflict, ...]
    exclusions: dict[str, int]
    truncated: bool
    state_semantics: Literal["eligible_claims_not_verified_truth"] = "eligible_claims_not_verified_truth"
    stored_set_exhaustive: bool = True
    semantic_equivalence: Literal["normalized_exact_only"] = "normalized_exact_only"
    source_extraction_coverage: Literal["unknown"] = "unknown"
    real_world_coverage: Literal["unknown"] = "unknown"
    historical_coverage: HistoricalCoverage | None = None


def _aware(value: datetime, name: str) -> datetime:
    try:
        return to_utc(value)
    except ValueError:
        raise ValidationFailed(f"{name} must include a timezone", code="naive_timestamp", field=name) from None


def _edge_active_at(edge: Edge, at: datetime) -> bool:
    return edge.active and edge.valid_from <= at and (edge.valid_to is None or at < edge.valid_to)


def assertion_state(
    nodes: Iterable[MemoryNode],
    edges: Iterable[Edge],
    *,
    subject: str,
    predicate: str,
    valid_at: datetime,
    knowledge_at: datetime | None = None,
    scope: ScopeRef | None = None,
    node_types: Iterable[NodeType] = DEFAULT_NODE_TYPES,
    limit: int = 1000,
    config: EngineConfig = DEFAULT_CONFIG,
) -> AssertionState:
    if not subject.strip() or not predicate.strip():
        raise ValidationFailed("subject and predicate are required", code="missing_field")
    if not 1 <= limit <= 10_000:
        raise ValidationFailed("limit must be between 1 and 10000", code="invalid_limit")
    at = _aware(valid_at, "valid_at")
    cutoff = _aware(knowledge_at, "knowledge_at") if knowledge_at is not None else None
    subj_n, pred_n = normalize_text(subject), normalize_predicate(predicate)
    types = frozenset(node_types)

    scanned = 0
    matched: list[MemoryNode] = []
    for node in nodes:
        scanned += 1
        if node.node_type not in types:
            continue
        if scope is not None and not node.same_scope(scope):
            continue
        if normalize_text(node.subject) == subj_n and normalize_predicate(node.predicate) == pred_n:
            matched.append(node)
    matched.sort(key=lambda n: (n.valid_from, n.created_at, n.node_id))
    truncated = len(matched) > limit
    matched = matched[:limit]
    matched_ids = {n.node_id for n in matched}

    contradiction_edges = [
        e
        for e in edges
        if e.edge_type is EdgeType.CONTRADICTS and e.source_id in matched_ids and e.target_id in matched_ids
    ]
    contradiction_ids: dict[str, list[str]] = {}
    for e in contradiction_edges:
        contradiction_ids.setdefault(e.source_id, []).append(e.target_id)
        contradiction_ids.setdefault(e.target_id, []).append(e.source_id)

    histogram: Counter[str] = Counter()
    timeline: list[TimelineEntry] = []
    candidates: list[TimelineEntry] = []
    candidate_nodes: dict[str, MemoryNode] = {}
    for node in matched:
        if cutoff is not None and node.recorded_at > cutoff:
            histogram["after_knowledge_cutoff"] += 1
            continue
        reasons = exclusion_reasons(node, at, config)
        histogram.update(reasons)
        entry = TimelineEntry(
            node_id=node.node_id,
            object=node.object,
            polarity=node.polarity,
            normalized_object=normalize_text(node.object),
            epistemic_type=node.epistemic_type,
            lifecycle=node.lifecycle,
            confidence=node.confidence,
            valid_from=node.valid_from,
            valid_to=node.valid_to,
            recorded_at=node.recorded_at,
            created_at=node.created_at,
            updated_at=node.updated_at,
            superseded_by=node.superseded_by,
            evidence_refs=node.evidence_refs,
            contradiction_ids=tuple(sorted(set(contradiction_ids.get(node.node_id, ())) | set(node.contradicts))),
            exclusion_reasons=tuple(reasons),
        )
        timeline.append(entry)
        if not reasons:
            candidates.append(entry)
            candidate_nodes[node.node_id] = node

    conflicts = tuple(
        Conflict(
            edge_id=e.edge_id,
            source_id=e.source_id,
            target_id=e.target_id,
            active_at_valid_at=_edge_active_at(e, at),
            active_between_current_candidates=_edge_active_at(e, at)
            and e.source_id in candidate_nodes
            and e.target_id in candidate_nodes,
        )
        for e in sorted(contradiction_edges, key=lambda e: e.edge_id)
    )

    groups: dict[tuple[str, str], list[MemoryNode]] = {}
    for node in candidate_nodes.values():
        groups.setdefault((normalize_text(node.object), node.polarity.value), []).append(node)
    values = tuple(
        CurrentValue(
            object=members[0].object,
            polarity=members[0].polarity,
            normalized_object=key[0],
            normalized_polarity=key[1],
            candidate_count=len(members),
            evidence_count=len({ref for m in members for ref in m.evidence_refs}),
            samples=tuple(m.node_id for m in members[:3]),
        )
        for key, members in sorted(groups.items())
    )

    status: Status
    if not candidates:
        status = "unknown"
    elif any(c.active_between_current_candidates for c in conflicts) or any(
        n.lifecycle is LifecycleState.CONTESTED for n in candidate_nodes.values()
    ):
        status = "contested"
    elif len(candidates) == 1:
        status = "single"
    elif len(groups) == 1:
        status = "consistent"
    else:
        status = "multiple"

    ordered = sorted(candidates, key=lambda c: (-c.confidence, -c.recorded_at.timestamp(), c.node_id))
    return AssertionState(
        subject=subject,
        predicate=predicate,
        valid_at=at,
        knowledge_at=cutoff,
        status=status,
        scanned_nodes=scanned,
        matched_records=len(matched),
        current_candidate_count=len(candidates),
        conflict_count=len(conflicts),
        current_values=values,
        current_candidates=tuple(ordered),
        timeline=tuple(timeline),
        conflicts=conflicts,
        exclusions=dict(sorted(histogram.items())),
        truncated=truncated,
        historical_coverage=HistoricalCoverage(knowledge_at=cutoff) if cutoff is not None else None,
    )
