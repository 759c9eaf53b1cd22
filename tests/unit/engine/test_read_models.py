"""Replay, provenance, assertion state, decay and auto-promotion."""

from __future__ import annotations

import math
from datetime import datetime

import pytest
from engine_factories import (
    at,
    claim,
    contradict,
    evaluate,
    event_ref,
    extraction,
    new_store,
    reinforce,
    resolve,
    transition,
    update,
)

from engine.assertion_state import assertion_state
from engine.config import EngineConfig
from engine.decay import effective
from engine.promotion import apply_due_promotions, due_promotions
from engine.provenance import decode_cursor, get_provenance
from engine.reducer import apply
from engine.replay import replay, verify_replay
from engine.store import InMemoryStateStore
from schemas.enums import EpistemicType, LifecycleState, NodeType, OpType, Polarity, TemporalIntent
from schemas.errors import ChecksumMismatch, ValidationFailed
from schemas.events import ConversationEvent
from schemas.operations import Operation

E = EpistemicType
L = LifecycleState


def _log(store: InMemoryStateStore, *items: object) -> list[Operation]:
    ops: list[Operation] = []
    for item in items:
        ops.extend(apply(store, item).operations)  # type: ignore[arg-type]
    return ops


def test_replay_reproduces_state_and_detects_divergence() -> None:
    store = new_store()
    ops = _log(store, extraction(claim("A", "p", "x"), event_id="e1"))
    a = ops[1].target_id
    ops += _log(
        store,
        extraction(claim("A", "p", "x", polarity=Polarity.NEGATIVE), event_id="e2", occurred=at(1)),
        reinforce(a, issued_at=at(2)),
        extraction(update("A", "q", "z"), event_id="e3", occurred=at(3)),
    )
    assert verify_replay(store, ops) == []
    rebuilt = replay(ops)
    assert rebuilt.snapshot() == store.snapshot()
    diffs = verify_replay(store, ops[:-1])
    assert diffs and any("nodes" in d for d in diffs)


def test_replay_rejects_tampered_log() -> None:
    store = new_store()
    ops = _log(store, extraction(claim()))
    bad = ops[1].model_copy(update={"payload": {"confidence": 1.0}})
    with pytest.raises(ChecksumMismatch):
        replay([ops[0], bad])


def _event(event_id: str, owner: str = "alice", day: float = 0) -> ConversationEvent:
    return ConversationEvent(
        tenant_id="t1", owner_id=owner, scope="personal", event_id=event_id, role="user", content="Alice uses Python",
        occurred_at=at(day),
    )


def test_provenance_answers_the_five_questions_with_paging() -> None:
    store = new_store()
    ops = _log(store, extraction(claim("A", "p", "x"), event_id="e1"))
    a = ops[1].target_id
    ops += _log(store, extraction(claim("A", "p", "y"), event_id="e2", occurred=at(1)))
    b = ops[-1].target_id
    ops += _log(
        store,
        contradict(a, b, issued_at=at(2)),
        resolve(a, b, issued_at=at(3)),
        transition(a, E.OBSERVED, issued_at=at(4)),
    )
    events = [_event("e1"), _event("e2", day=1)]
    prov = get_provenance(a, "alice", events, ops, operation_limit=2)
    assert prov is not None
    assert prov.evidence_events[0]["event_id"] == "e1" and prov.missing_evidence_refs == []
    assert prov.asserted_by.actor_id == "user" and prov.epistemic_type is E.OBSERVED
    assert prov.challenged and len(prov.contradiction_edges) == 1
    assert [h.payload["to_type"] for h in prov.epistemic_history] == ["ASSERTED", "OBSERVED"]
    seen = [o.id for o in prov.operations]
    cursor = prov.next_operation_cursor
    while cursor:
        decode_cursor(cursor)
        page = get_provenance(a, "alice", events, ops, operation_cursor=cursor, operation_limit=2)
        assert page is not None
        seen += [o.id for o in page.operations]
        cursor = page.next_operation_cursor
    kinds = {o.op_id: o.op_type for o in ops}
    assert len(seen) == len(set(seen))
    assert [kinds[i] for i in seen].count(OpType.EPISTEMIC_TRANSITION) == 2
    assert OpType.ASSERT in {kinds[i] for i in seen}


