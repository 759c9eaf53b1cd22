"""Contradiction presentation, PRME-FACTS §4 tie-break.

An unresolved contradiction is shown as one group: the leading claim first,
every claim that loses a pairwise comparison carrying ``conflict_flag``, and
every member naming its partners. Two sides of a contradiction are never
presented as two plain facts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from retrieval.fusion import Fused, memory_time
from schemas.enums import ACTIVE_LIFECYCLE_STATES, EpistemicType
from schemas.nodes import MemoryNode

CONFIDENCE_WINDOW = 0.05
_EPS = 1e-9


def is_live(node: MemoryNode) -> bool:
    """Only active, non-deprecated claims can still be in an unresolved conflict."""
    return node.lifecycle in ACTIVE_LIFECYCLE_STATES and node.epistemic_type is not EpistemicType.DEPRECATED


def leads(a: MemoryNode, b: MemoryNode, window: float = CONFIDENCE_WINDOW) -> bool:
    """True when ``a`` is shown before ``b``: higher confidence, or newer when within ``window``."""
    if abs(a.confidence - b.confidence) > window + _EPS:
        return a.confidence > b.confidence
    ta, tb = memory_time(a), memory_time(b)
    if ta != tb:
        return ta > tb
    if a.recorded_at != b.recorded_at:
        return a.recorded_at > b.recorded_at
    return a.node_id < b.node_id


def contradiction_pairs(nodes: Iterable[MemoryNode]) -> set[frozenset[str]]:
    """Pairs named on either side's ``contradicts`` where both sides are present and live."""
    present = {n.node_id: n for n in nodes if is_live(n)}
    pairs: set[frozenset[str]] = set()
    for node in present.values():
        for other in node.contradicts:
            if other in present and other != node.node_id:
                pairs.add(frozenset((node.node_id, other)))
    return pairs


@dataclass(frozen=True)
class ConflictGroup:
    #: Presentation order: most pairwise wins first, then the tie-break.
    order: tuple[str, ...]
    flagged: frozenset[str]
    #: node id -> its partners in this group, presentation order.
    partners: Mapping[str, tuple[str, ...]]


def conflict_groups(nodes: Mapping[str, MemoryNode], pairs: Iterable[frozenset[str]]) -> list[ConflictGroup]:
    """Connected components of the contradiction graph, each ordered and flagged."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    pair_list = sorted(tuple(sorted(p)) for p in pairs if len(p) == 2 and all(i in nodes for i in p))
    for a, b in pair_list:
        parent[find(a)] = find(b)
    members: dict[str, list[str]] = {}
    for a, b in pair_list:
        for node_id in (a, b):
            group = members.setdefault(find(node_id), [])
            if node_id not in group:
                group.append(node_id)

    groups: list[ConflictGroup] = []
    for ids in members.values():
        wins = dict.fromkeys(ids, 0)
        losers: set[str] = set()
        adjacency: dict[str, set[str]] = {i: set() for i in ids}
        for a, b in pair_list:
            if a in wins:
                adjacency[a].add(b)
                adjacency[b].add(a)
                winner, loser = (a, b) if leads(nodes[a], nodes[b]) else (b, a)
                wins[winner] += 1
                losers.add(loser)
        order = sorted(
            ids,
            key=lambda i: (
                -wins[i],
                -nodes[i].confidence,
                -memory_time(nodes[i]).timestamp(),
                -nodes[i].recorded_at.timestamp(),
                i,
            ),
        )
        position = {node_id: index for index, node_id in enumerate(order)}
        partners = {i: tuple(sorted(adjacency[i], key=position.__getitem__)) for i in ids}
        groups.append(ConflictGroup(order=tuple(order), flagged=frozenset(losers), partners=partners))
    groups.sort(key=lambda g: g.order[0])
    return groups


@dataclass(frozen=True)
class Presented:
    fused: Fused
    conflict_flag: bool = False
    contradicts_ids: tuple[str, ...] = ()
    #: Ids of the whole conflict group this entry belongs to (empty when none); packed as a unit.
    group: tuple[str, ...] = ()


def present(entries: Sequence[Fused]) -> list[Presented]:
    """Regroup ranked entries so each conflict group appears at its best member's position.

    Partners must already be among ``entries`` (the retriever fetches missing
    ones); entries keep their relative order otherwise.
    """
    nodes = {e.node.node_id: e.node for e in entries}
    groups = conflict_groups(nodes, contradiction_pairs(nodes.values()))
    group_of = {node_id: g for g in groups for node_id in g.order}
    by_id = {e.node.node_id: e for e in entries}
    emitted: set[str] = set()
    out: list[Presented] = []
    for entry in entries:
        node_id = entry.node.node_id
        if node_id in emitted:
            continue
        group = group_of.get(node_id)
        if group is None:
            out.append(Presented(fused=entry))
            emitted.add(node_id)
            continue
        for member in group.order:
            out.append(
                Presented(
                    fused=by_id[member],
                    conflict_flag=member in group.flagged,
                    contradicts_ids=group.partners[member],
                    group=group.order,
                )
            )
            emitted.add(member)
    return out
