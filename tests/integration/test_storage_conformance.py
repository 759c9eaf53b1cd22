"""Storage against the contract: PRME-FACTS section 5 and issue 5 (ClickHouse log, OpenSearch mapping).

Expected values come from the spec text: column names and meanings (5.1, 5.2, 5.6), SHA-256 of the
exact content, the actor and stream of each event, the payload of each operation,
ReplacingMergeTree on derived ids, monthly partitions, and an
English-analysed / keyword / date / Lucene-HNSW-cosine index mapping. ClickHouse is real chDB;
OpenSearch is the running cluster (each test makes and deletes its own alias).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opensearchpy import OpenSearch
from sink_factories import at, make_event, make_extraction, make_op
from test_opensearch_support import drop_alias, opensearch_client, unique_alias

from extractors.secrets.admission import mask_event
from schemas.enums import ActorType, Role, Scope
from sinks.clickhouse import _EVENT_COLUMNS, OperationLog
from sinks.clickhouse_schema import MIGRATIONS, TABLES, migrate
from sinks.opensearch_mapping import ensure_index

pytestmark = pytest.mark.integration

EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
PERSONAL = "t1/alice/personal"


@pytest.fixture
def log(chdb_path: Path, chdb_database: str) -> Iterator[OperationLog]:
    oplog = OperationLog.connect(path=chdb_path, database=chdb_database)
    yield oplog
    oplog.close()


def _columns(log: OperationLog, table: str) -> dict[str, str]:
    rows = log.client.query(
        "SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {t:String}",
        parameters={"db": log.database, "t": table},
    ).result_rows
    return {str(n): str(t) for n, t in rows}


def _table(log: OperationLog, table: str) -> dict[str, str]:
    row = log.client.query(
        "SELECT engine, partition_key, sorting_key FROM system.tables WHERE database = {db:String}"
        " AND name = {t:String}",
        parameters={"db": log.database, "t": table},
    ).result_rows[0]
    return {"engine": row[0], "partition_key": row[1], "sorting_key": row[2]}


def _sql(log: OperationLog, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in log.client.query(sql.replace("{db}", log.database), parameters=params).result_rows]


# ------------------------------------------------------------------ ClickHouse: tables, engines, keys


def test_every_table_replaces_on_its_derived_id_and_is_partitioned_by_month(log: OperationLog) -> None:
    expected = {
        "raw_events": ("occurred_at", "event_id"),
        "operations": ("occurred_at", "op_id"),
        "node_snapshots": ("updated_at", "node_id"),
        "extraction_journal": ("occurred_at", "event_id"),
        "dead_letters": ("received_at", "dlq_id"),
    }
    assert set(TABLES) == set(expected)  # raw events, operations, node snapshots, journals, dead letters
    for table, (time_col, id_col) in expected.items():
        info = _table(log, table)
        assert info["engine"] == "ReplacingMergeTree", table
        assert info["partition_key"] == f"toYYYYMM({time_col})", table
        assert id_col in [k.strip() for k in info["sorting_key"].split(",")], table


def test_the_log_tables_are_ordered_per_tenant_owner_and_time(log: OperationLog) -> None:
    for table in ("raw_events", "operations", "extraction_journal"):
        key = [k.strip() for k in _table(log, table)["sorting_key"].split(",")]
        assert key[:3] == ["tenant_id", "owner_id", "occurred_at"], table
    # Per-op-type analytics: op_type is not in the sort key, so a skip index must cover it.
    indices = _sql(
        log,
        "SELECT name, expr FROM system.data_skipping_indices WHERE database = {db:String} AND table = 'operations'",
        db=log.database,
    )
    assert any(expr == "op_type" for _, expr in indices)


def test_rows_of_different_months_land_in_different_partitions(log: OperationLog) -> None:
    log.write_operations([make_op("event:jan", 0, when=at(days=0)), make_op("event:feb", 0, when=at(days=31))])
    parts = _sql(
        log,
        "SELECT DISTINCT partition FROM system.parts WHERE database = {db:String} AND table = 'operations'"
        " AND active ORDER BY partition",
        db=log.database,
    )
    assert [p[0] for p in parts] == ["202601", "202602"]


def test_the_migration_history_is_append_only_and_numbered_from_one(log: OperationLog) -> None:
    assert [m.id for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))
    assert len({m.checksum for m in MIGRATIONS}) == len(MIGRATIONS)
    assert log.migrate() == []


# ------------------------------------------------------------------ ClickHouse: the event table (5.1)


def test_event_table_has_every_column_of_the_spec(log: OperationLog) -> None:
    cols = _columns(log, "raw_events")
    # RFC-0002 columns (id, ts, namespace_id are event_id, occurred_at/recorded_at, scope+scope_id)
    # (the RFC's sequence_num/prev_hash hash chain is not kept: see migration 2 in sinks/clickhouse_schema.py)
    for name in ("event_id", "stream", "actor_id", "actor_type", "role", "scope", "scope_id", "content",
                 "content_hash", "metadata"):
        assert name in cols, name
    # code additions: user (owner), session, event time and admission time
    for name in ("owner_id", "session_id", "occurred_at", "recorded_at"):
        assert name in cols, name
    assert cols["occurred_at"] == "DateTime64(6, 'UTC')"  # microseconds, UTC
    assert cols["recorded_at"] == "DateTime64(6, 'UTC')"


def test_content_hash_is_sha256_of_the_exact_content_even_when_stored_masked(log: OperationLog) -> None:
    text = "  my key is sk-SECRETabcdefghijklmnop0123456789 \n"
    log.write_events([mask_event(make_event("e1", text)), make_event("e2", "")])  # as admission hands them over
    rows = dict(_sql(log, "SELECT event_id, content_hash FROM {db}.raw_events"))
    assert rows["e1"] == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert rows["e2"] == EMPTY_SHA256  # empty content hashes the empty byte string
    (stored,) = log.get_events(["e1"], "t1", "alice")
    assert stored.content == "  my key is [REDACTED:api_key] \n"  # masked, and stored sealed:
    ((sealed,),) = _sql(log, "SELECT content FROM {db}.raw_events WHERE event_id = 'e1'")
    assert "my key" not in sealed and "REDACTED" not in sealed


def test_event_actor_columns_follow_the_role(log: OperationLog) -> None:
    log.write_events(
        [
            make_event("u", speaker="alice"),
            make_event("a", role=Role.ASSISTANT, speaker=None),
            make_event("s", role=Role.SYSTEM, speaker=None),
        ]
    )
    rows = {r[0]: r[1:] for r in _sql(log, "SELECT event_id, actor_id, actor_type FROM {db}.raw_events")}
    assert rows["u"] == ("alice", ActorType.HUMAN_USER.value)
    assert rows["a"] == ("assistant", ActorType.AI_AGENT.value)
    assert rows["s"] == ("system", ActorType.SYSTEM_PROCESS.value)


def test_the_stored_actor_type_of_every_role_is_the_engines(log: OperationLog) -> None:
    """The column's SQL mapping and schemas.roles must not drift apart (a new role would)."""
    from schemas.roles import actor_type_for_role

    log.write_events([make_event(f"r-{role.value}", role=role, speaker=None) for role in Role])
    rows = dict(_sql(log, "SELECT event_id, actor_type FROM {db}.raw_events"))
    assert rows == {f"r-{role.value}": actor_type_for_role(role).value for role in Role}