def test_provenance_hides_other_owners() -> None:
    store = new_store()
    ops = _log(store, extraction(claim(), event_id="e1"))
    a = ops[1].target_id
    assert get_provenance(a, "mallory", [], ops) is None
    prov = get_provenance(a, "alice", [_event("e1", owner="mallory")], ops)
    assert prov is not None and prov.evidence_events == [] and prov.missing_evidence_refs == ["e1"]
    with pytest.raises(ValidationFailed):
        get_provenance(a, "alice", [], ops, operation_cursor="@@not-base64@@")
    with pytest.raises(ValidationFailed):
        get_provenance(a, "alice", [], ops, operation_limit=0)


def _state(store: InMemoryStateStore, valid_at: datetime, predicate: str = "lives-in", **kw: object) -> str:
    res = assertion_state(
        store.iter_nodes(), store.iter_edges(), subject="alice", predicate=predicate, valid_at=valid_at, **kw  # type: ignore[arg-type]
    )
    return res.status


def test_assertion_state_statuses() -> None:
    """"multiple" needs values that coexist: a multi-valued attribute (lives_in is single-valued in the
    attribute registry, so its second value contests or retires the first; see the next test)."""
    store = new_store()
    assert _state(store, at(1), "visited") == "unknown"
    _log(store, extraction(claim("Alice", "visited", "Paris")))
    assert _state(store, at(1), "visited") == "single"
    assert _state(store, at(-1), "visited") == "unknown"  # before valid_from
    _log(store, extraction(claim("ALICE", "visited", "paris"), occurred=at(1)))
    assert _state(store, at(2), "visited") == "consistent"
    _log(store, extraction(claim("Alice", "visited", "Rome"), occurred=at(2)))
    assert _state(store, at(3), "visited") == "multiple"  # never inferred from recency
    _log(store, extraction(claim("Alice", "visited", "Rome", polarity=Polarity.NEGATIVE), occurred=at(3)))
    assert _state(store, at(4), "visited") == "contested"


def test_assertion_state_of_a_single_valued_attribute_follows_the_explicit_links() -> None:
    """A second place stated plainly contests the first (both shown as conflicting); stated as an update
    it supersedes it. Either way the state comes from the links written at creation, never from recency."""
    store = new_store()
    _log(store, extraction(claim("Alice", "lives in", "Paris", temporal_intent=TemporalIntent.ASSERTION)))
    _log(store, extraction(claim("Alice", "lives in", "Rome", temporal_intent=TemporalIntent.ASSERTION),
                           occurred=at(1)))
    assert _state(store, at(2)) == "contested"
    moved = new_store()
    _log(moved, extraction(claim("Alice", "lives in", "Paris", temporal_intent=TemporalIntent.ASSERTION)))
    _log(moved, extraction(update("Alice", "lives in", "Rome"), occurred=at(1)))
    assert _state(moved, at(2)) == "single"


