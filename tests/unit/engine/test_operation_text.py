"""The cached operation record equals the reference ``Operation.canonical()`` text.

Sinks store ``operation_text(op)`` as the operation log record; any byte that
differs from ``canonical_json(op.model_dump(mode="json"))`` would change stored
results or fail checksum verification on read. Expectations come from the
reference pydantic + ``json`` path, never from the code under test.
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest
from engine_factories import claim, extraction, new_store, update
from engine_workload import run_steps
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.canonical_fast as fast
import engine.emitter as emitter
from engine.reducer import Reducer
from schemas.canonical import canonical_json
from schemas.operations import Operation, load_operation
from tests.unit.engine.test_fast_paths import _golden_steps


def _reference(op: Operation) -> str:
    return canonical_json(op.model_dump(mode="json"))


def test_reducer_operations_reuse_sealed_text_byte_identically() -> None:
    ops = run_steps(_golden_steps(3, 300)).ops
    assert len(ops) > 200
    assert all(fast._records.get(op) is not None for op in ops)  # every sealed operation kept its record
    for op in ops:
        text = fast.operation_text(op)
        assert text == _reference(op)
        assert fast.operation_bytes(op) == text.encode("utf-8")
        assert load_operation(text) == op  # the stored record verifies


def test_the_caches_do_not_keep_operations_or_snapshots_alive() -> None:
    """Sealed texts are reused while an operation lives; once nothing holds it, it is released."""
    store = new_store()
    ops = list(Reducer().apply(store, extraction(claim("s", "uses", "x"), event_id="ev-weak")).operations)
    assert all(fast.operation_bytes(op) == _reference(op).encode("utf-8") for op in ops)
    snapshots = [op.after for op in ops if op.after is not None]
    assert snapshots and all(fast._snapshots.get(s) is not None for s in snapshots)
    refs = [weakref.ref(x) for x in (*ops, *snapshots)]
    addresses = [id(x) for x in (*ops, *snapshots)]
    del ops, snapshots, store
    gc.collect()
    assert [r() for r in refs] == [None] * len(refs)
    # and their texts left with them: the entries kept are those of objects still held
    assert not any(a in fast._records._entries or a in fast._snapshots._entries for a in addresses)


def test_a_new_operation_at_a_released_ones_address_is_not_taken_for_it() -> None:
    """Ids are reused after release; the cache entry of the dead operation must not match."""
    store = new_store()
    first = Reducer().apply(store, extraction(claim("s", "uses", "x"), event_id="ev-1")).operations[0]
    address = id(first)
    del first
    gc.collect()
    entry = fast._records._entries.get(address)
    assert entry is None or entry[0]() is None
    impostor = Reducer().apply(new_store(), extraction(claim("s", "uses", "y"), event_id="ev-2")).operations[0]
    copy = impostor.model_copy(update={"payload": {"other": 1}})
    assert fast.operation_text(copy) == _reference(copy)


def test_uncached_and_copied_operations_fall_back_to_reference() -> None:
    reducer = Reducer()
    store = new_store()
    ops = list(reducer.apply(store, extraction(claim("s", "uses", "x"), event_id="ev-1")).operations)
    ops += reducer.apply(store, extraction(update("s", "uses", "y", "x"), event_id="ev-2")).operations
    for op in ops:
        copy = op.model_copy(update={"payload": {**op.payload, "extra": 1}})
        assert fast.operation_text(copy) == _reference(copy)
    fast._records.clear()
    for op in ops:
        assert fast.operation_text(op) == _reference(op)


_PAYLOAD_STRINGS = st.sampled_from(
    [
        "\x00operation:checksum\x00",
        "\x00snapshot:after\x00",
        "\x00snapshot:before\x00",
        "plain",
        "1e-07",
    ]
)


@settings(max_examples=60, deadline=None)
@given(
    key=st.sampled_from(["checksum", "note", "after"]),
    value=st.one_of(_PAYLOAD_STRINGS, st.floats(min_value=1e-9, max_value=1e-3), st.text(max_size=8)),
)
def test_payloads_spelling_placeholders_still_seal_and_print_exactly(key: str, value: Any) -> None:
    """A payload that spells a placeholder (at any depth) must not corrupt the checksum or the record."""
    reducer = Reducer()
    store = new_store()
    base = reducer.apply(store, extraction(claim("s", "uses", "x"), event_id="ev-1")).operations[0]
    fields = dict(base.__dict__)
    fields["payload"] = {key: value, "nested": {key: value}}
    fields["checksum"] = ""
    op = fast.seal_operation(fields)
    assert op.checksum == op.compute_checksum()
    assert fast.operation_text(op) == _reference(op)


def test_extraction_payload_is_encoded_once_for_sealing_and_the_stored_record(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The EXTRACTION_VALIDATED payload is the result's JSON; sealing and the stored record use
    its one encoding, and each equals the reference text."""
    result = extraction(claim("s", "uses", "x"), event_id="ev-shared")
    sealed: list[bytes | None] = []
    seal = fast.seal_operation

    def spy(fields: dict[str, Any], payload_text: bytes | None = None) -> Any:
        sealed.append(payload_text)
        return seal(fields, payload_text)

    monkeypatch.setattr(emitter, "seal_operation", spy)
    op = Reducer().apply(new_store(), result).operations[0]
    payload = sealed[0]
    assert isinstance(payload, bytes)  # the shared encoding, not a second walk of the dict
    assert payload == canonical_json(result.model_dump(mode="json")).encode("utf-8")
    assert op.op_type.value == "EXTRACTION_VALIDATED"
    assert fast._snapshots.get(result) is None  # not kept for the result: nobody may read it
    assert op.checksum == op.compute_checksum()
    assert fast.operation_text(op) == _reference(op)


def test_models_without_weak_references_are_encoded_without_caching() -> None:
    from pydantic import BaseModel

    class Slotted(BaseModel):
        __slots__ = ()
        a: int

    model = Slotted(a=1)
    with pytest.raises(TypeError):
        weakref.ref(model)
    assert fast.model_bytes(model) == b'{"a":1}'