# ------------------------------------------------------------------ ClickHouse: the operation table (5.2)


def test_operation_table_has_every_column_of_the_spec(log: OperationLog) -> None:
    cols = _columns(log, "operations")
    for name in ("op_id", "occurred_at", "op_type", "actor_id", "actor_type", "scope", "scope_id", "target_id",
                 "target_type", "payload", "policy_version", "stream"):
        assert name in cols, name
    assert cols["occurred_at"] == "DateTime64(6, 'UTC')"


def test_operation_payload_column_is_the_json_payload(log: OperationLog) -> None:
    op = make_op("event:a", 0, payload={"reason": "user_request", "policy_ref": "p1", "n": 2})
    log.write_operations([op])
    ((payload, policy, target_type),) = _sql(log, "SELECT payload, policy_version, target_type FROM {db}.operations")
    # the column holds the payload as stored: sealed under its data key (sinks.sealing); read, it opens
    assert set(json.loads(payload)) == {"sealed", "c"} and "user_request" not in payload
    assert log.read_operations()[0].payload == {"reason": "user_request", "policy_ref": "p1", "n": 2}
    assert policy == "test_v1"
    assert target_type == "node"


# ------------------------------------------------------------------ ClickHouse: journals (5.6)


def test_extraction_journal_holds_provider_model_versions_owner_scope_and_content_hash(log: OperationLog) -> None:
    event = make_event("e1", "I like green tea", scope=Scope.PROJECT, scope_id="apollo")
    empty = make_extraction(make_event("e2", "hello"), claims=0)
    log.write_extractions([make_extraction(event).model_copy(update={"model": "m-small"}), empty])
    rows = {
        r[0]: r[1:]
        for r in _sql(
            log,
            "SELECT event_id, extractor, model, grounding_policy_version, schema_version, owner_id, scope, scope_id,"
            " content_sha256, accepted FROM {db}.extraction_journal",
        )
    }
    sha = hashlib.sha256(b"I like green tea").hexdigest()
    assert rows["e1"] == ("rules", "m-small", "g1", 1, "alice", "project", "apollo", sha, 1)
    assert rows["e2"][-1] == 0  # empty results are recorded too


