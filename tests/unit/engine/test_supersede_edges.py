"""Supersedence and contradiction at their edges (engine.reducer), found by mutation testing.

Several active values retired at once are retired in the order they became valid (whatever order
they arrived in), a late update that cannot retire a newer claim does not contest it either, the
journal names why a claim was retired, and refused commands say so with their stable code and text.
"""

from __future__ import annotations

from engine_factories import at, claim, contradict, extraction, new_store, resolve, update

from engine.reducer import apply
from schemas.enums import LifecycleState, OpType, Polarity

NEG = Polarity.NEGATIVE


def _created(result: object) -> str:
    (node_id,) = result.outcome.created_node_ids  # type: ignore[attr-defined]
    return str(node_id)


def test_values_retired_together_are_retired_in_validity_order_not_arrival_order() -> None:
    store = new_store()
    later = _created(apply(store, extraction(claim("Alice", "uses", "Java"), occurred=at(5))))
    earlier = _created(apply(store, extraction(claim("Alice", "uses", "Java"), occurred=at(1))))  # arrives second
    res = apply(store, extraction(update("Alice", "uses", "Java", polarity=NEG), occurred=at(10)))
    retired = [o.payload["old_object_id"] for o in res.operations if o.op_type is OpType.SUPERSEDENCE_APPLIED]
    assert retired == [earlier, later]
    assert [o.payload["reason"] for o in res.operations if o.op_type is OpType.SUPERSEDENCE_APPLIED] == [
        "negative_update", "negative_update",
    ]  # fmt: skip


def test_an_explicit_update_names_its_reason() -> None:
    store = new_store()
    apply(store, extraction(claim("Alice", "uses", "Java"), occurred=at(1)))
    res = apply(store, extraction(update("Alice", "uses", "Go", replaces="Java"), occurred=at(2)))
    (op,) = [o for o in res.operations if o.op_type is OpType.SUPERSEDENCE_APPLIED]
    assert op.payload["reason"] == "explicit_update"


def test_a_late_update_that_cannot_retire_a_newer_claim_does_not_contest_it() -> None:
    store = new_store()
    newer = _created(apply(store, extraction(claim("Alice", "uses", "Java"), occurred=at(5))))
    res = apply(store, extraction(update("Alice", "uses", "Java", polarity=NEG), occurred=at(1)))
    assert [o.op_type for o in res.operations] == [OpType.EXTRACTION_VALIDATED, OpType.ASSERT]
    late = store.get_node(_created(res))
    old = store.get_node(newer)
    assert late is not None and old is not None
    assert late.valid_to == at(5)  # it held only until the newer claim began
    assert late.contradicts == () and late.lifecycle is LifecycleState.TENTATIVE
    assert old.contradicts == () and old.lifecycle is LifecycleState.TENTATIVE


def test_refused_contradiction_commands_give_their_code_and_text() -> None:
    store = new_store()
    a = _created(apply(store, extraction(claim("Alice", "uses", "Java"), occurred=at(1))))
    b = _created(apply(store, extraction(claim("Alice", "uses", "Java", polarity=NEG), occurred=at(2))))
    own = apply(store, contradict(a, a)).outcome
    assert (own.error_code, own.error_message) == ("self_contradiction", "a claim cannot contradict itself")
    again = apply(store, contradict(a, b, issued_at=at(3))).outcome
    assert (again.error_code, again.error_message) == ("already_contradicted", "claims already contradict each other")
    same = apply(store, resolve(a, a)).outcome
    assert (same.status, same.error_code, same.error_message) == (
        "rejected", "self_contradiction", "winner and loser must differ",
    )  # fmt: skip
