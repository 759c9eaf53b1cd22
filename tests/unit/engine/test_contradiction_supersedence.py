"""Contradiction, coexistence, explicit resolution and supersedence."""

from __future__ import annotations

import pytest
from engine_factories import at, claim, contradict, extraction, new_store, resolve, update

from engine.reducer import apply
from engine.store import InMemoryStateStore
from schemas.enums import EdgeType, EpistemicType, LifecycleState, OpType, Polarity
from schemas.nodes import MemoryNode

E = EpistemicType
L = LifecycleState
NEG = Polarity.NEGATIVE


def _add(store: InMemoryStateStore, *claims: object, day: float = 0, **kw: object) -> list[str]:
    res = apply(store, extraction(*claims, occurred=at(day), **kw))  # type: ignore[arg-type]
    assert res.status == "applied"
    return list(res.outcome.created_node_ids)


def _n(store: InMemoryStateStore, node_id: str) -> MemoryNode:
    node = store.get_node(node_id)
    assert node is not None
    return node


def test_opposite_polarity_from_authoritative_claim_is_a_contradiction() -> None:
    store = new_store()
    [old] = _add(store, claim("Alice", "uses", "Python"))
    res = apply(store, extraction(claim("alice", "USES", " python ", polarity=NEG), occurred=at(1)))
    [new] = res.outcome.created_node_ids
    kinds = [o.op_type for o in res.operations]
    assert kinds == [OpType.EXTRACTION_VALIDATED, OpType.ASSERT, OpType.CONTRADICTION_NOTED]
    noted = res.operations[2]
    assert noted.edge is not None and noted.edge.edge_type is EdgeType.CONTRADICTS
    assert {noted.edge.source_id, noted.edge.target_id} == {old, new}
    assert noted.payload["object_id_a"] == new and noted.payload["object_id_b"] == old
    assert _n(store, old).lifecycle is L.CONTESTED and _n(store, new).lifecycle is L.CONTESTED
    assert _n(store, old).contradicts == (new,) and _n(store, new).contradicts == (old,)
    assert _n(store, old).version == 2


def test_different_objects_coexist() -> None:
    store = new_store()
    [py] = _add(store, claim("Alice", "uses", "Python"))
    res = apply(store, extraction(claim("Alice", "uses", "Rust"), occurred=at(1)))
    assert [o.op_type for o in res.operations] == [OpType.EXTRACTION_VALIDATED, OpType.ASSERT]
    assert _n(store, py).lifecycle is L.TENTATIVE
    # "now also uses Rust" is an update without a named replacement: still coexists
    _add(store, update("Alice", "uses", "Go"), day=2)
    assert _n(store, py).lifecycle is L.TENTATIVE


@pytest.mark.parametrize("et", [E.HYPOTHETICAL, E.INFERRED, E.UNVERIFIED])
def test_non_authoritative_opposite_claim_does_not_contradict(et: EpistemicType) -> None:
    store = new_store()
    [old] = _add(store, claim("Alice", "uses", "Python"))
    kw = {"source_type": "SYSTEM_INFERRED"}
    _add(store, claim("Alice", "uses", "Python", polarity=NEG, epistemic=et, **kw), day=1)
    assert _n(store, old).lifecycle is L.TENTATIVE


def test_conditional_claims_neither_contradict_nor_get_contested() -> None:
    store = new_store()
    [cond] = _add(store, claim("Alice", "uses", "Python", epistemic=E.CONDITIONAL, condition="if paid"))
    [neg] = _add(store, claim("Alice", "uses", "Python", polarity=NEG), day=1)
    assert _n(store, cond).lifecycle is L.TENTATIVE and _n(store, neg).lifecycle is L.TENTATIVE


def test_contradict_command_and_resolution() -> None:
    store = new_store()
    a, b = _add(store, claim("Alice", "lives_in", "Paris"), claim("Alice", "lives in", "Rome"))
    res = apply(store, contradict(a, b, description="cannot live in both", issued_at=at(1)))
    assert [o.op_type for o in res.operations] == [OpType.CONTRADICTION_NOTED, OpType.CONTRADICTION_NOTED]
    assert _n(store, a).lifecycle is L.CONTESTED and _n(store, b).lifecycle is L.CONTESTED
    assert apply(store, contradict(a, b, issued_at=at(1))).outcome.error_code == "already_contradicted"
    res = apply(store, resolve(a, b, reason="user said Paris", issued_at=at(2)))
    kinds = [o.op_type for o in res.operations]
    assert kinds == [OpType.EPISTEMIC_TRANSITION, OpType.EPISTEMIC_TRANSITION, OpType.CONTRADICTION_RESOLVED]
    winner, loser = _n(store, a), _n(store, b)
    assert winner.lifecycle is L.STABLE and winner.epistemic_type is E.ASSERTED
    assert loser.lifecycle is L.DEPRECATED and loser.epistemic_type is E.DEPRECATED
    resolved = res.operations[2]
    assert resolved.payload["resolved_by"] == "alice" and resolved.edge is not None and not resolved.edge.active
    assert apply(store, resolve(a, b, issued_at=at(3))).outcome.error_code == "not_contradicting"