# ------------------------------------------------------------------ ClickHouse: upgrading a version-1 log


def test_a_version_1_log_upgrades_in_place_and_keeps_its_data_readable(chdb_path: Path, chdb_database: str) -> None:
    with OperationLog.connect(path=chdb_path, database=chdb_database, run_migrations=False) as log:
        assert migrate(log.client, log.database, MIGRATIONS[:1]) == [1]
        old_event = make_event("old", "before the upgrade")
        old_op = make_op("event:old", 0, payload={"reason": "legacy"})
        v1_event_cols = ["event_id", "tenant_id", "owner_id", "scope", "scope_id", "conversation_id", "session_id",
                         "role", "speaker", "content", "content_sha256", "occurred_at", "recorded_at", "metadata",
                         "ingested_seq"]
        log.client.insert(
            f"{log.database}.raw_events",
            [["old", "t1", "alice", "personal", "", "c1", "s1", "user", "alice", old_event.content,
              old_event.content_sha256, old_event.occurred_at, old_event.recorded_at, "{}", 0]],
            column_names=v1_event_cols,
        )
        log.client.insert(
            f"{log.database}.operations",
            [[old_op.op_id, "ASSERT", 0, "t1", "alice", "personal", "", old_op.target_id, "node", "alice",
              "HUMAN_USER", old_op.caused_by, "", old_op.occurred_at, old_op.policy_version, old_op.checksum,
              old_op.canonical()]],
            column_names=["op_id", "op_type", "op_index", "tenant_id", "owner_id", "scope", "scope_id", "target_id",
                          "target_type", "actor_id", "actor_type", "caused_by", "request_id", "occurred_at",
                          "policy_version", "checksum", "record"],
        )
        assert log.migrate() == [m.id for m in MIGRATIONS[1:]]
        # old rows read back as before, with the derivable new columns filled in
        assert [e.content for e in log.get_events(["old"], "t1", "alice")] == ["before the upgrade"]
        assert log.read_operations() == [old_op]
        # migration 9 re-sealed the old rows once: content only as ciphertext, the record's old checksum
        # still verifiable (the operation's own, inside the sealed record) and the old bytes' SHA-256 beside the new
        ((payload, record, stored, resealed_from),) = _sql(
            log, "SELECT payload, record, stored_sha256, resealed_from FROM {db}.operations FINAL")
        assert set(json.loads(payload)) == {"sealed", "c"} and "legacy" not in record
        assert resealed_from == hashlib.sha256(old_op.canonical().encode()).hexdigest()
        assert stored == hashlib.sha256(record.encode()).hexdigest() and stored != resealed_from
        assert log.read_operations()[0].checksum == old_op.checksum
        assert "before the upgrade" not in str(_sql(log, "SELECT * FROM {db}.raw_events"))
        assert _sql(log, "SELECT stream, actor_type FROM {db}.raw_events") == [(PERSONAL, "HUMAN_USER")]
        # rows written after the upgrade get the same derived columns
        log.write_events([make_event("new", occurred_at=at(days=1))])
        log.write_operations([make_op("event:new", 0, when=at(days=1), payload={"reason": "fresh"})])
        assert _sql(log, "SELECT event_id, stream FROM {db}.raw_events ORDER BY event_id") == [
            ("new", PERSONAL), ("old", PERSONAL)
        ]
        assert sorted(op.payload["reason"] for op in log.read_operations()) == ["fresh", "legacy"]


