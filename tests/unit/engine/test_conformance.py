"""Conformance with PRME-FACTS rules that other modules left without a test.

Expected values are restated from the spec (§1.5, §1.7, §3, §5.3, §5.5, §9, §10),
never taken from a run of the code under test.
"""

from __future__ import annotations

import base64
import json
import math
from datetime import datetime
from typing import Any

import pytest
from engine_factories import (
    TOOL,
    archive,
    at,
    claim,
    contradict,
    deprecate,
    evaluate,
    extraction,
    new_store,
    penalize,
    promote,
    reinforce,
    resolve,
    transition,
    update,
)
from pydantic import ValidationError

from engine.assertion_state import assertion_state
from engine.config import EngineConfig
from engine.provenance import get_provenance
from engine.reducer import Reducer, apply
from engine.replay import replay
from engine.store import InMemoryStateStore
from schemas.common import ActorRef
from schemas.enums import (
    ActorType,
    ConditionState,
    EdgeType,
    EpistemicType,
    LifecycleState,
    NodeType,
    OpType,
    Polarity,
    Role,
    SignalType,
)
from schemas.events import ConversationEvent
from schemas.nodes import MemoryNode
from schemas.operations import Operation

E = EpistemicType
L = LifecycleState
RID = "5d1c1f0e-8a5b-4f0e-9c51-2f0f5b7e4a21"


def _node(store: InMemoryStateStore, node_id: str) -> MemoryNode:
    node = store.get_node(node_id)
    assert node is not None
    return node


def _log(store: InMemoryStateStore, *items: Any) -> list[Operation]:
    ops: list[Operation] = []
    for item in items:
        ops.extend(apply(store, item).operations)
    return ops


# ------------------------------------------------------------------ §1.7 edge types
def test_edge_types_cover_the_nine_code_edges() -> None:
    code_edges = {
        "relates_to", "supersedes", "derived_from", "mentions", "part_of", "caused_by", "supports", "contradicts",
        "has_fact",
    }
    assert {e.value.lower() for e in EdgeType} == code_edges
    assert EdgeType("part_of") is EdgeType.PART_OF  # wire values parse case-insensitively


# ---------------------------------------------------- §1.5 lifecycle, through commands
def _in_state(state: LifecycleState) -> tuple[InMemoryStateStore, str]:
    store = new_store()
    a, b = apply(store, extraction(claim("A", "p", "x"), claim("A", "p", "y"))).outcome.created_node_ids
    if state is L.STABLE:
        apply(store, promote(a, issued_at=at(1)))
    elif state is L.CONTESTED:
        apply(store, contradict(a, b, issued_at=at(1)))
    elif state is L.SUPERSEDED:
        apply(store, extraction(update("A", "p", "z", replaces="x"), occurred=at(1)))
    elif state is L.DEPRECATED:
        apply(store, deprecate(a, issued_at=at(1)))
    elif state is L.ARCHIVED:
        apply(store, archive(a, issued_at=at(1)))
    assert _node(store, a).lifecycle is state
    return store, a


# Restated from §1.5 (code table) plus the documented explicit-deprecation rule
# (any active state may be deprecated explicitly: RFC-0001 §8, RFC-0003 §6).
PROMOTE_FROM = {L.TENTATIVE, L.CONTESTED}
ARCHIVE_FROM = {L.TENTATIVE, L.STABLE, L.CONTESTED, L.SUPERSEDED, L.DEPRECATED}
DEPRECATE_FROM = {L.TENTATIVE, L.STABLE, L.CONTESTED}


@pytest.mark.parametrize("state", list(L))
@pytest.mark.parametrize(
    ("command", "target", "allowed_from"),
    [(promote, L.STABLE, PROMOTE_FROM), (archive, L.ARCHIVED, ARCHIVE_FROM), (deprecate, L.DEPRECATED, DEPRECATE_FROM)],
)
def test_manual_lifecycle_actions_follow_the_table(
    state: LifecycleState, command: Any, target: LifecycleState, allowed_from: set[LifecycleState]
) -> None:
    store, node_id = _in_state(state)
    res = apply(store, command(node_id, issued_at=at(2)))
    node = _node(store, node_id)
    if state in allowed_from:
        assert res.status == "applied"
        assert [o.op_type for o in res.operations] == [OpType.LIFECYCLE_CHANGED]
        assert node.lifecycle is target
        assert res.operations[0].payload["from"] == state.value and res.operations[0].payload["to"] == target.value
    else:
        assert res.status == "rejected" and res.outcome.error_code == "invalid_lifecycle_transition"
        assert node.lifecycle is state


