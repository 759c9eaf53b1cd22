"""Normalisation, the store's indexes and the fast canonical encoder."""

from __future__ import annotations

import json

import pytest
from engine_factories import at, claim, deprecate, extraction, new_store
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.canonical_fast import canonical_text
from engine.normalize import normalize_predicate, normalize_text
from engine.reducer import apply
from engine.store import claim_key
from schemas.canonical import canonical_json
from schemas.common import ScopeRef
from schemas.enums import Scope


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


def test_reference_encoder_path_without_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.canonical_fast as fast

    monkeypatch.setattr(fast, "_orjson", None)
    fast._cache.clear()
    store = new_store()
    res = apply(store, extraction(claim("Zed", "uses", "Zig")))
    for op in res.operations:
        assert op.checksum == op.compute_checksum()