def _codecs(log: OperationLog) -> dict[tuple[str, str], str]:
    rows = _sql(log, "SELECT table, name, compression_codec FROM system.columns WHERE database = {db:String}",
                db=log.database)
    return {(str(t), str(n)): str(c) for t, n, c in rows}


DOCUMENT_COLUMNS = [("raw_events", "content"), ("operations", "record"), ("operations", "payload"),
                    ("node_snapshots", "node"), ("extraction_journal", "result")]


def test_documents_and_message_text_are_stored_with_zstd(log: OperationLog) -> None:
    codecs = _codecs(log)
    assert {c: codecs[c] for c in DOCUMENT_COLUMNS} == {c: "CODEC(ZSTD(1))" for c in DOCUMENT_COLUMNS}
    assert codecs[("operations", "op_id")] == ""  # keys and small columns keep the default


def test_log_parts_stay_compact_up_to_128_mib(log: OperationLog) -> None:
    # ~14 MiB of records in one insert: above the 10 MiB at which ClickHouse would write a wide part
    log.write_operations([make_op(f"event:{i}", 0, payload={"n": i, "pad": "x" * 700_000}) for i in range(20)])
    for table in [*TABLES, "retrieval_requests"]:
        [(engine_full,)] = _sql(log, "SELECT engine_full FROM system.tables WHERE database = {db:String}"
                                     " AND name = {t:String}", db=log.database, t=table)
        assert "min_bytes_for_wide_part = 134217728" in engine_full, table
    assert _sql(log, "SELECT DISTINCT part_type FROM system.parts WHERE database = {db:String}"
                     " AND table = 'operations' AND active", db=log.database) == [("Compact",)]


def test_a_version_3_log_moves_to_zstd_and_reads_its_lz4_rows(chdb_path: Path, chdb_database: str) -> None:
    with OperationLog.connect(path=chdb_path, database=chdb_database, run_migrations=False) as log:
        assert migrate(log.client, log.database, MIGRATIONS[:3]) == [1, 2, 3]
        assert _codecs(log)[("operations", "record")] == ""
        old_op = make_op("event:old", 0, payload={"reason": "before"})
        # the operation as the writer of that schema stored it: its canonical text in the clear
        log.client.insert(
            f"{log.database}.operations",
            [[old_op.op_id, "ASSERT", 0, "t1", "alice", "personal", "", old_op.target_id, "node", "alice",
              "HUMAN_USER", old_op.caused_by, "", old_op.occurred_at, old_op.policy_version, old_op.checksum,
              old_op.canonical()]],
            column_names=["op_id", "op_type", "op_index", "tenant_id", "owner_id", "scope", "scope_id", "target_id",
                          "target_type", "actor_id", "actor_type", "caused_by", "request_id", "occurred_at",
                          "policy_version", "checksum", "record"],
        )  # fmt: skip
        # a raw event as the writer of that schema stored it (today's writer needs migration 6's columns)
        old_event = make_event("old", "written with LZ4")
        log._insert("raw_events", list(_EVENT_COLUMNS[:15]), [[
            old_event.event_id, old_event.tenant_id, old_event.owner_id, old_event.scope.value, "", "", "",
            old_event.role.value, "", old_event.content, old_event.content_sha256, old_event.occurred_at,
            old_event.recorded_at, "{}", 0,
        ]])  # fmt: skip
        assert log.migrate() == [m.id for m in MIGRATIONS[3:]]
        assert all(_codecs(log)[c] == "CODEC(ZSTD(1))" for c in DOCUMENT_COLUMNS)
        new_op = make_op("event:new", 0, when=at(days=1), payload={"reason": "after"})
        log.write_operations([new_op])
        assert sorted(log.read_operations(), key=lambda o: o.op_id) == sorted([old_op, new_op], key=lambda o: o.op_id)
        assert [e.content for e in log.get_events(["old"], "t1", "alice")] == ["written with LZ4"]
        assert sorted(op.payload["reason"] for op in log.read_operations()) == ["after", "before"]