# ------------------------------------------------------------ §3.3 type constraints
def test_hypothetical_reinforcement_never_promotes_it() -> None:
    store = new_store()
    [node_id] = apply(store, extraction(claim(epistemic=E.HYPOTHETICAL))).outcome.created_node_ids
    kinds: set[OpType] = set()
    for i in range(40):
        actor = ActorRef(actor_id=f"a{i}", actor_type=ActorType.HUMAN_USER)
        kinds.update(o.op_type for o in apply(store, reinforce(node_id, actor=actor, session_id=f"s{i}")).operations)
    node = _node(store, node_id)
    assert kinds == {OpType.REINFORCE}
    assert node.epistemic_type is E.HYPOTHETICAL and node.confidence == pytest.approx(0.65)


@pytest.mark.parametrize("state", ["FALSE", "EXPIRED", "UNKNOWN"])
def test_conditional_is_not_reinforced_unless_condition_true(state: str) -> None:
    store = new_store()
    [node_id] = apply(store, extraction(claim(epistemic=E.CONDITIONAL, condition="if hired"))).outcome.created_node_ids
    apply(store, evaluate(node_id, "TRUE", issued_at=at(1)))
    assert apply(store, reinforce(node_id, issued_at=at(2))).status == "applied"
    apply(store, evaluate(node_id, state, issued_at=at(3)))
    before = _node(store, node_id)
    assert before.condition_state is ConditionState(state)
    res = apply(store, reinforce(node_id, issued_at=at(4)))
    assert res.outcome.error_code == "condition_not_true"
    assert _node(store, node_id) == before


# ------------------------------------------------------- §3.4 CORRECTED floor (deviation)
def test_corrected_floor_never_raises_a_confidence_already_below_it() -> None:
    """Documented deviation: a penalty only lowers; 0.04 stays 0.04, it is not lifted to 0.05."""
    cfg = EngineConfig().with_overrides({"unverified:tool_output": 0.04})
    reducer = Reducer(cfg)
    store = new_store()
    [node_id] = reducer.apply(
        store, extraction(claim(epistemic=E.UNVERIFIED, source_type="TOOL_OUTPUT"))
    ).outcome.created_node_ids
    res = reducer.apply(store, penalize(node_id, SignalType.CORRECTED, issued_at=at(1)))
    assert res.operations[0].payload["floor"] == pytest.approx(0.05)
    assert _node(store, node_id).confidence == pytest.approx(0.04)


# --------------------------------------------------- §3.6 and §5.3 REINFORCE / PENALTY
def test_penalty_payload_has_every_rfc_field_with_spec_values() -> None:
    store = new_store()
    [node_id] = apply(store, extraction(claim())).outcome.created_node_ids  # ASSERTED x USER_STATED = 0.80
    res = apply(
        store,
        penalize(node_id, SignalType.CONTRADICTED_BY_OBSERVATION, session_id="sess", signal_source="sensor",
                 reason="seen otherwise", issued_at=at(1)),
    )
    [op] = res.operations
    assert op.op_type is OpType.PENALTY and op.policy_version == "confidence_v1"
    p = op.payload
    assert p["signal_type"] == "CONTRADICTED_BY_OBSERVATION"
    assert p["delta"] == pytest.approx(0.20) and p["delta_effective"] == pytest.approx(0.20)
    assert p["correlation_discount_applied"] is False
    assert p["confidence_before"] == pytest.approx(0.80) and p["confidence_after"] == pytest.approx(0.64)
    assert p["new_confidence"] == pytest.approx(0.64)  # RFC-0002 name
    assert p["salience_before"] == pytest.approx(0.50) and p["salience_after"] == pytest.approx(0.50 * (1 - 0.06))
    assert p["session_id"] == "sess" and p["session_gamma_total"] == 0.0
    assert p["signal_source"] == "sensor" and p["policy_version"] == "confidence_v1"
    assert p["reason"] == "seen otherwise"
    assert _node(store, node_id).confidence == pytest.approx(0.64)


