"""Visibility across owners (TRUST-FACTS §6): the vocabulary, the read rule, and how a claim gets it.

A claim takes its visibility from the event it was extracted from and keeps it through every later
version; a record without one is private, and an event without one reduces to the very bytes it did
before visibility existed.
"""

from __future__ import annotations

import pytest
from factories import T0, claim, event_ref, extraction, reinforce, update
from pydantic import TypeAdapter, ValidationError

from engine.canonical_fast import operation_bytes
from engine.reducer import apply
from engine.store import InMemoryStateStore
from retrieval.policy import node_matches_filter
from schemas.enums import LifecycleState
from schemas.search import SearchFilter
from schemas.visibility import PRIVATE, SHARED, Visibility, is_visible, readable_by, visibility_of

VIS = TypeAdapter(Visibility)


@pytest.mark.parametrize("value", ["private", "shared", "group:ops", "group:team-7.eu", "group:a@b+c"])
def test_the_three_kinds_are_accepted(value: str) -> None:
    assert VIS.validate_python(value) == value


@pytest.mark.parametrize("value", ["public", "Shared", "group:", "group:a b", "group:-x", "ops", "group:" + "x" * 65])
def test_anything_else_is_refused(value: str) -> None:
    with pytest.raises(ValidationError):
        VIS.validate_python(value)


def test_a_group_reader_sees_its_exact_groups_and_shared_never_private_or_another_group() -> None:
    ops = readable_by(["ops"])
    assert ops == {SHARED, "group:ops"}
    assert is_visible("shared", ops) and is_visible("group:ops", ops)
    assert not is_visible("group:opsx", ops) and not is_visible("group:hr", ops)
    assert not is_visible(None, ops) and not is_visible(PRIVATE, ops)
    assert readable_by([]) == {SHARED}
    # allowed for the owner: everything, private included
    assert all(is_visible(v, None) for v in (None, PRIVATE, SHARED, "group:hr"))
    assert visibility_of(None) == PRIVATE


def _store_with(visibility: str | None) -> tuple[InMemoryStateStore, str]:
    store = InMemoryStateStore()
    ref = event_ref("ev-1", occurred=T0).model_copy(update={"visibility": visibility} if visibility else {})
    res = apply(store, extraction(claim("user", "lives in", "Paris"), event=ref))
    [node_id] = res.outcome.created_node_ids
    return store, node_id


def test_a_claim_takes_its_events_visibility_and_keeps_it_through_later_versions() -> None:
    store, node_id = _store_with("group:ops")
    node = store.get_node(node_id)
    assert node is not None and node.visibility == "group:ops"
    apply(store, reinforce(node_id))
    again = store.get_node(node_id)
    assert again is not None and again.version > node.version and again.visibility == "group:ops"
    # a later private message supersedes it: each claim keeps its own visibility
    res = apply(store, extraction(update("user", "lives in", "Rome", replaces="Paris"), event_id="ev-2"))
    [newer] = res.outcome.created_node_ids
    old, new = store.get_node(node_id), store.get_node(newer)
    assert old is not None and old.lifecycle is LifecycleState.SUPERSEDED and old.visibility == "group:ops"
    assert new is not None and new.visibility is None


def test_an_event_without_visibility_reduces_to_the_bytes_it_did_before() -> None:
    def ops_of(visibility: str | None) -> list[bytes]:
        ref = event_ref("ev-1", occurred=T0)
        if visibility is not None:
            ref = ref.model_copy(update={"visibility": visibility})
        res = apply(InMemoryStateStore(), extraction(claim("user", "lives in", "Paris"), event=ref))
        return [operation_bytes(op) for op in res.operations]

    assert all(b"visibility" not in raw for raw in ops_of(None))
    assert any(b'"visibility":"shared"' in raw for raw in ops_of("shared"))


def test_the_retrievers_recheck_applies_the_readers_visibilities() -> None:
    store, node_id = _store_with("group:ops")
    node = store.get_node(node_id)
    assert node is not None
    base = SearchFilter(tenant_id=node.tenant_id, owner_id=node.owner_id)
    assert node_matches_filter(node, base)
    assert node_matches_filter(node, base.model_copy(update={"readable": readable_by(["ops"])}))
    assert not node_matches_filter(node, base.model_copy(update={"readable": readable_by(["hr"])}))
    assert not node_matches_filter(node, base.model_copy(update={"readable": readable_by([])}))


def test_every_filter_built_from_a_request_carries_the_readers_visibilities() -> None:
    from retrieval.policy import default_search_filter, explicit_search_filter, search_filter_for
    from retrieval.service import excerpt_search_filter
    from schemas.retrieval import RetrievalMode, RetrievalRequest

    ops = readable_by(["ops"])
    for mode in RetrievalMode:
        request = RetrievalRequest(query="q", tenant_id="t", owner_id="o", mode=mode, readable=ops)
        for flt in (explicit_search_filter(request), default_search_filter(request), search_filter_for(request),
                    excerpt_search_filter(request)):  # fmt: skip
            assert flt.readable == {"shared", "group:ops"}
        assert explicit_search_filter(request.model_copy(update={"readable": None})).readable is None


def test_a_readers_view_keeps_its_nodes_and_only_the_edges_between_them() -> None:
    from engine.visibility import readable_operations, readable_view

    store, shared_id = _store_with("shared")
    res = apply(store, extraction(claim("user", "lives in", "Rome"), event=event_ref("ev-p", occurred=T0)))
    [private_id] = res.outcome.created_node_ids
    nodes = list(store.iter_nodes())
    edges = list(store.iter_edges())
    assert any({e.source_id, e.target_id} == {shared_id, private_id} for e in edges)  # the two contradict
    kept, kept_edges = readable_view(nodes, edges, readable_by([]))
    assert [n.node_id for n in kept] == [shared_id] and kept_edges == []
    assert readable_view(nodes, edges, None) == (nodes, edges)
    ops = res.operations
    assert readable_operations(ops, None) == list(ops)
    assert all(private_id not in {n.node_id for n in (op.before, op.after) if n is not None}
               for op in readable_operations(ops, readable_by([])))  # fmt: skip
    assert len(readable_operations(ops, readable_by([]))) < len(ops)


@pytest.mark.parametrize(
    ("turn", "message", "found"),
    [(None, None, True), ("shared", None, True), ("group:hr", "private", True),
     (None, "shared", False), ("group:hr", "shared", False), ("shared", "shared", True),
     ("shared", "group:ops", True), ("group:ops", "group:ops", True), ("group:hr", "group:ops", False),
     ("private", "group:ops", False)],
)  # fmt: skip
def test_a_message_is_found_only_by_earlier_turns_its_readers_may_read(turn: str | None, message: str | None,
                                                                        found: bool) -> None:  # fmt: skip
    from schemas.visibility import may_find_by

    assert may_find_by(turn, message) is found
