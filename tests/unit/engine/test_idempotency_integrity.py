"""Duplicate inputs, request ids, evidence scope, derived ids and checksums."""

from __future__ import annotations

import pytest
from engine_factories import SCOPE, USER, at, claim, event_ref, extraction, new_store, penalize, reinforce

from engine.canonical_fast import fast_derive_id, verify_fast
from engine.reducer import apply
from schemas.canonical import derive_id
from schemas.enums import OpType, SignalType
from schemas.errors import ChecksumMismatch, NotFound, RequestIdConflict, ScopeMismatch
from schemas.operations import Operation, load_operation, verify_operation

RID = "0b6f2d9e-54d1-4c55-9a53-5b0f7a3f9e11"


def test_repeated_input_id_produces_no_operations() -> None:
    store = new_store()
    item = extraction(claim())
    first = apply(store, item)
    again = apply(store, item)
    assert first.status == "applied" and again.status == "duplicate" and again.operations == []
    cmd = reinforce(first.outcome.created_node_ids[0], issued_at=at(1))
    assert apply(store, cmd).status == "applied"
    assert apply(store, cmd).status == "duplicate"


def test_request_id_retry_returns_original_outcome_without_new_effects() -> None:
    store = new_store()
    [node_id] = apply(store, extraction(claim())).outcome.created_node_ids
    first = apply(store, reinforce(node_id, request_id=RID, issued_at=at(1)))
    node_after = store.get_node(node_id)
    retry = apply(store, reinforce(node_id, request_id=RID, issued_at=at(5)))  # new command id, same content
    assert retry.operations == [] and retry.outcome.retried
    assert retry.outcome.op_ids == first.outcome.op_ids and retry.outcome.status == "applied"
    assert store.get_node(node_id) == node_after


def test_request_id_reused_with_different_content_is_rejected() -> None:
    store = new_store()
    [node_id] = apply(store, extraction(claim())).outcome.created_node_ids
    apply(store, reinforce(node_id, request_id=RID, issued_at=at(1)))
    res = apply(store, reinforce(node_id, SignalType.REFERENCED, request_id=RID, issued_at=at(1)))
    assert res.status == "rejected" and res.outcome.error_code == "request_id_conflict"
    with pytest.raises(RequestIdConflict):
        res.raise_for_error()
    # the original record is untouched: an exact retry still returns the original
    assert apply(store, reinforce(node_id, request_id=RID, issued_at=at(2))).outcome.retried


def test_request_ids_are_scoped_per_owner() -> None:
    store = new_store()
    [mine] = apply(store, extraction(claim())).outcome.created_node_ids
    [bobs] = apply(store, extraction(claim(), owner_id="bob")).outcome.created_node_ids
    apply(store, reinforce(mine, request_id=RID, issued_at=at(1)))
    res = apply(store, reinforce(bobs, request_id=RID, owner_id="bob", issued_at=at(1)))
    assert res.status == "applied" and not res.outcome.retried


def test_rejected_request_is_retried_as_rejected() -> None:
    store = new_store()
    first = apply(store, reinforce("missing-node", request_id=RID))
    retry = apply(store, reinforce("missing-node", request_id=RID))
    assert first.outcome.error_code == "node_not_found"
    assert retry.outcome.retried and retry.outcome.status == "rejected" and retry.outcome.error_code == "node_not_found"


def test_evidence_must_belong_to_same_owner_and_scope_and_other_owners_events_are_not_found() -> None:
    store = new_store()
    [node_id] = apply(store, extraction(claim())).outcome.created_node_ids
    apply(store, extraction(claim("Bob"), event=event_ref("ev-bob", owner_id="bob")))
    apply(store, extraction(claim("Work"), event=event_ref("ev-work", scope="project")))
    # Another scope of the same owner: a mismatch. Another owner's event: not found, as if it did not
    # exist (saying "mismatch" would tell one owner which ids another owner has).
    res = apply(store, reinforce(node_id, evidence_ids=("ev-work",), issued_at=at(1)))
    assert res.outcome.error_code == "scope_mismatch"
    with pytest.raises(ScopeMismatch):
        res.raise_for_error()
    res = apply(store, reinforce(node_id, evidence_ids=("ev-bob",), issued_at=at(1)))
    assert res.outcome.error_code == "evidence_not_found"
    res = apply(store, penalize(node_id, evidence_ids=("ev-nowhere",), issued_at=at(1)))
    assert res.outcome.error_code == "evidence_not_found"
    with pytest.raises(NotFound):
        res.raise_for_error()
    node = store.get_node(node_id)
    assert node is not None and node.version == 1


def test_rejection_is_journaled_once_and_marks_input_seen() -> None:
    store = new_store()
    cmd = reinforce("nope")
    res = apply(store, cmd)
    assert [o.op_type for o in res.operations] == [OpType.COMMAND_REJECTED]
    payload = res.operations[0].payload
    assert payload["code"] == "node_not_found" and payload["error_class"] == "NodeNotFound"
    assert apply(store, cmd).status == "duplicate"