def test_reinforce_payload_carries_rfc0002_names() -> None:
    store = new_store()
    [node_id] = apply(store, extraction(claim(), event_id="ev-a")).outcome.created_node_ids
    apply(store, extraction(claim("Bob", "likes", "tea"), event_id="ev-b"))
    res = apply(store, reinforce(node_id, SignalType.CONFIRMED, evidence_ids=("ev-b",), issued_at=at(1)))
    p = res.operations[0].payload
    # independent evidence, first signal: γ 0.15 applied in full; c 0.80 -> 0.80 + 0.15·0.20
    assert p["delta"] == pytest.approx(0.15)
    assert p["new_confidence"] == pytest.approx(0.83) == p["confidence_after"]
    assert p["new_salience"] == pytest.approx(0.5 + 0.5 * 0.15 * 0.5) == p["salience_after"]
    unused = apply(store, reinforce(node_id, SignalType.UNUSED, issued_at=at(2))).operations[0].payload
    assert unused["delta"] == 0.0 and unused["new_confidence"] == pytest.approx(0.83)
    assert unused["new_salience"] == pytest.approx(0.5 + 0.5 * 0.15 * 0.5)


def test_reassertion_penalty_records_new_confidence() -> None:
    store = new_store()
    [old] = apply(store, extraction(claim())).outcome.created_node_ids
    apply(store, deprecate(old, issued_at=at(1)))
    res = apply(store, extraction(claim(), role=Role.ASSISTANT, occurred=at(2)))
    penalty = next(o for o in res.operations if o.op_type is OpType.PENALTY)
    # assistant -> SYSTEM_INFERRED: ASSERTED 0.60, halved by the re-assertion guard
    assert penalty.payload["new_confidence"] == pytest.approx(0.30)


#: PRME-FACTS §5.3, the RFC-0002 required payload fields of each operation the engine writes
#: (DEPRECATE, ARCHIVE and SUPERSEDE are journaled as LIFECYCLE_CHANGED / SUPERSEDENCE_APPLIED, §5.4).
RFC0002_FIELDS: dict[OpType, set[str]] = {
    OpType.ASSERT: {"object_type", "epistemic_type", "source_type", "evidence_ids", "value", "confidence", "salience"},
    OpType.SUPERSEDENCE_APPLIED: {"new_object_id", "reason"},
    OpType.EPISTEMIC_TRANSITION: {"from_type", "to_type", "reason", "evidence_ids", "triggered_by", "trigger_type"},
    OpType.CONTRADICTION_NOTED: {"object_id_a", "object_id_b", "conflict_description"},
    OpType.REINFORCE: {"signal_type", "delta", "new_confidence", "new_salience", "signal_source"},
    OpType.PENALTY: {"signal_type", "delta", "new_confidence", "reason"},
}
TRIGGER_TYPES = {"user_correction", "system_evaluation", "feedback_signal", "policy"}


def test_every_written_operation_has_its_rfc0002_payload_fields() -> None:
    store = new_store()
    first = apply(store, extraction(claim("A", "p", "x"), claim("A", "p", "y"), claim("A", "q", "r"),
                                    claim("A", "t", "u"), claim("A", "t", "v")))
    a, b, _, d, e = first.outcome.created_node_ids
    ops = list(first.operations)
    conditional = apply(store, extraction(claim("A", "c", "d", epistemic=E.CONDITIONAL, condition="if so")))
    [cond] = conditional.outcome.created_node_ids
    ops += conditional.operations
    negative = apply(store, extraction(claim("A", "p", "x", polarity=Polarity.NEGATIVE), occurred=at(1)))
    [neg] = negative.outcome.created_node_ids  # contradicts `a` on creation
    ops += negative.operations
    ops += _log(
        store,
        extraction(update("A", "q", "s", replaces="r"), occurred=at(1)),  # supersedes the third claim
        reinforce(a, issued_at=at(2)),
        penalize(a, reason="user said so", issued_at=at(2)),
        contradict(d, e, description="cannot both hold", issued_at=at(2)),
        transition(b, E.OBSERVED, reason="seen", issued_at=at(2)),
        evaluate(cond, "TRUE", issued_at=at(2)),
        resolve(a, neg, reason="user confirmed", issued_at=at(3)),
        deprecate(b, reason="wrong", issued_at=at(4)),
        archive(cond, reason="old", policy_ref="retention-90d", issued_at=at(4)),
    )
    assert all(o.op_type is not OpType.COMMAND_REJECTED for o in ops)
    assert set(RFC0002_FIELDS) <= {o.op_type for o in ops}
    for op in ops:
        required = RFC0002_FIELDS.get(op.op_type, set())
        assert required <= set(op.payload), (op.op_type, required - set(op.payload))
        if op.op_type is OpType.EPISTEMIC_TRANSITION:
            assert op.payload["trigger_type"] in TRIGGER_TYPES
    assert sum(o.op_type is OpType.EPISTEMIC_TRANSITION for o in ops) == 4  # transition, condition, resolve x2
    assert sum(o.op_type is OpType.CONTRADICTION_NOTED for o in ops) == 3  # on creation, and both sides of d/e
    lifecycle = [o for o in ops if o.op_type is OpType.LIFECYCLE_CHANGED]
    dep = next(o for o in lifecycle if o.payload["to"] == "DEPRECATED")
    assert dep.payload["reason"] == "wrong" and dep.payload["deprecated_by"] == "alice"
    arc = next(o for o in lifecycle if o.payload["to"] == "ARCHIVED")
    assert arc.payload["reason"] == "old" and arc.payload["policy_ref"] == "retention-90d"
    # ASSERTED x USER_STATED = 0.80, CONDITIONAL x USER_STATED = 0.45
    assert [o.payload["confidence"] for o in ops if o.op_type is OpType.ASSERT][:6] == [0.80] * 5 + [0.45]


