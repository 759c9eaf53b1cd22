"""Content sealed under data keys in a real chDB log: what is stored, what verifies without keys, what a
destroyed, a missing or a tampered key or ciphertext reads as."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from sink_factories import make_event, make_node, make_op

from engine.erasure import ERASED_PAYLOAD, event_unit
from schemas.errors import ChecksumMismatch, IntegrityError, KeyUnavailable
from sinks.clickhouse import OperationLog

pytestmark = pytest.mark.integration


@pytest.fixture
def log(chdb_path: Path, chdb_database: str) -> Iterator[OperationLog]:
    oplog = OperationLog.connect(path=chdb_path, database=chdb_database)
    yield oplog
    oplog.close()


def _write(log: OperationLog) -> None:
    log.write_events([make_event("ev-1", "I keep bees in Hollowmarsh")])
    node = make_node("n1", "alice keeps bees in Hollowmarsh", evidence_refs=("ev-1",), object="Hollowmarsh")
    log.write_operations([make_op("event:ev-1", 0, node=node, payload={"reason": "Hollowmarsh bees"})])
    log.write_node_snapshots([node])


def _stored(log: OperationLog) -> tuple[str, str]:
    ((record, stored),) = log.client.query(
        f"SELECT record, stored_sha256 FROM {log.database}.operations FINAL"
    ).result_rows  # fmt: skip
    return record, stored


def test_every_table_holds_ciphertext_and_the_record_verifies_by_its_stored_hash(log: OperationLog) -> None:
    _write(log)
    record, stored = _stored(log)
    assert stored == hashlib.sha256(record.encode()).hexdigest()
    for table in ("raw_events", "operations", "node_snapshots"):
        text = str(log.client.query(f"SELECT * FROM {log.database}.{table}").result_rows)
        assert "Hollowmarsh" not in text and "bees" not in text, table
    # read back, everything opens, and the operation is the one written (its own checksum verified)
    (op,) = log.read_operations()
    assert op.payload == {"reason": "Hollowmarsh bees"} and op.after is not None and op.after.object == "Hollowmarsh"
    assert [e.content for e in log.get_events(["ev-1"], "t1", "alice")] == ["I keep bees in Hollowmarsh"]
    # SIV: the same content under the same key seals to the same bytes (a retried write is byte-identical)
    again = log.sealer.operation_record(op)
    assert again == record.encode()


def test_a_destroyed_key_reads_as_erased_and_the_record_still_verifies(log: OperationLog) -> None:
    _write(log)
    destroyed = log.keys.destroy(log.keys.unit_key_ids([event_unit("t1", "alice", "ev-1")]), "erasure-1")
    assert destroyed == 1
    log.keys.forget_cache()
    (op,) = log.read_operations()
    assert op.payload == ERASED_PAYLOAD and op.after is None and op.target_id == "n1"
    assert log.get_events(["ev-1"], "t1", "alice") == [] and log.latest_node_snapshots() == []
    assert log.client.query(f"SELECT count() FROM {log.database}.data_keys").result_rows == [(0,)]


def test_a_missing_key_nobody_destroyed_is_an_integrity_error(log: OperationLog) -> None:
    _write(log)
    log.client.command(f"TRUNCATE TABLE {log.database}.data_keys")
    log.keys.forget_cache()
    with pytest.raises(KeyUnavailable):
        log.read_operations()


def test_tampered_bytes_are_refused(log: OperationLog) -> None:
    _write(log)
    record, _stored_hash = _stored(log)
    cut = record.index('"c":"') + 5
    forged = record[:cut] + ("A" if record[cut] != "A" else "B") + record[cut + 1 :]
    table = f"{log.database}.operations"
    log.client.command(f"ALTER TABLE {table} UPDATE record = {{r:String}} WHERE 1", parameters={"r": forged},
                       settings={"mutations_sync": 2})  # fmt: skip
    with pytest.raises(ChecksumMismatch):  # the stored hash no longer matches: caught without any key
        log.read_operations()
    log.client.command(f"ALTER TABLE {table} UPDATE stored_sha256 = {{h:String}} WHERE 1",
                       parameters={"h": hashlib.sha256(forged.encode()).hexdigest()},
                       settings={"mutations_sync": 2})  # fmt: skip
    with pytest.raises(IntegrityError) as refused:  # a forger who fixes the hash still cannot seal
        log.read_operations()
    assert refused.value.code == "seal_mismatch"
