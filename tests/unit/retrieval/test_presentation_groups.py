"""Conflict groups (retrieval.presentation) with more than two members, written out by hand.

The order inside a group is by pairwise wins, then confidence, then the newer memory, then the
later record; partners are listed in presentation order; groups come sorted by their first member.
"""

from __future__ import annotations

from datetime import timedelta

from fake_backend import T0, make_node

from retrieval.fusion import Candidate, fuse
from retrieval.presentation import CONFIDENCE_WINDOW, conflict_groups, leads, present
from schemas.enums import LifecycleState
from schemas.nodes import MemoryNode

C = LifecycleState.CONTESTED


def _node(node_id: str, confidence: float, days: int = 0, contradicts: tuple[str, ...] = (),
          **kw: object) -> MemoryNode:
    return make_node(node_id, f"alice lives in {node_id}", confidence=confidence, days=days,
                     contradicts=contradicts, lifecycle=C, **kw)  # fmt: skip


def _pairs(*ids: tuple[str, str]) -> list[frozenset[str]]:
    return [frozenset(p) for p in ids]


def test_most_pairwise_wins_lead_even_against_higher_confidence() -> None:
    # a beats b (within 0.05, newer) and c; b beats c: wins a 2, b 1, c 0, though b is the most confident.
    nodes = {"a": _node("a", 0.80, days=5), "b": _node("b", 0.82, days=0), "c": _node("c", 0.70, days=9)}
    (group,) = conflict_groups(nodes, _pairs(("a", "b"), ("a", "c"), ("b", "c")))
    assert group.order == ("a", "b", "c")
    assert group.flagged == {"b", "c"}


def test_equal_wins_and_confidence_put_the_newer_memory_first() -> None:
    # x beats both; y and z tie on wins (0) and confidence, z is newer.
    nodes = {"x": _node("x", 0.9), "y": _node("y", 0.5, days=1), "z": _node("z", 0.5, days=3)}
    (group,) = conflict_groups(nodes, _pairs(("x", "y"), ("x", "z")))
    assert group.order == ("x", "z", "y")
    assert group.partners == {"x": ("z", "y"), "z": ("x",), "y": ("x",)}


def test_equal_memory_time_puts_the_later_record_first() -> None:
    nodes = {
        "x": _node("x", 0.9),
        "y": _node("y", 0.5, recorded_at=T0 + timedelta(hours=5)),
        "z": _node("z", 0.5, recorded_at=T0 + timedelta(hours=1)),
    }
    (group,) = conflict_groups(nodes, _pairs(("x", "y"), ("x", "z")))
    assert group.order == ("x", "y", "z")


def test_separate_conflicts_are_separate_groups_sorted_by_first_member() -> None:
    # The pair (a, z) sorts first, but its group is led by z, so it comes after the group led by b.
    nodes = {
        "a": _node("a", 0.5), "z": _node("z", 0.9),  # group (z, a)
        "b": _node("b", 0.9), "c": _node("c", 0.5),  # group (b, c)
    }  # fmt: skip
    groups = conflict_groups(nodes, _pairs(("a", "z"), ("b", "c")))
    assert [g.order for g in groups] == [("b", "c"), ("z", "a")]
    assert [g.flagged for g in groups] == [{"c"}, {"a"}]


def test_a_pair_naming_an_absent_node_is_ignored() -> None:
    nodes = {"a": _node("a", 0.9)}
    assert conflict_groups(nodes, _pairs(("a", "gone"))) == []


def test_no_node_leads_itself() -> None:
    a = _node("a", 0.9)
    assert leads(a, a) is False


def test_entries_after_a_group_member_seen_twice_are_all_kept() -> None:
    a = _node("a", 0.9, contradicts=("b",))
    b = _node("b", 0.5, contradicts=("a",))
    plain = make_node("p", "alice likes jazz")
    fused = fuse([Candidate(n, lexical_score=float(3 - i)) for i, n in enumerate((a, b, plain))])
    out = present(fused)
    assert [(p.fused.node.node_id, p.conflict_flag) for p in out] == [("a", False), ("b", True), ("p", False)]


def test_a_gap_of_exactly_the_window_counts_as_within_it() -> None:
    # window + ε and twice it are exact in binary, so the gap is exactly the window the rule allows:
    # the newer claim leads although it is less confident.
    edge = CONFIDENCE_WINDOW + 1e-9
    assert 2 * edge - edge == edge
    older_surer = _node("a", 2 * edge, days=0)
    newer = _node("b", edge, days=1)
    assert leads(newer, older_surer) is True
    assert leads(older_surer, newer) is False