# ------------------------------------------------------------------- §5.5 request ids
def test_malformed_request_id_is_rejected() -> None:
    with pytest.raises(ValidationError):
        reinforce("n1", request_id="not-a-uuid")


def test_request_id_spelling_does_not_make_a_new_key() -> None:
    store = new_store()
    [node_id] = apply(store, extraction(claim())).outcome.created_node_ids
    first = apply(store, reinforce(node_id, request_id=RID, issued_at=at(1)))
    retry = apply(store, reinforce(node_id, request_id=RID.upper(), issued_at=at(2)))
    assert retry.outcome.retried and retry.outcome.op_ids == first.outcome.op_ids
    assert _node(store, node_id).reinforcement_count == 1


def test_request_id_survives_a_restart() -> None:
    store = new_store()
    ops = _log(store, extraction(claim()))
    node_id = ops[1].target_id
    first = apply(store, reinforce(node_id, request_id=RID, issued_at=at(1)))
    ops += first.operations
    rebuilt = replay(ops)
    retry = apply(rebuilt, reinforce(node_id, request_id=RID, issued_at=at(3)))
    assert retry.outcome.retried and retry.outcome.op_ids == first.outcome.op_ids and retry.operations == []
    assert _node(rebuilt, node_id).reinforcement_count == 1
    changed = apply(rebuilt, reinforce(node_id, SignalType.REFERENCED, request_id=RID, issued_at=at(3)))
    assert changed.outcome.error_code == "request_id_conflict"


# ----------------------------------------------------------------- §9 assertion state
def _state(store: InMemoryStateStore, valid_at: datetime, predicate: str = "lives_in", **kw: Any) -> Any:
    return assertion_state(
        store.iter_nodes(), store.iter_edges(), subject="Alice", predicate=predicate, valid_at=valid_at, **kw
    )


def test_assertion_state_default_node_types() -> None:
    store = new_store()
    apply(store, extraction(claim("Alice", "lives in", "Paris", node_type=NodeType.NOTE)))
    res = _state(store, at(1))
    assert res.status == "unknown" and res.scanned_nodes == 1 and res.matched_records == 0
    assert _state(store, at(1), node_types=[NodeType.NOTE]).status == "single"
    for node_type in (NodeType.FACT, NodeType.DECISION, NodeType.PREFERENCE):
        other = new_store()
        apply(other, extraction(claim("Alice", "lives in", "Paris", node_type=node_type)))
        assert _state(other, at(1)).status == "single", node_type


def test_assertion_state_candidates_by_confidence_then_newest_ingestion() -> None:
    # coexisting values need a multi-valued attribute (a second lives_in contests or retires the first)
    store = new_store()
    apply(store, extraction(claim("Alice", "visited", "Paris"), occurred=at(0)))  # 0.80
    apply(store, extraction(claim("Alice", "visited", "Rome", epistemic=E.OBSERVED), occurred=at(1)))  # 0.90
    apply(store, extraction(claim("Alice", "visited", "Oslo"), occurred=at(2)))  # 0.80, ingested last
    res = _state(store, at(3), predicate="visited")
    assert [c.object for c in res.current_candidates] == ["Rome", "Oslo", "Paris"]
    assert [t.object for t in res.timeline] == ["Paris", "Rome", "Oslo"]  # valid_from order
    assert res.status == "multiple" and res.current_candidate_count == 3


