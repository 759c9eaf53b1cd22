"""The operation log on real chDB: migrations, idempotent writes, verified ordered reads."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sink_factories import T0, at, make_event, make_extraction, make_node, make_op

from extractors.secrets.admission import mask_event
from schemas.canonical import derive_id
from schemas.enums import EpistemicType, OpType, Scope
from schemas.errors import ChecksumMismatch, IntegrityError
from sinks.clickhouse import LogCursor, OperationLog
from sinks.clickhouse_schema import MIGRATIONS, TABLES, Migration, applied_migrations, migrate
from streams.agents import dead_letter

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def log(chdb_path: Path, chdb_database: str) -> Iterator[OperationLog]:
    oplog = OperationLog.connect(path=chdb_path, database=chdb_database)
    yield oplog
    oplog.close()


def _counts(log: OperationLog) -> dict[str, int]:
    return {t: log.count(t) for t in TABLES}


def test_migrate_is_idempotent_and_creates_every_table(log: OperationLog) -> None:
    assert log.migrate() == []
    assert log.migrate() == []
    assert applied_migrations(log.client, log.database) == {m.id: m.checksum for m in MIGRATIONS}
    tables = {
        r[0]
        for r in log.client.query(
            "SELECT name FROM system.tables WHERE database = {db:String}", parameters={"db": log.database}
        ).result_rows
    }
    assert set(TABLES) | {"schema_migrations"} <= tables
    recorded = log.client.command(f"SELECT count() FROM {log.database}.schema_migrations")
    assert recorded == len(MIGRATIONS)


def test_a_changed_applied_migration_is_refused(log: OperationLog) -> None:
    first = MIGRATIONS[0]
    edited = Migration(first.id, first.name, (*first.statements, "SELECT 1"))
    with pytest.raises(IntegrityError) as err:
        migrate(log.client, log.database, [edited])
    assert err.value.code == "migration_changed"


def test_a_new_migration_is_applied_once(log: OperationLog) -> None:
    extra = Migration(99, "extra", ("CREATE TABLE IF NOT EXISTS {db}.extra (x UInt8) ENGINE = MergeTree ORDER BY x",))
    assert migrate(log.client, log.database, [*MIGRATIONS, extra]) == [99]
    assert migrate(log.client, log.database, [*MIGRATIONS, extra]) == []


def _batch() -> tuple[list, list, list, list, list]:
    events = [make_event(f"e{i}", f"message {i}", occurred_at=at(days=i * 20)) for i in range(5)]
    ops = [make_op(f"event:e{i}", j, when=at(days=i * 20)) for i in range(5) for j in range(3)]
    nodes = [make_node(f"n{i}", version=v, confidence=0.1 * (i + 1)) for i in range(4) for v in (1, 2)]
    extractions = [make_extraction(e, rejected=("quote_not_found",) * (i % 2)) for i, e in enumerate(events)]
    letters = [
        dead_letter(
            b"\xff\x00{" + bytes([i]),
            source="conversation.events",
            partition=0,
            offset=i,
            reason_code="invalid_json",
            message="not json",
            received_at=at(days=i),
        )
        for i in range(3)
    ]
    return events, ops, nodes, extractions, letters


def _write(log: OperationLog, batch: tuple[list, list, list, list, list]) -> None:
    events, ops, nodes, extractions, letters = batch
    log.write_events(events)
    log.write_operations(ops)
    log.write_node_snapshots(nodes)
    log.write_extractions(extractions)
    log.write_dead_letters(letters)


def _results(log: OperationLog) -> tuple[object, ...]:
    return (
        [op.op_id for op in log.read_operations()],
        [(n.node_id, n.version) for n in log.latest_node_snapshots()],
        [e.event_id for e in log.get_events([f"e{i}" for i in range(5)], "t1", "alice")],
        [d.dlq_id for d in log.list_dead_letters()],
        log.stats(),
    )


def test_reinserting_identical_batches_changes_neither_counts_nor_results(log: OperationLog) -> None:
    batch = _batch()
    _write(log, batch)
    counts, results = _counts(log), _results(log)
    assert counts == {
        "raw_events": 5, "operations": 15, "node_snapshots": 8, "extraction_journal": 5, "dead_letters": 3
    }
    _write(log, batch)  # same batches: stored again (never dropped at insert time), collapsed by their keys
    raw = {t: log.count(t, final=False) for t in TABLES}
    assert all(raw[t] >= counts[t] for t in TABLES) and _counts(log) == counts
    assert _results(log) == results
    # The same rows in other batches bypass the token; the merge key still collapses them.
    events, ops, nodes, _, _ = batch
    log.write_operations(list(reversed(ops))[:7])
    log.write_node_snapshots(nodes[3:])
    log.write_events(events[::2])
    assert _counts(log) == counts
    assert _results(log) == results


def test_read_operations_follow_log_order_and_resume_after_a_cursor(log: OperationLog) -> None:
    # Written out of order, across months (partitions) and with a tie on occurred_at.
    ops = [
        make_op("event:b", 1, when=at(days=40)),
        make_op("event:a", 0, when=at(days=40)),
        make_op("event:b", 0, when=at(days=40)),
        make_op("event:z", 0, when=at(days=0)),
        make_op("event:c", 0, when=at(days=90)),
    ]
    log.write_operations(ops)
    got = [(op.caused_by, op.op_index) for op in log.read_operations()]
    assert got == [("event:z", 0), ("event:a", 0), ("event:b", 0), ("event:b", 1), ("event:c", 0)]
    first_two = log.read_operations(limit=2)
    rest = log.read_operations(after=LogCursor.of(first_two[-1]))
    assert [(o.caused_by, o.op_index) for o in first_two + rest] == got
    assert [o.caused_by for o in log.read_operations(after=at(days=40))] == ["event:c"]
    # Paging with a small page size gives the same sequence.
    assert [(o.caused_by, o.op_index) for o in log.iter_operations(page_size=2)] == got


def test_reads_filter_by_owner_and_scope_key(log: OperationLog) -> None:
    bob_node = make_node("nb", owner_id="bob", scope=Scope.PROJECT, scope_id="apollo")
    log.write_operations([make_op("event:a", 0), make_op("event:b", 0, node=bob_node)])
    assert [o.owner_id for o in log.read_operations(owner="bob")] == ["bob"]
    assert [o.target_id for o in log.read_operations(tenant="t1", scope_key="project:apollo")] == ["nb"]
    assert log.read_operations(scope_key="project:other") == []
    assert len(log.read_operations(scope_key="personal")) == 1


def test_a_tampered_row_is_rejected_on_read(log: OperationLog) -> None:
    op = make_op("event:a", 0)
    log.write_operations([op])
    assert log.read_operations()[0] == op
    tampered = op.canonical().replace('"reason":"test"', '"reason":"forged"')
    assert tampered != op.canonical()
    # Same sort key, new record: the replacing engine keeps the newer (tampered) row.
    log.client.insert(
        f"{log.database}.operations",
        [[op.op_id, op.op_type.value, 0, "t1", "alice", "personal", "", op.target_id, "node", "alice", "HUMAN_USER",
          op.caused_by, "", op.occurred_at, op.policy_version, op.checksum, tampered]],
        column_names=["op_id", "op_type", "op_index", "tenant_id", "owner_id", "scope", "scope_id", "target_id",
                      "target_type", "actor_id", "actor_type", "caused_by", "request_id", "occurred_at",
                      "policy_version", "checksum", "record"],
    )
    with pytest.raises(ChecksumMismatch):
        log.read_operations()


def test_a_row_whose_columns_disagree_with_its_record_is_rejected(log: OperationLog) -> None:
    op = make_op("event:a", 0)
    other = make_op("event:a", 1)
    log.client.insert(
        f"{log.database}.operations",
        [[op.op_id, "ASSERT", 0, "t1", "alice", "personal", "", op.target_id, "node", "alice", "HUMAN_USER",
          op.caused_by, "", op.occurred_at, op.policy_version, other.checksum, other.canonical()]],
        column_names=["op_id", "op_type", "op_index", "tenant_id", "owner_id", "scope", "scope_id", "target_id",
                      "target_type", "actor_id", "actor_type", "caused_by", "request_id", "occurred_at",
                      "policy_version", "checksum", "record"],
    )
    with pytest.raises(IntegrityError) as err:
        log.read_operations()
    assert err.value.code == "operation_identity"


def test_unsealed_operations_are_refused(log: OperationLog) -> None:
    op = make_op("event:a", 0).model_copy(update={"checksum": ""})
    with pytest.raises(IntegrityError):
        log.write_operations([op])
    assert log.count("operations") == 0


def test_latest_snapshot_wins_whatever_the_write_order(log: OperationLog) -> None:
    newest = make_node("n1", version=3, confidence=0.9, updated_at=at(days=70))
    log.write_node_snapshots([newest])
    log.write_node_snapshots([make_node("n1", version=1), make_node("n1", version=2, updated_at=at(days=35))])
    latest = log.latest_node_snapshots(owner="alice")
    assert latest == [newest]
    assert log.latest_node_snapshots(node_ids=[]) == []
    assert log.latest_node_snapshots(owner="bob") == []


def test_events_round_trip_with_masked_content_and_original_hash(log: OperationLog) -> None:
    secret = make_event("e1", "my key is sk-ABCDEF0123456789abcdefXYZ",
                        occurred_at=datetime(2026, 2, 1, 23, 59, 59, 999999, tzinfo=UTC))  # fmt: skip
    masked = mask_event(secret)  # what admission hands the sinks
    log.write_events([masked, make_event("e0", occurred_at=T0)])
    got = log.get_events(["e1", "e0", "missing"], "t1", "alice")
    assert [e.event_id for e in got] == ["e0", "e1"]
    assert got[1].content == "my key is [REDACTED:api_key]"
    assert got[1].content_sha256 == secret.content_sha256 == hashlib.sha256(secret.content.encode()).hexdigest()
    assert got[1].occurred_at == secret.occurred_at  # microseconds and UTC survive
    assert got[1].metadata == {"client": "test", "n": 1}
    assert log.get_events(["e1"], "t1", "bob") == []


def test_operations_for_target_pages_through_one_nodes_history(log: OperationLog) -> None:
    node = make_node("n-target")
    ops = [make_op(f"cmd:{i}", 0, node=node, when=at(days=i), op_type=OpType.REINFORCE) for i in range(5)]
    log.write_operations([*ops, make_op("event:other", 0)])
    page1, cursor = log.operations_for_target("n-target", None, 2)
    assert [o.caused_by for o in page1] == ["cmd:0", "cmd:1"]
    assert cursor is not None
    page2, cursor = log.operations_for_target("n-target", cursor, 2)
    page3, end = log.operations_for_target("n-target", cursor, 2)
    assert [o.caused_by for o in page2 + page3] == ["cmd:2", "cmd:3", "cmd:4"]
    assert end is None


def test_dead_letters_keep_masked_bytes_and_the_digest_and_a_redelivery_is_listed_once(log: OperationLog) -> None:
    raw = b"\xff\xfe not utf-8 \x00 password: Hunter2-Tango!"
    letter = dead_letter(raw, source="conversation.events", partition=3, offset=17, reason_code="invalid_utf8",
                         message="", received_at=at())
    again = letter.model_copy(update={"received_at": at(days=45)})  # redelivered next month
    from_file = dead_letter(b"{", source="file:in.jsonl", reason_code="invalid_json", message="", received_at=at())
    log.write_dead_letters([again])  # the later receipt is written first
    log.write_dead_letters([letter, from_file])
    listed = log.list_dead_letters()
    assert [d.dlq_id for d in listed] == sorted([letter.dlq_id, from_file.dlq_id])
    by_id = {d.dlq_id: d for d in listed}
    stored = by_id[letter.dlq_id]
    assert b"Hunter2" not in stored.masked_bytes and b"[REDACTED:password]" in stored.masked_bytes
    assert (stored.original_sha256, stored.original_length) == (hashlib.sha256(raw).hexdigest(), len(raw))
    assert by_id[letter.dlq_id].received_at == at(days=45)  # latest receipt, whatever the write order
    assert from_file.dlq_id == derive_id("dlq", "file:in.jsonl", hashlib.sha256(b"{").hexdigest())
    assert [d.reason_code for d in log.list_dead_letters(reason_code="invalid_json")] == ["invalid_json"]


def test_letters_from_one_batched_record_are_all_kept(log: OperationLog) -> None:
    """Several inputs of one memory.extractions record refused by the reducer: same coordinates, other bytes."""
    letters = [
        dead_letter(f'{{"input": {i}}}'.encode(), source="memory.extractions", partition=2, offset=40,
                    reason_code="integrity_error", message="", received_at=at())
        for i in range(3)
    ]  # fmt: skip
    log.write_dead_letters(letters)
    log.write_dead_letters(letters[:1])  # a redelivery of the first changes nothing
    listed = log.list_dead_letters()
    assert sorted(d.masked_bytes for d in listed) == sorted(d.masked_bytes for d in letters)


def test_stats_count_operations_confidence_and_rejections(log: OperationLog) -> None:
    log.write_operations(
        [
            make_op("event:a", 0, when=at(days=0)),
            make_op("event:a", 1, when=at(days=0), op_type=OpType.CONTRADICTION_NOTED),
            make_op("event:b", 0, when=at(days=1), op_type=OpType.SUPERSEDENCE_APPLIED),
            make_op("event:c", 0, when=at(days=1), op_type=OpType.CONTRADICTION_NOTED),
        ]
    )
    log.write_node_snapshots(
        [
            make_node("n1", confidence=0.95),
            make_node("n1", version=2, confidence=0.15),  # only the latest version counts
            make_node("n2", confidence=0.55),
            make_node("n3", confidence=0.3, epistemic_type=EpistemicType.UNVERIFIED),
        ]
    )
    e1, e2 = make_event("e1"), make_event("e2")
    log.write_extractions([make_extraction(e1, rejected=("quote_not_found", "secret_detected")),
                           make_extraction(e2, rejected=("quote_not_found",), claims=2)])
    s = log.stats()
    assert s["operations_total"] == 4
    assert s["contradictions_noted"] == 2 and s["supersedences"] == 1 and s["contradictions_resolved"] == 0
    day0 = T0.date().isoformat()
    assert {"day": day0, "op_type": "CONTRADICTION_NOTED", "count": 1} in s["operations_by_type_day"]
    conf = {c["epistemic_type"]: c for c in s["confidence_by_epistemic_type"]}
    assert conf["ASSERTED"]["nodes"] == 2
    assert conf["ASSERTED"]["mean"] == pytest.approx(0.35)
    assert conf["ASSERTED"]["deciles"][1] == 1 and conf["ASSERTED"]["deciles"][5] == 1
    assert conf["UNVERIFIED"]["nodes"] == 1
    assert s["extraction"]["rejection_reasons"] == {"quote_not_found": 2, "secret_detected": 1}
    assert s["extraction"]["claims_accepted"] == 3
    assert log.stats(owner="bob")["operations_total"] == 0


def test_data_survives_reopening_the_engine(chdb_path: Path, chdb_database: str) -> None:
    with OperationLog.connect(path=chdb_path, database=chdb_database) as first:
        first.write_operations([make_op("event:a", 0)])
    with OperationLog.connect(path=chdb_path, database=chdb_database) as second:
        assert [o.caused_by for o in second.read_operations()] == ["event:a"]


_WRITE_AGAIN = """
import json, sys
sys.path.insert(0, {factories!r})
from sink_factories import make_op
from sinks.clickhouse import OperationLog
with OperationLog.connect(path={path!r}, database="lost") as log:
    log.write_operations([make_op(f"event:{{i}}", 0) for i in range(20)])
    paths = log.client.query("SELECT data_paths FROM system.tables WHERE database = 'lost' AND name = 'operations'")
    print(json.dumps({{"count": log.count("operations"), "paths": paths.result_rows[0][0]}}))
"""


def test_a_batch_whose_part_a_kill_lost_is_written_by_its_retry(tmp_path: Path) -> None:
    # A kill between ClickHouse recording a batch's block id (its deduplication log, written first)
    # and renaming the batch's part into place leaves the id without the rows. A retry of the same
    # batch must still store them: the log is the source of truth the indexes are checked against.
    script = _WRITE_AGAIN.format(factories=str(Path(__file__).parents[1] / "unit" / "sinks"), path=str(tmp_path))
    run = [sys.executable, "-c", script]
    first = json.loads(subprocess.run(run, capture_output=True, text=True, check=True, cwd=ROOT).stdout)
    assert first["count"] == 20
    parts = [p for d in first["paths"] for p in Path(d).iterdir() if re.fullmatch(r"\w+_\d+_\d+_\d+", p.name)]
    assert parts
    for part in parts:  # what the kill took: the part never reached its final name
        shutil.rmtree(part)
    again = json.loads(subprocess.run(run, capture_output=True, text=True, check=True, cwd=ROOT).stdout)
    assert again["count"] == 20
