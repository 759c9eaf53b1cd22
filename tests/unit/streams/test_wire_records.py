"""Batched records on memory.extractions and memory.operations read back exactly what was written.

Batching is only a transport saving: the inputs of a record must come back in
order, equal to what was written, every operation still verified, and the
single-input forms (older workers, commands) must still be read.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from engine.reducer import Reducer
from engine.store import InMemoryStateStore
from schemas.claims import Claim, EventRef, ExtractionResult
from schemas.enums import EpistemicType, Role, Scope
from schemas.errors import ChecksumMismatch
from streams import extraction_records
from streams.kafka_store import OpBatch, fold

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def _result(i: int, obj: str = "Python") -> ExtractionResult:
    at = T0 + timedelta(seconds=i)
    ref = EventRef(tenant_id="t", owner_id=f"o{i % 2}", scope=Scope.PERSONAL, event_id=f"e{i}", role=Role.USER,
                   session_id="s", occurred_at=at, recorded_at=at, content_sha256="0" * 64)
    claim = Claim(subject="Alice", predicate="uses", object=obj, epistemic_type=EpistemicType.ASSERTED,
                  evidence_quote=f"Alice uses {obj}")
    return ExtractionResult(event=ref, extractor="t", extractor_version="1", grounding_policy_version="g",
                            source_hash="0" * 64, claims=(claim,))


def test_extraction_record_keeps_every_result_in_order() -> None:
    results = [_result(i, obj) for i, obj in enumerate(["Python", "Go", "Rust", "Zig"])]
    back = extraction_records.loads(extraction_records.dumps(results))
    assert [r.input_id for r in back] == [r.input_id for r in results]
    assert back == results


def test_extraction_record_reads_the_single_result_form() -> None:
    one = _result(7)
    assert extraction_records.loads(one.model_dump_json().encode()) == [one]


@pytest.mark.parametrize("raw", [b"not json", b'{"v":2,"results":[{"nope":1}]}', b'{"event":{}}', b"[]"])
def test_extraction_record_refuses_what_is_not_one(raw: bytes) -> None:
    with pytest.raises(ValueError):
        extraction_records.loads(raw)


def test_empty_extraction_record_is_refused() -> None:
    with pytest.raises(ValueError):
        extraction_records.dumps([])


def _batches(n: int) -> list[OpBatch]:
    store, reducer = InMemoryStateStore(), Reducer()
    out = []
    for i in range(n):
        result = reducer.apply(store, _result(i, "Python" if i % 2 else "Go"))
        out.append(OpBatch(result.outcome.input_id, tuple(result.operations)))
    return out


def test_operations_record_of_one_batch_is_the_single_input_form() -> None:
    [batch] = _batches(1)
    raw = OpBatch.dumps_record([batch])
    assert json.loads(raw)["v"] == 1 and json.loads(raw)["input_id"] == batch.input_id
    assert OpBatch.loads(raw) == batch
    assert OpBatch.loads_record(raw) == [batch]


def test_operations_record_of_several_batches_folds_to_the_same_state() -> None:
    batches = _batches(5)
    raw = OpBatch.dumps_record(batches)
    back = OpBatch.loads_record(raw)
    assert back == batches
    assert [b.input_id for b in back] == [b.input_id for b in batches]
    assert fold(back).snapshot() == fold(batches).snapshot()
    assert all(fold(back).has_seen(b.input_id) for b in batches)


def test_tampered_operation_in_a_batched_record_is_refused() -> None:
    batches = _batches(3)
    data = json.loads(OpBatch.dumps_record(batches))
    data["batches"][2]["ops"][-1]["after"]["confidence"] = 0.01
    with pytest.raises(ChecksumMismatch):
        OpBatch.loads_record(json.dumps(data, separators=(",", ":")).encode())


def test_records_carry_each_operation_as_its_canonical_json() -> None:
    batches = _batches(3)
    for raw in (OpBatch.dumps_record(batches[:1]), OpBatch.dumps_record(batches)):
        data = json.loads(raw)
        inner = [data] if data["v"] == 1 else data["batches"]
        assert [b["input_id"] for b in inner] == [b.input_id for b in batches[: len(inner)]]
        for wire, batch in zip(inner, batches, strict=False):
            assert wire["ops"] == [json.loads(op.canonical()) for op in batch.operations]


def test_input_ids_with_quotes_and_non_ascii_round_trip() -> None:
    [batch] = _batches(1)
    odd = OpBatch('event:t/"é\\\n', batch.operations)
    assert OpBatch.loads(odd.dumps()).input_id == odd.input_id
    assert [b.input_id for b in OpBatch.loads_record(OpBatch.dumps_record([odd, batch]))] == [odd.input_id,
                                                                                             batch.input_id]