def test_assertion_state_limit_truncates() -> None:
    store = new_store()
    for day, city in enumerate(("Paris", "Rome", "Oslo")):
        apply(store, extraction(claim("Alice", "lives in", city), occurred=at(day)))
    assert not _state(store, at(5), limit=3).truncated
    res = _state(store, at(5), limit=2)
    assert res.truncated and len(res.timeline) == 2
    assert [t.object for t in res.timeline] == ["Paris", "Rome"]


def test_assertion_state_groups_by_normalised_object_and_polarity() -> None:
    store = new_store()
    apply(store, extraction(claim("Alice", "lives in", "Chicago"), event_id="e1"))
    apply(store, extraction(claim("alice", "Lives-In", "  CHICAGO "), event_id="e2", occurred=at(1)))
    res = _state(store, at(2))
    assert res.status == "consistent"
    [value] = res.current_values
    assert value.normalized_object == "chicago" and value.candidate_count == 2 and value.evidence_count == 2
    # the same object with the opposite polarity, from a claim that cannot contest: coexisting values
    apply(store, extraction(claim("Alice", "lives in", "chicago", polarity=Polarity.NEGATIVE, epistemic=E.INFERRED,
                                  source_type="SYSTEM_INFERRED"), occurred=at(2)))
    res = _state(store, at(3))
    assert res.status == "multiple"
    assert {(v.normalized_object, v.normalized_polarity) for v in res.current_values} == {
        ("chicago", "positive"), ("chicago", "negative"),
    }


def test_resolved_contradiction_no_longer_contests() -> None:
    store = new_store()
    a, b = apply(store, extraction(claim("Alice", "lives in", "Paris"), claim("Alice", "lives in", "Rome")))\
        .outcome.created_node_ids
    apply(store, contradict(a, b, issued_at=at(1)))
    res = _state(store, at(2))
    assert res.status == "contested" and res.conflicts[0].active_between_current_candidates
    apply(store, resolve(a, b, issued_at=at(3)))
    res = _state(store, at(4))
    assert res.status == "single" and res.current_candidates[0].object == "Paris"
    assert not res.conflicts[0].active_between_current_candidates


# ---------------------------------------------------------------------- §10 provenance
def _event(event_id: str, day: float = 0) -> ConversationEvent:
    return ConversationEvent(
        tenant_id="t1", owner_id="alice", scope="personal", event_id=event_id, role="user", content="some text",
        occurred_at=at(day),
    )


def test_provenance_history_includes_deprecation_but_not_plain_lifecycle_moves() -> None:
    store = new_store()
    ops = _log(store, extraction(claim(), event_id="e1"))
    node_id = ops[1].target_id
    ops += _log(store, promote(node_id, issued_at=at(1)), deprecate(node_id, reason="wrong", issued_at=at(2)))
    prov = get_provenance(node_id, "alice", [_event("e1")], ops)
    assert prov is not None and prov.epistemic_type is E.DEPRECATED
    assert [(h.op_type, h.payload["to_type"]) for h in prov.epistemic_history] == [
        (OpType.LIFECYCLE_CHANGED, "DEPRECATED")
    ]


def test_provenance_evidence_order_operation_order_and_cursor_format() -> None:
    store = new_store()
    ops = _log(store, extraction(claim(epistemic=E.CONDITIONAL, condition="if hired"), event_id="e1"))
    node_id = ops[1].target_id
    ops += _log(
        store,
        extraction(claim("Job", "is", "offered"), event_id="e2", occurred=at(1)),
        evaluate(node_id, "TRUE", evidence_ids=("e2",), actor=TOOL, issued_at=at(2)),
        reinforce(node_id, issued_at=at(2)),
    )
    events = [_event("e2", 1), _event("e1")]  # given out of order on purpose
    prov = get_provenance(node_id, "alice", events, ops, operation_limit=1)
    assert prov is not None
    assert [e["event_id"] for e in prov.evidence_events] == ["e1", "e2"]  # order of evidence_refs
    cursor = prov.next_operation_cursor
    assert cursor is not None and "=" not in cursor and "+" not in cursor and "/" not in cursor
    pair = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    [first] = prov.operations
    assert pair[1] == first.id
    assert datetime.fromisoformat(pair[0].replace("Z", "+00:00")) == first.created_at
    full = get_provenance(node_id, "alice", events, ops, operation_limit=1000)
    assert full is not None and full.next_operation_cursor is None  # null on the last page
    keys = [(o.created_at, o.id) for o in full.operations]
    assert keys == sorted(keys) and len(keys) == 3
    assert {o.op_type for o in full.operations} == {OpType.ASSERT, OpType.EPISTEMIC_TRANSITION, OpType.REINFORCE}


