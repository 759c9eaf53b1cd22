"""Re-assertion guard and explicit condition evaluation."""

from __future__ import annotations

import pytest
from engine_factories import (
    TOOL,
    at,
    claim,
    contradict,
    deprecate,
    evaluate,
    extraction,
    new_store,
    promote,
    resolve,
)

from engine.promotion import due_promotions
from engine.reducer import apply
from engine.store import InMemoryStateStore
from schemas.enums import ConditionState, EdgeType, EpistemicType, LifecycleState, OpType, Polarity, Role
from schemas.nodes import MemoryNode

E = EpistemicType
L = LifecycleState


def _n(store: InMemoryStateStore, node_id: str) -> MemoryNode:
    node = store.get_node(node_id)
    assert node is not None
    return node


def test_reasserting_a_deprecated_value_is_flagged_linked_and_penalised() -> None:
    store = new_store()
    [old] = apply(store, extraction(claim("Alice", "uses", "Python"))).outcome.created_node_ids
    apply(store, deprecate(old, reason="user corrected", issued_at=at(1)))
    res = apply(store, extraction(claim("alice", "uses", "PYTHON"), role=Role.ASSISTANT, occurred=at(2)))
    [new] = res.outcome.created_node_ids
    kinds = [o.op_type for o in res.operations]
    assert kinds == [OpType.EXTRACTION_VALIDATED, OpType.ASSERT, OpType.REASSERTION_FLAGGED, OpType.PENALTY]
    node = _n(store, new)
    assert node.previously_rejected == old and node.lifecycle is L.TENTATIVE
    assert node.confidence == pytest.approx(0.60 * 0.5)  # assistant -> SYSTEM_INFERRED 0.60, halved
    link = res.operations[2].edge
    assert link is not None and link.edge_type is EdgeType.RELATES_TO and link.target_id == old
    assert res.operations[3].payload["previously_rejected"] == old
    # the user's correction stays in force
    assert _n(store, old).epistemic_type is E.DEPRECATED


def test_reasserting_a_resolved_loser_cannot_contest_or_retire_the_winner() -> None:
    store = new_store()
    a, b = apply(store, extraction(claim("A", "p", "x"), claim("A", "p", "x", polarity=Polarity.NEGATIVE)))\
        .outcome.created_node_ids
    apply(store, resolve(a, b, issued_at=at(1)))
    res = apply(store, extraction(claim("A", "p", "x", polarity=Polarity.NEGATIVE), occurred=at(2)))
    assert OpType.CONTRADICTION_NOTED not in [o.op_type for o in res.operations]
    assert _n(store, a).lifecycle is L.STABLE


def test_reassertion_is_per_owner_and_needs_explicit_promotion() -> None:
    store = new_store()
    [old] = apply(store, extraction(claim())).outcome.created_node_ids
    apply(store, deprecate(old, issued_at=at(1)))
    [bob] = apply(store, extraction(claim(), owner_id="bob", occurred=at(2))).outcome.created_node_ids
    assert _n(store, bob).previously_rejected is None
    [again] = apply(store, extraction(claim(), occurred=at(2))).outcome.created_node_ids
    assert all(op.target_id != again for op in due_promotions(store, at(30)))
    assert apply(store, promote(again, issued_at=at(3))).status == "applied"


def test_superseded_values_are_not_treated_as_rejected() -> None:
    from engine_factories import update

    store = new_store()
    apply(store, extraction(claim("A", "uses", "x")))
    apply(store, extraction(update("A", "uses", "y", replaces="x"), occurred=at(1)))
    [again] = apply(store, extraction(claim("A", "uses", "x"), occurred=at(2))).outcome.created_node_ids
    assert _n(store, again).previously_rejected is None


def _conditional(store: InMemoryStateStore) -> str:
    [node_id] = apply(
        store, extraction(claim(epistemic=E.CONDITIONAL, condition="if the budget is approved"), event_id="ev-c")
    ).outcome.created_node_ids
    return node_id


@pytest.mark.parametrize("state", ["TRUE", "FALSE", "EXPIRED"])
def test_condition_evaluation_records_everything_and_keeps_type(state: str) -> None:
    store = new_store()
    node_id = _conditional(store)
    apply(store, extraction(claim("Budget", "is", "approved"), event_id="ev-proof", occurred=at(1)))
    res = apply(
        store,
        evaluate(node_id, state, method="tool", reason="ledger checked", evidence_ids=("ev-proof",), actor=TOOL,
                 issued_at=at(2)),
    )
    assert res.status == "applied"
    op = res.operations[0]
    assert op.op_type is OpType.EPISTEMIC_TRANSITION and op.policy_version == "explicit_condition_evaluation_v1"
    assert op.payload["from_state"] == "UNKNOWN" and op.payload["to_state"] == state
    assert op.before is not None and op.after is not None
    node = _n(store, node_id)
    assert node.epistemic_type is E.CONDITIONAL and node.condition_state is ConditionState(state)
    assert node.evidence_refs == ("ev-c", "ev-proof")
    assert node.metadata["condition_evaluation_method"] == "tool"
    assert node.metadata["condition_evaluated_by"] == "ledger-connector"
    assert node.metadata["condition_evaluation_reason"] == "ledger checked"
    assert node.metadata["condition_evaluation_evidence_id"] == "ev-proof"
    assert node.condition_evaluation is not None and node.condition_evaluation.evaluated_at == at(2)


def test_condition_can_be_re_evaluated() -> None:
    store = new_store()
    node_id = _conditional(store)
    apply(store, evaluate(node_id, "TRUE", issued_at=at(1)))
    res = apply(store, evaluate(node_id, "EXPIRED", issued_at=at(2)))
    assert res.operations[0].payload["from_state"] == "TRUE"
    assert _n(store, node_id).condition_state is ConditionState.EXPIRED and _n(store, node_id).version == 3


def test_condition_evaluation_only_for_conditional_claims() -> None:
    store = new_store()
    [plain] = apply(store, extraction(claim())).outcome.created_node_ids
    assert apply(store, evaluate(plain, "TRUE")).outcome.error_code == "not_conditional"


def test_contested_then_deprecated_via_table() -> None:
    store = new_store()
    a, b = apply(store, extraction(claim("A", "p", "x"), claim("A", "p", "y"))).outcome.created_node_ids
    apply(store, contradict(a, b, issued_at=at(1)))
    res = apply(store, deprecate(b, issued_at=at(2)))
    assert res.operations[0].op_type is OpType.LIFECYCLE_CHANGED
    assert res.operations[0].payload["from"] == "CONTESTED" and res.operations[0].payload["deprecated_by"] == "alice"
