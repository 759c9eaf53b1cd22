"""World-context view for one owner and scope at a reference time.

Four disjoint answers to "what does memory say now": facts (authoritative,
active, uncontested), conflicts (unresolved contradictions — the subject and
predicate of a conflict are removed from facts, so a contested question never
has a plain answer), proposals (model-derived, hypothetical or still
conditional) and stale (validity, condition, the claim's explicit ``expires_at`` or the node type's TTL
ended; an expired claim is never a fact until revalidated). Retired claims
(superseded, archived, deprecated) belong to none of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime

from engine.config import DEFAULT_CONFIG, EngineConfig
from engine.decay import effective
from engine.filters import condition_state_of
from engine.knowledge import decision_rationale, knowledge_kind
from engine.normalize import normalize_predicate, normalize_text
from engine.trust import is_established
from engine.world_rules import proposal_reason, stale_reason
from retrieval.policy import UNVERIFIED_THRESHOLD
from retrieval.presentation import conflict_groups, is_live
from schemas.enums import EdgeType, EpistemicType, LifecycleState, Scope
from schemas.nodes import Edge, MemoryNode
from schemas.retrieval import ProvenanceLabel, WorldClaim, WorldConflict, WorldContext

_SPACE = re.compile(r"\s+")
_AUTHORITATIVE_TYPES = frozenset({EpistemicType.OBSERVED, EpistemicType.ASSERTED})


def subject_key(node: MemoryNode) -> tuple[str, str]:
    return normalize_text(node.subject), normalize_predicate(node.predicate)


def label_for(node: MemoryNode, reference_time: datetime) -> ProvenanceLabel:
    return ProvenanceLabel(
        epistemic_type=node.epistemic_type,
        source_type=node.source_type,
        confidence=node.confidence,
        effective_confidence=effective(node, reference_time).confidence,
        lifecycle=node.lifecycle,
        condition=node.condition,
        condition_state=condition_state_of(node) if node.epistemic_type is EpistemicType.CONDITIONAL else None,
        evidence_event_ids=node.evidence_refs,
        asserted_by=node.asserted_by,
    )


def _claim(node: MemoryNode, ref: datetime, *, reason: str | None = None, conflict_flag: bool = False) -> WorldClaim:
    return WorldClaim(
        node_id=node.node_id,
        node_type=node.node_type,
        subject=node.subject,
        predicate=node.predicate,
        object=node.object,
        polarity=node.polarity,
        content=node.content,
        label=label_for(node, ref),
        valid_from=node.valid_from,
        valid_to=node.valid_to,
        expires_at=node.expires_at,
        conflict_flag=conflict_flag,
        reason=reason,
        knowledge_kind=knowledge_kind(node),
        rationale=decision_rationale(node),
    )


def _edge_live(edge: Edge, ref: datetime) -> bool:
    return edge.active and edge.valid_from <= ref and (edge.valid_to is None or edge.valid_to > ref)


def world_context(
    nodes: Iterable[MemoryNode],
    edges: Sequence[Edge] = (),
    *,
    tenant_id: str,
    owner_id: str,
    reference_time: datetime,
    scope: Scope | None = None,
    scope_id: str | None = None,
    unverified_threshold: float = UNVERIFIED_THRESHOLD,
    config: EngineConfig = DEFAULT_CONFIG,
) -> WorldContext:
    ref = reference_time

    def mine(item: MemoryNode | Edge) -> bool:
        return (
            item.tenant_id == tenant_id
            and item.owner_id == owner_id
            and (scope is None or item.scope is scope)
            and (scope_id is None or item.scope_id == scope_id)
        )

    # Known at ref (recorded), already holding (valid_from), and not retired.
    visible = {
        n.node_id: n
        for n in nodes
        if mine(n) and n.recorded_at <= ref and n.valid_from <= ref and is_live(n)
    }
    stale: list[WorldClaim] = []
    current: dict[str, MemoryNode] = {}
    for node_id in sorted(visible):
        node = visible[node_id]
        reason = stale_reason(node, ref, config)
        if reason is not None:
            stale.append(_claim(node, ref, reason=reason))
        elif node.epistemic_type is EpistemicType.UNVERIFIED and node.confidence <= unverified_threshold:
            continue
        else:
            current[node_id] = node

    pairs: set[frozenset[str]] = set()
    for node in current.values():
        pairs.update(frozenset((node.node_id, other)) for other in node.contradicts if other in current)
    for edge in edges:
        if (
            edge.edge_type is EdgeType.CONTRADICTS
            and mine(edge)
            and _edge_live(edge, ref)
            and edge.source_id in current
            and edge.target_id in current
            and edge.source_id != edge.target_id
        ):
            pairs.add(frozenset((edge.source_id, edge.target_id)))
    groups = conflict_groups(current, pairs)
    in_conflict = {node_id for g in groups for node_id in g.order}

    conflicts: list[WorldConflict] = []
    for group in groups:
        lead = current[group.order[0]]
        sides = tuple(_claim(current[i], ref, conflict_flag=i in group.flagged) for i in group.order)
        conflicts.append(WorldConflict(subject=lead.subject, predicate=lead.predicate, sides=sides,
                                       node_ids=group.order))
    # A CONTESTED claim whose partner is gone or unknown is still not a plain fact.
    for node_id, node in current.items():
        if node_id not in in_conflict and node.lifecycle is LifecycleState.CONTESTED:
            conflicts.append(WorldConflict(subject=node.subject, predicate=node.predicate,
                                           sides=(_claim(node, ref, reason="contested"),), node_ids=(node_id,)))
            in_conflict.add(node_id)
    # A question is contested, and its plain facts withheld, only by a conflict with established context in it:
    # model suggestions contesting each other stay a conflict of proposals and never unsettle a person's fact.
    contested_keys = {
        subject_key(current[i])
        for c in conflicts
        if any(is_established(current[j]) for j in c.node_ids)
        for i in c.node_ids
    }

    facts: list[WorldClaim] = []
    proposals: list[WorldClaim] = []
    for node_id in sorted(current):
        if node_id in in_conflict:
            continue
        node = current[node_id]
        reason = proposal_reason(node)
        if reason is not None:
            proposals.append(_claim(node, ref, reason=reason))
        elif subject_key(node) not in contested_keys and (
            node.epistemic_type in _AUTHORITATIVE_TYPES or node.epistemic_type is EpistemicType.CONDITIONAL
        ):
            facts.append(_claim(node, ref))
    conflicts.sort(key=lambda c: (normalize_text(c.subject), normalize_predicate(c.predicate), c.node_ids))
    return WorldContext(
        tenant_id=tenant_id,
        owner_id=owner_id,
        scope=scope,
        scope_id=scope_id,
        reference_time=ref,
        facts=tuple(facts),
        conflicts=tuple(conflicts),
        proposals=tuple(proposals),
        stale=tuple(stale),
    )