def test_contradictions_are_never_auto_resolved() -> None:
    store = new_store()
    [a] = _add(store, claim("Alice", "uses", "Python"))
    [b] = _add(store, claim("Alice", "uses", "Python", polarity=NEG), day=1)
    _add(store, claim("Alice", "uses", "Python"), day=2)
    assert _n(store, a).epistemic_type is not E.DEPRECATED and _n(store, b).epistemic_type is not E.DEPRECATED


def test_resolution_keeps_winner_contested_while_other_conflicts_remain() -> None:
    store = new_store()
    a, b, c = _add(store, claim("A", "p", "x"), claim("A", "p", "y"), claim("A", "p", "z"))
    apply(store, contradict(a, b, issued_at=at(1)))
    apply(store, contradict(a, c, issued_at=at(1)))
    apply(store, resolve(a, b, issued_at=at(2)))
    assert _n(store, a).lifecycle is L.CONTESTED


def test_self_contradiction_and_foreign_nodes_rejected() -> None:
    store = new_store()
    [a] = _add(store, claim())
    [other] = _add(store, claim(), owner_id="bob")
    assert apply(store, contradict(a, a)).outcome.error_code == "self_contradiction"
    assert apply(store, contradict(a, other)).outcome.error_code == "node_not_found"


def test_explicit_update_supersedes_named_object() -> None:
    store = new_store()
    py, rust = _add(store, claim("Alice", "uses", "Python"), claim("Alice", "uses", "Rust"))
    res = apply(store, extraction(update("Alice", "uses", "Go", replaces="python"), occurred=at(5)))
    [go] = res.outcome.created_node_ids
    assert [o.op_type for o in res.operations][-1] is OpType.SUPERSEDENCE_APPLIED
    old = _n(store, py)
    assert old.lifecycle is L.SUPERSEDED and old.superseded_by == go and old.valid_to == at(5)
    assert _n(store, rust).lifecycle is L.TENTATIVE
    assert _n(store, go).supersedes == (py,)
    edge = res.operations[-1].edge
    assert edge is not None and edge.edge_type is EdgeType.SUPERSEDES
    assert (edge.source_id, edge.target_id, edge.confidence) == (go, py, 1.0)


def test_negative_update_retires_known_positive_claim() -> None:
    store = new_store()
    [py] = _add(store, claim("Alice", "uses", "Python"))
    [neg] = _add(store, update("Alice", "uses", "Python", polarity=NEG), day=3)
    assert _n(store, py).lifecycle is L.SUPERSEDED and _n(store, py).superseded_by == neg
    assert _n(store, neg).lifecycle is L.TENTATIVE  # not a contradiction


def test_negative_update_never_guesses_unknown_polarity() -> None:
    store = new_store()
    [unk] = _add(store, claim("Alice", "uses", "Python", polarity=Polarity.UNKNOWN))
    _add(store, update("Alice", "uses", "Python", polarity=NEG), day=3)
    assert _n(store, unk).lifecycle is L.TENTATIVE


def test_older_event_cannot_retire_newer_claim() -> None:
    store = new_store()
    [newer] = _add(store, claim("Alice", "uses", "Python"), day=10)
    [late] = _add(store, update("Alice", "uses", "Go", replaces="Python"), day=2)
    assert _n(store, newer).lifecycle is L.TENTATIVE and _n(store, newer).superseded_by is None
    assert _n(store, late).valid_to == at(10)  # the late update only held until the newer claim began


@pytest.mark.parametrize("et", [E.HYPOTHETICAL, E.CONDITIONAL, E.INFERRED, E.UNVERIFIED])
def test_non_authoritative_updates_never_retire(et: EpistemicType) -> None:
    store = new_store()
    [py] = _add(store, claim("Alice", "uses", "Python"))
    kw: dict[str, object] = {"source_type": "SYSTEM_INFERRED"}
    if et is E.CONDITIONAL:
        kw["condition"] = "if hired"
    _add(store, update("Alice", "uses", "Go", replaces="Python", epistemic=et, **kw), day=1)
    assert _n(store, py).lifecycle is L.TENTATIVE


def test_contested_claim_is_not_superseded() -> None:
    store = new_store()
    a, b = _add(store, claim("A", "p", "x"), claim("A", "p", "y"))
    apply(store, contradict(a, b, issued_at=at(1)))
    _add(store, update("A", "p", "z", replaces="x"), day=2)
    assert _n(store, a).lifecycle is L.CONTESTED


def test_update_scope_is_owner_and_scope() -> None:
    store = new_store()
    [bob_py] = _add(store, claim("Alice", "uses", "Python"), owner_id="bob")
    _add(store, update("Alice", "uses", "Go", replaces="Python"), day=1)
    assert _n(store, bob_py).lifecycle is L.TENTATIVE
