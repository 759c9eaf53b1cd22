"""Sealing (``engine.canonical_fast.seal_operation``) against the reference seal.

The reference is what ``schemas`` defines: the checksum of the operation's canonical JSON
(``Operation.compute_checksum`` over a pydantic dump), an instance with every field set, and
the stored record ``canonical_json(op.model_dump(mode="json"))``. Values the fast writer does
not take must be sealed by the reference path instead, with the same result.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

import pytest
from engine_factories import claim, extraction, new_store
from engine_workload import run_steps

import engine.canonical_fast as fast
from engine.reducer import Reducer
from schemas.canonical import canonical_json, sha256_hex
from schemas.common import ActorRef
from schemas.enums import ActorType, OpType
from schemas.nodes import MemoryNode
from schemas.operations import Operation
from tests.unit.engine.test_fast_paths import _golden_steps


def _reference_text(op: Operation) -> bytes:
    return canonical_json(op.model_dump(mode="json")).encode("utf-8")


def _unsealed(op: Operation) -> dict[str, Any]:
    fields = dict(op.__dict__)
    fields["checksum"] = ""
    return fields


def _op(event_id: str) -> Operation:
    return Reducer().apply(new_store(), extraction(claim("s", "uses", "x"), event_id=event_id)).operations[-1]


def test_every_golden_operation_seals_as_the_reference_does() -> None:
    ops = run_steps(_golden_steps(4, 250)).ops
    assert len({op.op_type for op in ops}) >= 8
    for op in ops:
        sealed = fast.seal_operation(_unsealed(op))
        reference = Operation.model_construct(**_unsealed(op))
        assert sealed.checksum == reference.compute_checksum() == op.checksum
        assert list(sealed.__dict__) == list(Operation.model_fields)  # declaration order
        assert sealed.__pydantic_fields_set__ == set(Operation.model_fields)
        assert sealed.__pydantic_extra__ is None and sealed.__pydantic_private__ is None
        assert sealed == op == Operation.model_validate_json(_reference_text(op))
        assert fast.operation_bytes(sealed) == _reference_text(op)


def test_the_stored_record_is_kept_and_not_written_again(monkeypatch: pytest.MonkeyPatch) -> None:
    op = _op("ev-kept")
    expected = _reference_text(op)

    def not_again(*_: Any) -> Any:
        raise AssertionError("the stored record was written again")

    monkeypatch.setattr(fast, "_marked", not_again)
    monkeypatch.setattr(fast, "model_json", not_again)
    assert fast.operation_bytes(op) == expected


def test_records_not_kept_are_written_again_exactly() -> None:
    ops = run_steps(_golden_steps(6, 120)).ops
    fast._records.clear()
    for op in ops:
        assert fast.operation_bytes(op) == _reference_text(op)
        copy = op.model_copy(update={"payload": {**op.payload, "extra": [1e-7, "é"]}})
        assert fast.operation_bytes(copy) == _reference_text(copy)


def test_a_given_payload_text_is_what_is_written_and_hashed() -> None:
    op = Reducer().apply(new_store(), extraction(claim("s", "uses", "x"), event_id="ev-text")).operations[0]
    assert op.op_type is OpType.EXTRACTION_VALIDATED
    text = canonical_json(op.payload).encode("utf-8")
    assert fast.seal_operation(_unsealed(op), text).checksum == op.checksum
    other = fast.seal_operation(_unsealed(op), b'{"replaced":true}')
    body = _reference_text(op).replace(b',"checksum":"' + op.checksum.encode() + b'"', b"")
    assert other.checksum == hashlib.sha256(body.replace(text, b'{"replaced":true}')).hexdigest()
    assert fast.operation_bytes(other) == _reference_text(op).replace(text, b'{"replaced":true}').replace(
        op.checksum.encode(), other.checksum.encode()
    )


@pytest.mark.parametrize(
    "changes",
    [
        {"payload": {"tiny": 1e-7, "list": [5e-5, {"deep": -1e-9}]}},  # orjson spells these otherwise
        {"payload": {"big": 2**64, "neg": -(2**63) - 1}},  # orjson refuses ints beyond 64 bits
        {"payload": {"key": "\x00snapshot:after\x00", "mark": "\xff ÿ", "checksum": "x", "edge": {"edge": 1}}},
        {"payload": {"t": (1, "two"), "nested": {"b": 1, "a": [None, True]}}},
        {"evidence_ids": ["a", "b"]},  # a list where a tuple is declared
        {"op_index": True},  # a bool where an int is declared
        {"op_type": "ASSERT"},  # a str where the enum is declared
        {"actor": ActorRef.model_construct(actor_id="x", actor_type="AI_AGENT")},
        {"occurred_at": datetime(2026, 3, 1, 12, tzinfo=UTC).date()},
        {"request_id": 7},
    ],
)
def test_values_the_writer_does_not_take_are_sealed_by_the_reference(changes: dict[str, Any]) -> None:
    import warnings

    op = _op("ev-odd")
    fields = {**_unsealed(op), **changes}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydantic notes values of other types than declared as it writes them
        try:
            reference: Any = Operation.model_construct(**fields).compute_checksum()
        except (TypeError, ValueError) as exc:
            reference = type(exc)
        try:
            sealed = fast.seal_operation(dict(fields))
        except (TypeError, ValueError) as exc:
            assert reference is type(exc)
            return
        assert sealed.checksum == reference
        assert fast.operation_bytes(sealed) == _reference_text(sealed)
        fast._records.clear()
        assert fast.operation_bytes(sealed) == _reference_text(sealed)
        assert fast.verify_fast(sealed) is sealed


def test_a_snapshot_of_another_class_is_written_by_the_reference() -> None:
    class Variant(MemoryNode):
        note: str = "not part of a MemoryNode"

    op = _op("ev-sub")
    assert op.after is not None
    variant = Variant.model_construct(**op.after.__dict__)
    fields = _unsealed(op)
    fields["after"] = variant
    sealed = fast.seal_operation(fields)
    assert sealed.after is variant
    assert sealed.checksum == sealed.compute_checksum()
    assert fast.operation_bytes(sealed) == _reference_text(sealed)
    assert b"not part of" not in fast.operation_bytes(sealed)  # pydantic writes the declared class's fields


def test_non_finite_floats_are_refused_as_the_reference_refuses_them() -> None:
    op = _op("ev-nan")
    assert op.after is not None
    infinite = op.after.model_copy(update={"confidence": float("inf")})
    for changes in ({"payload": {"x": float("nan")}}, {"after": infinite}):
        fields = {**_unsealed(op), **changes}
        with pytest.raises(ValueError):
            Operation.model_construct(**fields).compute_checksum()
        with pytest.raises(ValueError):
            fast.seal_operation(fields)


def test_values_out_of_declaration_order_are_put_in_order() -> None:
    op = _op("ev-order")
    sealed = fast.seal_operation(dict(reversed(list(_unsealed(op).items()))))
    assert list(sealed.__dict__) == list(Operation.model_fields)
    assert sealed == op and sealed.checksum == op.checksum
    assert fast.operation_bytes(sealed) == _reference_text(op)


def test_missing_or_extra_fields_are_refused() -> None:
    op = _op("ev-fields")
    short = _unsealed(op)
    del short["request_id"]
    with pytest.raises(ValueError, match="exactly its fields"):
        fast.seal_operation(short)
    with pytest.raises(ValueError, match="exactly its fields"):
        fast.seal_operation({**_unsealed(op), "extra": 1})


def test_texts_of_every_length_are_hashed_as_hashlib_hashes_them() -> None:
    """Checksums equal hashlib's at and around the 64-byte block and the 2 KiB piece boundaries
    of ``sha256_hex`` (which keeps the GIL), with multi-byte text."""
    op = _op("ev-long")
    for size in (*range(0, 140), 2046, 2047, 2048, 4094, 4095, 9000):
        fields = _unsealed(op)
        fields["payload"] = {"note": "é" * (size // 2) + "x" * (size % 2)}
        sealed = fast.seal_operation(fields)
        text = fast.operation_bytes(sealed).replace(b',"checksum":"' + sealed.checksum.encode() + b'"', b"")
        assert sealed.checksum == hashlib.sha256(text).hexdigest() == sha256_hex(text) == sealed.compute_checksum()


def test_the_kept_texts_stay_bounded_and_keep_the_newest() -> None:
    op = _op("ev-bound")
    limit = fast._records.limit
    kept = [fast.seal_operation(_unsealed(op)) for _ in range(limit + 10)]
    assert len(fast._records._entries) <= limit
    assert fast._records.get(kept[-1]) is not None
    assert fast._records.get(kept[0]) is None


def test_an_actor_of_its_own_is_written_like_a_shared_one() -> None:
    op = _op("ev-actor")
    fields = {**_unsealed(op), "actor": ActorRef(actor_id="é 😀", actor_type=ActorType.AI_AGENT)}
    sealed = fast.seal_operation(fields)
    assert sealed.checksum == sealed.compute_checksum()
    assert fast.operation_bytes(sealed) == _reference_text(sealed)