def test_assertion_state_exclusions_timeline_and_labels() -> None:
    store = new_store()
    ops = _log(store, extraction(claim("Alice", "lives in", "Paris")))
    rome = update("Alice", "lives in", "Rome", replaces="Paris")
    ops += _log(store, extraction(rome, occurred=at(5), recorded=at(6)))
    _log(
        store,
        extraction(claim("Alice", "lives in", "Oslo", epistemic=E.HYPOTHETICAL), occurred=at(1)),
        extraction(claim("Alice", "lives in", "Bern", epistemic=E.CONDITIONAL, condition="if hired"), occurred=at(1)),
        extraction(claim("Alice", "lives in", "Kyiv", epistemic=E.UNVERIFIED, source_type="TOOL_OUTPUT"),
                   occurred=at(1)),
    )
    res = assertion_state(store.iter_nodes(), store.iter_edges(), subject="Alice", predicate="lives in", valid_at=at(7))
    assert res.status == "single" and res.current_candidates[0].object == "Rome"
    assert res.exclusions == {
        "condition_filtered:unknown": 1,
        "epistemic_filtered:hypothetical": 1,
        "lifecycle_not_active:superseded": 1,
        "outside_validity_window": 1,
        "superseded_pointer": 1,
        "unverified_below_threshold:0.3<=0.3": 1,
    }
    assert res.timeline[0].object == "Paris"
    assert res.state_semantics == "eligible_claims_not_verified_truth" and res.stored_set_exhaustive
    assert res.semantic_equivalence == "normalized_exact_only" and res.real_world_coverage == "unknown"
    past = assertion_state(store.iter_nodes(), store.iter_edges(), subject="Alice", predicate="lives in",
                           valid_at=at(2), knowledge_at=at(5))
    assert past.exclusions.get("after_knowledge_cutoff") == 1
    assert past.historical_coverage is not None and past.historical_coverage.exact_snapshot is False
    cond = next(n for n in store.iter_nodes() if n.object == "Bern")
    apply(store, evaluate(cond.node_id, "TRUE", issued_at=at(8)))
    res = assertion_state(store.iter_nodes(), store.iter_edges(), subject="Alice", predicate="lives in", valid_at=at(9))
    assert res.status == "multiple" and {v.object for v in res.current_values} == {"Rome", "Bern"}


def test_assertion_state_validates_inputs() -> None:
    with pytest.raises(ValidationFailed):
        assertion_state([], [], subject=" ", predicate="p", valid_at=at(0))
    with pytest.raises(ValidationFailed):
        assertion_state([], [], subject="s", predicate="p", valid_at=datetime(2026, 1, 1))
    with pytest.raises(ValidationFailed):
        assertion_state([], [], subject="s", predicate="p", valid_at=at(0), limit=0)


def test_virtual_decay() -> None:
    store = new_store()
    ops = _log(
        store,
        extraction(claim("A", "p", "x", epistemic=E.OBSERVED), claim("A", "q", "y", epistemic=E.HYPOTHETICAL)),
    )
    observed = store.get_node(ops[1].target_id)
    hypo = store.get_node(ops[2].target_id)
    assert observed is not None and hypo is not None
    e = effective(hypo, at(10))
    assert e.salience == pytest.approx(0.5 * math.exp(-0.2 * 10))
    assert e.confidence == pytest.approx(0.35 * math.exp(-0.1 * 10))
    assert effective(observed, at(100)).confidence == pytest.approx(0.90)  # OBSERVED grace period
    assert effective(observed, at(200)).confidence == pytest.approx(0.90 * math.exp(-0.0025 * 20))
    assert effective(observed, at(100)).salience == pytest.approx(0.5 * math.exp(-0.005 * 100))
    apply(store, transition(hypo.node_id, E.DEPRECATED, issued_at=at(1)))
    dep = store.get_node(hypo.node_id)
    assert dep is not None and effective(dep, at(50)).confidence == dep.confidence
    # Events never decay, whatever their profile.
    event_node = observed.model_copy(update={"node_type": NodeType.EVENT, "epistemic_type": E.ASSERTED})
    assert effective(event_node, at(400)).confidence == event_node.confidence


def test_auto_promotion_after_seven_days_with_evidence() -> None:
    store = new_store()
    ops = _log(store, extraction(claim(), event=event_ref("e1", recorded=at(0))))
    node_id = ops[1].target_id
    assert due_promotions(store, at(6.9)) == []
    due = due_promotions(store, at(7))
    assert [o.target_id for o in due] == [node_id] and due == due_promotions(store, at(7))
    assert due[0].op_type is OpType.LIFECYCLE_CHANGED and due[0].payload["reason"] == "auto_promotion"
    apply_due_promotions(store, at(7))
    node = store.get_node(node_id)
    assert node is not None and node.lifecycle is L.STABLE and node.version == 2
    assert due_promotions(store, at(30)) == []
    assert verify_replay(store, ops + due) == []
    stricter = EngineConfig(auto_promotion_min_evidence=2)
    store2 = new_store()
    _log(store2, extraction(claim()))
    assert due_promotions(store2, at(30), stricter) == []
