"""Normalisation, the store's indexes and the fast canonical encoder."""

from __future__ import annotations

import json

import pytest
from engine_factories import at, claim, deprecate, extraction, new_store, update
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.canonical_fast import canonical_text
from engine.normalize import normalize_predicate, normalize_text
from engine.reducer import apply
from engine.store import ClaimKey, InMemoryStateStore, claim_key
from schemas.canonical import canonical_json
from schemas.common import ScopeRef
from schemas.enums import LifecycleState, Polarity, Scope
from schemas.nodes import MemoryNode


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("  Chicago ", "chicago"), ("CHICAGO", "chicago"), ("Stra\u00dfe", "strasse"), ("ﬁle", "file"),
     ("New\t  York\n", "new york"), ("", ""), (None, "")],
)
def test_normalize_text(raw: str | None, expected: str) -> None:
    assert normalize_text(raw) == expected


@pytest.mark.parametrize("raw", ["lives-in", "lives in", "lives_in", " Lives  In ", "LIVES-IN"])
def test_predicate_spellings_are_one_relation(raw: str) -> None:
    assert normalize_predicate(raw) == "lives_in"


def test_active_index_tracks_lifecycle_and_scope() -> None:
    store = new_store()
    [a] = apply(store, extraction(claim("Alice", "lives in", "Paris"))).outcome.created_node_ids
    apply(store, extraction(claim("Alice", "lives in", "Paris"), owner_id="bob"))
    mine = ScopeRef(tenant_id="t1", owner_id="alice", scope=Scope.PERSONAL)
    key = claim_key(mine, " alice", "LIVES-IN")
    assert [n.node_id for n in store.find_active(key)] == [a]
    apply(store, deprecate(a, issued_at=at(1)))
    assert store.find_active(key) == []
    assert store.find_rejected((*key, "paris", "positive")) == a
    assert store.find_active(claim_key(mine.model_copy(update={"scope": Scope.PROJECT}), "alice", "lives in")) == []


def test_active_index_finds_one_value_among_many_of_a_subject_and_predicate() -> None:
    store = new_store()
    ids = {}
    for obj in ("Tea", "Coffee", " TEA ", "Water"):
        [ids[obj]] = apply(store, extraction(claim("Alice", "likes", obj))).outcome.created_node_ids
    key = claim_key(ScopeRef(tenant_id="t1", owner_id="alice", scope=Scope.PERSONAL), "alice", "likes")
    assert [n.node_id for n in store.find_active_values(key, ["tea"])] == [ids["Tea"], ids[" TEA "]]
    assert [n.node_id for n in store.find_active_values(key, ["water", "coffee"])] == [ids["Water"], ids["Coffee"]]
    assert store.find_active_values(key, ["milk"]) == []
    assert {n.node_id for n in store.find_active(key)} == set(ids.values())
    apply(store, deprecate(ids["Tea"], issued_at=at(1)))
    assert [n.node_id for n in store.find_active_values(key, ["tea"])] == [ids[" TEA "]]
    apply(store, deprecate(ids[" TEA "], issued_at=at(1)))
    assert store.find_active_values(key, ["tea"]) == []
    assert store.snapshot()["active_index"] == {"|".join(key): sorted([ids["Coffee"], ids["Water"]])}


def test_owner_reads_return_one_owners_nodes_and_edges_in_stored_order() -> None:
    store = new_store()
    mine = [apply(store, extraction(claim("Alice", "likes", obj), owner_id="alice")).outcome.created_node_ids[0]
            for obj in ("tea", "jazz")]
    [theirs] = apply(store, extraction(claim("Bob", "likes", "tea"), owner_id="bob")).outcome.created_node_ids
    contra = apply(store, extraction(claim("Alice", "likes", "tea", polarity=Polarity.NEGATIVE), owner_id="alice"))
    mine.append(contra.outcome.created_node_ids[0])
    assert [n.node_id for n in store.owner_nodes("t1", "alice")] == mine
    assert [n.node_id for n in store.owner_nodes("t1", "bob")] == [theirs]
    assert store.owner_nodes("t1", "carol") == [] and store.owner_nodes("t2", "alice") == []
    [edge] = store.owner_edges("t1", "alice")
    assert {edge.source_id, edge.target_id} == {mine[0], mine[2]}
    assert store.owner_edges("t1", "bob") == []
    # what a scan of the whole store gives, in the same order
    assert store.owner_nodes("t1", "alice") == [n for n in store.iter_nodes() if n.owner_id == "alice"]


class _NoScanStore(InMemoryStateStore):
    """A store whose whole-key lookup fails: creation must ask only for the values a claim names."""

    def find_active(self, key: ClaimKey) -> list[MemoryNode]:
        raise AssertionError("creation scanned every value of a subject/predicate")


def test_creation_updates_and_contradictions_look_up_only_the_values_they_name() -> None:
    store = _NoScanStore()
    ids = [apply(store, extraction(claim("Bob", "likes", f"thing {i}"), occurred=at(0, i))).outcome.created_node_ids[0]
           for i in range(40)]
    moved = apply(store, extraction(update("Bob", "likes", "thing 40", replaces="Thing  7"), occurred=at(1)))
    dropped = apply(store, extraction(update("Bob", "likes", "thing 12", polarity=Polarity.NEGATIVE), occurred=at(2)))
    contra = apply(store, extraction(claim("Bob", "likes", "THING 20", polarity=Polarity.NEGATIVE), occurred=at(3)))
    lifecycles = {i: store.get_node(n).lifecycle for i, n in enumerate(ids)}  # type: ignore[union-attr]
    assert {i for i, lc in lifecycles.items() if lc is LifecycleState.SUPERSEDED} == {7, 12}
    assert {i for i, lc in lifecycles.items() if lc is LifecycleState.CONTESTED} == {20}
    assert store.get_node(ids[7]).superseded_by == moved.outcome.created_node_ids[0]  # type: ignore[union-attr]
    assert store.get_node(ids[12]).superseded_by == dropped.outcome.created_node_ids[0]  # type: ignore[union-attr]
    assert store.get_node(contra.outcome.created_node_ids[0]).contradicts == (ids[20],)  # type: ignore[union-attr]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**62), 2**62) | st.text(max_size=20)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(value=json_values)
def test_fast_canonical_text_is_byte_identical(value: object) -> None:
    assert canonical_text(value) == canonical_json(value)


@pytest.mark.parametrize("tiny", [1e-5, -1e-7, 9.99e-5, 5e-324, 1e-300])
def test_tiny_floats_fall_back_to_reference_encoding(tiny: float) -> None:
    value = {"confidence": tiny, "id": "c489190f-2d3e-5bd4-a324-848aa636ec4a"}
    assert canonical_text(value) == canonical_json(value)
    assert json.loads(canonical_text(value))["confidence"] == tiny
