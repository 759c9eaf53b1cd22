"""Sealing in one C call (``_canonical.seal_operation``) against the reference seal.

The reference is the Python path the C call replaces: the checksum of the operation's
canonical JSON (``Operation.compute_checksum`` over a pydantic dump), an instance built
with every field set, and the stored record ``canonical_json(op.model_dump(mode="json"))``.
Values the C plans do not take must leave the caller's dict untouched and be sealed by
the reference path instead.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from engine_factories import claim, extraction, new_store
from engine_workload import run_steps

import engine.canonical_fast as fast
from engine import _canonical
from engine.reducer import Reducer
from schemas.canonical import canonical_json
from schemas.nodes import MemoryNode
from schemas.operations import Operation
from tests.unit.engine.test_fast_paths import _golden_steps


def _reference_text(op: Operation) -> bytes:
    return canonical_json(op.model_dump(mode="json")).encode("utf-8")


def _unsealed(op: Operation) -> dict[str, Any]:
    fields = dict(op.__dict__)
    fields["checksum"] = ""
    return fields


def _reference_seal(fields: dict[str, Any], payload_text: bytes | None = None) -> Operation:
    """What ``seal_operation`` does when the C call refuses: the Python path."""
    fields["checksum"], sealed = fast.seal_fields(fields, payload_text)
    op = Operation.model_construct(**fields)
    fast.remember_operation(op, sealed)
    return op


def _refuse(*_: Any) -> Any:
    raise TypeError("refused")


def test_every_golden_operation_seals_as_the_reference_does() -> None:
    ops = run_steps(_golden_steps(4, 250)).ops
    assert len({op.op_type for op in ops}) >= 8
    for op in ops:
        sealed = _canonical.seal_operation(_unsealed(op), None)
        reference = _reference_seal(_unsealed(op))
        assert sealed.checksum == reference.checksum == op.checksum == op.compute_checksum()
        assert sealed.__dict__ == reference.__dict__
        assert list(sealed.__dict__) == list(Operation.model_fields)  # declaration order
        assert sealed.__pydantic_fields_set__ == set(Operation.model_fields)
        assert sealed.__pydantic_extra__ is None and sealed.__pydantic_private__ is None
        assert sealed == op
        assert fast.operation_bytes(sealed) == _reference_text(op)


def test_the_sealed_text_is_kept_for_the_sinks(monkeypatch: pytest.MonkeyPatch) -> None:
    op = Reducer().apply(new_store(), extraction(claim("s", "uses", "x"), event_id="ev-kept")).operations[-1]
    sealed = _canonical.seal_operation(_unsealed(op), None)
    entry = fast._op_cache[id(sealed)]
    assert entry[0]() is sealed and list(fast._op_cache)[-1] == id(sealed)  # newest last
    expected = _reference_text(op)

    def no_dump(*_: Any) -> Any:
        raise AssertionError("the stored record was dumped again")

    monkeypatch.setattr(fast, "model_json", no_dump)
    assert fast.operation_bytes(sealed) == expected


def test_a_given_payload_text_is_copied_in_as_it_is() -> None:
    op = Reducer().apply(new_store(), extraction(claim("s", "uses", "x"), event_id="ev-text")).operations[0]
    text = canonical_json(op.payload).encode("utf-8")
    sealed = _canonical.seal_operation(_unsealed(op), text)
    assert sealed.checksum == op.checksum
    # the fragment is what gets hashed: a different (still valid) text gives a different checksum
    other = _canonical.seal_operation(_unsealed(op), b'{"replaced":true}')
    body = _reference_text(op).replace(b',"checksum":"' + op.checksum.encode() + b'"', b"")
    assert other.checksum == hashlib.sha256(body.replace(text, b'{"replaced":true}')).hexdigest()


def test_a_zone_the_plan_refuses_leaves_the_values_untouched_and_seals_by_reference() -> None:
    op = Reducer().apply(new_store(), extraction(claim("s", "uses", "x"), event_id="ev-zone")).operations[0]
    fields = _unsealed(op)
    fields["occurred_at"] = datetime(2026, 3, 1, 12, tzinfo=timezone(timedelta(hours=2)))
    before = dict(fields)
    with pytest.raises(TypeError):
        _canonical.seal_operation(fields, None)
    assert fields == before  # refused before anything was written into the caller's dict
    sealed = fast.seal_operation(fields)
    assert sealed.checksum == sealed.compute_checksum()
    assert fast.operation_bytes(sealed) == _reference_text(sealed)
    assert b'"occurred_at":"2026-03-01T12:00:00+02:00"' in fast.operation_bytes(sealed)


def test_values_out_of_declaration_order_are_put_in_order() -> None:
    op = Reducer().apply(new_store(), extraction(claim("s", "uses", "x"), event_id="ev-order")).operations[-1]
    fields = dict(reversed(list(_unsealed(op).items())))
    with pytest.raises(TypeError, match="declaration order"):
        _canonical.seal_operation(dict(fields), None)
    sealed = fast.seal_operation(fields)
    assert list(sealed.__dict__) == list(Operation.model_fields)
    assert sealed == op and sealed.checksum == op.checksum
    entry = fast._op_cache[id(sealed)]  # the reference path keeps the text as the C sealer does
    assert entry[0]() is sealed and list(fast._op_cache)[-1] == id(sealed)
    assert fast.operation_bytes(sealed) == _reference_text(op)


def test_missing_or_extra_fields_are_refused() -> None:
    op = Reducer().apply(new_store(), extraction(claim("s", "uses", "x"), event_id="ev-fields")).operations[-1]
    short = _unsealed(op)
    del short["request_id"]
    with pytest.raises(TypeError):
        _canonical.seal_operation(short, None)
    with pytest.raises(TypeError):
        _canonical.seal_operation({**_unsealed(op), "extra": 1}, None)
    with pytest.raises(TypeError):
        _canonical.seal_operation(_unsealed(op), "not bytes")  # type: ignore[arg-type]


def test_a_snapshot_no_plan_takes_is_written_by_the_fallback() -> None:
    class Variant(MemoryNode):  # a subclass: the parent's plan does not describe it
        pass

    op = Reducer().apply(new_store(), extraction(claim("s", "uses", "x"), event_id="ev-sub")).operations[-1]
    assert op.after is not None
    variant = Variant.model_construct(**op.after.__dict__)
    fields = _unsealed(op)
    fields["after"] = variant
    sealed = _canonical.seal_operation(fields, None)
    assert sealed.after is variant
    assert sealed.checksum == sealed.compute_checksum()
    assert fast.operation_bytes(sealed) == _reference_text(sealed)


def test_texts_of_every_length_class_are_hashed_as_hashlib_hashes_them() -> None:
    """SHA-256 in the sealer is OpenSSL's, called directly: checksums equal hashlib's at and around
    the 64-byte block and 2 KiB boundaries, with multi-byte text."""
    op = Reducer().apply(new_store(), extraction(claim("s", "uses", "x"), event_id="ev-long")).operations[-1]
    for size in (*range(0, 140), 2046, 2047, 2048, 4094, 4095, 9000):
        fields = _unsealed(op)
        fields["payload"] = {"note": "é" * (size // 2) + "x" * (size % 2)}
        sealed = _canonical.seal_operation(fields, None)
        text = fast.operation_bytes(sealed).replace(b',"checksum":"' + sealed.checksum.encode() + b'"', b"")
        assert sealed.checksum == hashlib.sha256(text).hexdigest() == sealed.compute_checksum()


def test_reducer_operations_seal_identically_with_the_c_call_refusing(monkeypatch: pytest.MonkeyPatch) -> None:
    steps = _golden_steps(9, 120)
    fast_texts = [fast.operation_bytes(op) for op in run_steps(steps).ops]
    monkeypatch.setattr(fast, "_seal_operation", _refuse)
    slow_ops = run_steps(steps).ops
    assert [fast.operation_bytes(op) for op in slow_ops] == fast_texts
    assert [_reference_text(op) for op in slow_ops] == fast_texts


def test_configuration_is_checked_and_a_bad_one_changes_nothing() -> None:
    op = Reducer().apply(new_store(), extraction(claim("s", "uses", "x"), event_id="ev-cfg")).operations[-1]
    names = tuple(Operation.model_fields)
    with pytest.raises(ValueError):
        _canonical.configure_sealing(Operation, names, set(names), {}, 4, {}, 4, fast._snapshot_bytes)
    with pytest.raises(ValueError):
        _canonical.configure_sealing(Operation, names, set(names), {}, 64, {}, 64, None)
    sealed = _canonical.seal_operation(_unsealed(op), None)
    assert fast._op_cache[id(sealed)][0]() is sealed  # still the module's caches
    assert sealed.checksum == op.checksum


def test_the_sealed_text_cache_stays_bounded() -> None:
    op = Reducer().apply(new_store(), extraction(claim("s", "uses", "x"), event_id="ev-bound")).operations[-1]
    kept = [_canonical.seal_operation(_unsealed(op), None) for _ in range(fast._OP_CACHE_LIMIT + 10)]
    assert len(fast._op_cache) <= fast._OP_CACHE_LIMIT
    assert fast._op_cache[id(kept[-1])][0]() is kept[-1]  # the newest survive eviction
    assert id(kept[0]) not in fast._op_cache or fast._op_cache[id(kept[0])][0]() is not kept[0]


def test_snapshot_text_cache_entries_follow_the_python_format() -> None:
    node = Reducer().apply(new_store(), extraction(claim("s", "uses", "x"), event_id="ev-snap")).operations[-1].after
    assert node is not None
    text = _canonical.snapshot_bytes(node)
    entry = fast._cache[id(node)]
    assert isinstance(entry, list) and entry[0]() is node and entry[1] is text
    assert text == canonical_json(node.model_dump(mode="json")).encode("utf-8")
    assert _canonical.snapshot_bytes(node) is text  # a hit returns the kept bytes