def test_fast_ids_and_checksums_match_schema_definitions() -> None:
    for parts in [("event:e1", 0), ("event:é", "node", 3), ("command:x", "edge", 12)]:
        assert fast_derive_id(*parts) == derive_id(*parts)
    store = new_store()
    weird = "\x00snapshot:after\x00 and ünïcode"
    res = apply(store, extraction(claim("Alice", "uses", weird, evidence_quote=weird), speaker=weird))
    for op in res.operations:
        assert op.checksum == op.compute_checksum()
        assert load_operation(op.canonical()) == op


def load_operation_unchecked(text: str) -> Operation:
    return Operation.model_validate_json(text)


def test_checksum_detects_tampering() -> None:
    store = new_store()
    res = apply(store, extraction(claim()))
    op = res.operations[1]
    verify_operation(op)
    assert op.after is not None
    tampered_node = op.after.model_copy(update={"confidence": 0.99})
    for bad in (
        op.model_copy(update={"after": tampered_node}),
        op.model_copy(update={"payload": {**op.payload, "confidence": 0.99}}),
        op.model_copy(update={"occurred_at": at(9)}),
        op.model_copy(update={"owner_id": "mallory"}),
    ):
        with pytest.raises(ChecksumMismatch):
            verify_operation(bad)
        with pytest.raises(ChecksumMismatch):  # the stream consumers' fast check refuses the same records
            verify_fast(bad)
        # a re-parsed copy (what a Kafka consumer holds) is refused too
        with pytest.raises(ChecksumMismatch):
            verify_fast(load_operation_unchecked(bad.canonical()))
    assert verify_fast(op) is op
    assert verify_fast(load_operation_unchecked(op.canonical())) == op
    with pytest.raises(ChecksumMismatch):
        verify_fast(op.model_copy(update={"checksum": ""}))


def test_fast_verification_agrees_with_the_reference_on_a_mixed_log() -> None:
    store = new_store()
    ops = [*apply(store, extraction(claim())).operations]
    # a tiny float and non-ASCII text: where a fast encoder most plausibly differs from the reference
    odd = claim("Alice", "uses", "Gö", metadata={"ratio": 1e-05, "n": "ü"})
    ops += apply(store, extraction(odd, event_id="e2")).operations
    [node_id] = apply(store, extraction(claim("Alice", "uses", "Rust"), event_id="e3")).outcome.created_node_ids
    ops += apply(store, reinforce(node_id, issued_at=at(4))).operations
    assert len(ops) >= 5
    for op in ops:
        parsed = load_operation_unchecked(op.canonical())
        assert verify_fast(parsed) == verify_operation(parsed)


def test_scope_and_actor_recorded_on_operations() -> None:
    store = new_store()
    [node_id] = apply(store, extraction(claim())).outcome.created_node_ids
    res = apply(store, reinforce(node_id, issued_at=at(1)))
    op = res.operations[0]
    assert (op.tenant_id, op.owner_id, op.scope) == (SCOPE["tenant_id"], SCOPE["owner_id"], SCOPE["scope"])
    assert op.actor == USER and op.caused_by == res.outcome.input_id and op.occurred_at == at(1)


def test_reused_request_id_with_reused_command_id_is_still_a_conflict() -> None:
    """A client that derives command ids from its request id must still hear about a changed body."""
    store = new_store()
    node_id = apply(store, extraction(claim())).outcome.node_ids[0]
    request_id = "7b0bd7c4-52a1-4c8e-9d7b-0a4c3c2a1f11"
    first = apply(store, reinforce(node_id, command_id="same", request_id=request_id))
    assert first.status == "applied"
    changed = apply(store, penalize(node_id, command_id="same", request_id=request_id))
    assert changed.status == "rejected" and changed.outcome.error_code == "request_id_conflict"
    assert changed.operations == []
    retry = apply(store, reinforce(node_id, command_id="same", request_id=request_id))
    assert retry.status == "applied" and retry.outcome.retried


def test_fast_verification_of_parsed_operations_does_not_use_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a Kafka consumer holds (validated operations) is written by orjson, not dumped whole by
    pydantic and ``json.dumps`` (only its snapshots are dumped, once per instance)."""
    import engine.canonical_fast as fast

    store = new_store()
    ops = [*apply(store, extraction(claim())).operations]
    [node_id] = apply(store, extraction(claim("Alice", "uses", "Rust"), event_id="e3")).outcome.created_node_ids
    ops += apply(store, reinforce(node_id, issued_at=at(4))).operations
    parsed = [load_operation_unchecked(op.canonical()) for op in ops]

    def no_reference(*_: object) -> str:
        raise AssertionError("verify_fast fell back to the reference encoder")

    monkeypatch.setattr(fast, "canonical_json", no_reference)
    monkeypatch.setattr(Operation, "compute_checksum", no_reference)
    for op in parsed:
        assert verify_fast(op) is op
        with pytest.raises(ChecksumMismatch):
            verify_fast(op.model_copy(update={"policy_version": "tampered"}))