def test_migration_7_keeps_only_the_digest_and_length_of_dead_letters_written_with_original_bytes(
    chdb_path: Path, chdb_database: str
) -> None:
    raw = b'{"content": "my password is Hunter2-Tango!", "occurred_at": "2026-03-01T09:00:00"}'
    with OperationLog.connect(path=chdb_path, database=chdb_database, run_migrations=False) as log:
        assert migrate(log.client, log.database, MIGRATIONS[:6]) == [1, 2, 3, 4, 5, 6]
        log.client.insert(
            f"{log.database}.dead_letters",
            [["d-old", "conversation.events", 0, 7, "naive_timestamp", "", raw, at()]],
            column_names=["dlq_id", "source", "partition", "offset", "reason_code", "message", "original_bytes",
                          "received_at"],
        )  # fmt: skip
        assert log.migrate() == [m.id for m in MIGRATIONS[6:]]
        [letter] = log.list_dead_letters()
        assert letter.masked_bytes == b""  # SQL cannot mask them: the old bytes are cleared
        assert (letter.original_sha256, letter.original_length) == (hashlib.sha256(raw).hexdigest(), len(raw))
        assert (letter.source, letter.partition, letter.offset) == ("conversation.events", 0, 7)

# ------------------------------------------------------------------ OpenSearch: the node index mapping


@pytest.fixture(scope="module")
def os_client() -> OpenSearch:
    return opensearch_client()


@pytest.fixture
def alias(os_client: OpenSearch) -> Iterator[str]:
    name = unique_alias("it-conformance")
    yield name
    drop_alias(os_client, name)


def test_index_mapping_field_types_follow_the_issue(os_client: OpenSearch, alias: str) -> None:
    concrete = ensure_index(os_client, alias, dimension=8)
    assert concrete == f"{alias}-v1"  # versioned index behind the alias
    template = os_client.indices.get_index_template(name=f"{alias}-template")["index_templates"][0]
    assert template["index_template"]["index_patterns"] == [f"{alias}-v*"]
    props = os_client.indices.get_mapping(index=alias)[concrete]["mappings"]["properties"]
    for name in ("content", "subject", "object", "condition"):
        assert props[name]["type"] == "text" and props[name]["analyzer"] == "english", name
    for name in ("tenant_id", "owner_id", "scope", "epistemic_type", "source_type", "lifecycle", "condition_state",
                 "node_type"):
        assert props[name]["type"] == "keyword", name
    for name in ("valid_from", "valid_to", "recorded_at"):  # validity and event time
        assert props[name]["type"] == "date", name
    vec = props["embedding"]
    assert vec["type"] == "knn_vector"
    assert (vec["method"]["name"], vec["method"]["engine"], vec["method"]["space_type"]) == (
        "hnsw", "lucene", "cosinesimil"
    )


def test_text_fields_are_english_analysed_and_keyword_fields_are_exact(os_client: OpenSearch, alias: str) -> None:
    ensure_index(os_client, alias, dimension=8)
    for field in ("content", "subject", "object", "condition"):
        found = os_client.indices.analyze(index=alias, body={"field": field, "text": "The meetings were running"})
        tokens = [t["token"] for t in found["tokens"]]
        assert tokens == ["meet", "were", "run"], field  # stop word dropped, words stemmed
    found = os_client.indices.analyze(index=alias, body={"field": "tenant_id", "text": "The Tenant-1"})
    assert [t["token"] for t in found["tokens"]] == ["The Tenant-1"]