# --------------------------------------------------------------- §1.9 decay profiles
#: (epistemic type, source type, expected profile, λ per day), restated from §1.9.
PROFILES = [
    (E.OBSERVED, "USER_STATED", "SLOW", 0.005),
    (E.ASSERTED, "USER_STATED", "MEDIUM", 0.020),
    (E.CONDITIONAL, "USER_STATED", "MEDIUM", 0.020),
    (E.INFERRED, "SYSTEM_INFERRED", "FAST", 0.070),
    (E.HYPOTHETICAL, "USER_STATED", "RAPID", 0.200),
    (E.UNVERIFIED, "TOOL_OUTPUT", "RAPID", 0.200),
]


@pytest.mark.parametrize(("et", "source", "profile", "lam"), PROFILES)
def test_default_decay_profile_and_rate_by_type(et: EpistemicType, source: str, profile: str, lam: float) -> None:
    from engine.decay import effective

    store = new_store()
    kw: dict[str, Any] = {"condition": "if so"} if et is E.CONDITIONAL else {}
    [node_id] = apply(store, extraction(claim(epistemic=et, source_type=source, **kw))).outcome.created_node_ids
    node = _node(store, node_id)
    assert node.decay_profile.value == profile
    assert effective(node, at(10)).salience == pytest.approx(0.5 * math.exp(-lam * 10))


def test_deprecation_makes_decay_permanent() -> None:
    store = new_store()
    [node_id] = apply(store, extraction(claim(epistemic=E.INFERRED, source_type="SYSTEM_INFERRED")))\
        .outcome.created_node_ids
    assert _node(store, node_id).decay_profile.value == "FAST"
    apply(store, transition(node_id, E.DEPRECATED, issued_at=at(1)))
    assert _node(store, node_id).decay_profile.value == "PERMANENT"


# ------------------------------------------------------------------ §1.8 scopes
def test_extractor_scope_is_advisory() -> None:
    store = new_store()
    res = apply(store, extraction(claim(suggested_scope="organisation"), scope="project"))
    node = _node(store, res.outcome.created_node_ids[0])
    assert node.scope.value == "project" and node.metadata["suggested_scope"] == "organisation"


# ------------------------------------------------------------- §5.5 identity check on read
def _forgeries(ops: list[Operation]) -> dict[str, Operation]:
    """Correctly re-sealed records (valid checksum) whose identity no longer matches."""
    reinforce_op = next(o for o in ops if o.op_type is OpType.REINFORCE)
    noted = next(o for o in ops if o.edge is not None and o.edge.edge_type is EdgeType.CONTRADICTS)
    assert reinforce_op.before is not None and reinforce_op.after is not None and noted.edge is not None
    after = reinforce_op.after

    def forged(op: Operation, **update: Any) -> Operation:
        return op.model_copy(update=update).sealed()

    return {
        "snapshot_not_target": forged(reinforce_op, target_id="some-other-node"),
        "snapshot_scope": forged(reinforce_op, after=after.model_copy(update={"owner_id": "mallory"})),
        "immutable_field_changed": forged(reinforce_op, after=after.model_copy(update={"subject": "Mallory"})),
        "version_step": forged(reinforce_op, after=after.model_copy(update={"version": after.version + 1})),
        "edge_scope": forged(noted, edge=noted.edge.model_copy(update={"scope_id": "elsewhere"})),
    }


def test_replay_refuses_well_sealed_records_with_the_wrong_identity() -> None:
    from schemas.errors import IntegrityError

    store = new_store()
    ops = _log(store, extraction(claim("A", "p", "x"), event_id="e1"))
    a = ops[1].target_id
    ops += _log(
        store,
        extraction(claim("A", "p", "x", polarity=Polarity.NEGATIVE), event_id="e2", occurred=at(1)),
        reinforce(a, issued_at=at(2)),
    )
    assert replay(ops).snapshot() == store.snapshot()  # the genuine log passes
    for check, bad in _forgeries(ops).items():
        log = [bad if o.op_id == bad.op_id else o for o in ops]
        with pytest.raises(IntegrityError) as err:
            replay(log)
        assert err.value.code == "identity_mismatch" and err.value.details["check"] == check
