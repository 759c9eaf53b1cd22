"""ClickHouse tables of the operation log, as versioned migrations.

One schema serves both transports (ClickHouse server over HTTP, chDB
in-process). Every table is a ReplacingMergeTree whose sorting key is fixed by
a derived id, so a row written twice collapses into one on merge and reads
with ``FINAL`` never see the duplicate. (The tables keep the
``non_replicated_deduplication_window`` their first migration gave them, but the
writers turn insert-time deduplication off: see ``sinks.clickhouse``.)

Migrations are append-only: an applied migration is never edited (its checksum
is recorded and checked), a change is a new migration.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from schemas.canonical import sha256_hex
from schemas.errors import IntegrityError, ValidationFailed

#: Insert-time dedup window (blocks remembered per table) for non-replicated tables.
DEDUP_WINDOW: Final = 10_000

_DB_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")

_SETTINGS = f"SETTINGS index_granularity = 8192, non_replicated_deduplication_window = {DEDUP_WINDOW}"


@dataclass(frozen=True)
class Migration:
    id: int
    name: str
    statements: tuple[str, ...]

    def render(self, database: str) -> list[str]:
        return [s.replace("{db}", database) for s in self.statements]

    @property
    def checksum(self) -> str:
        return sha256_hex("\n;\n".join(self.statements))


_M1 = Migration(
    1,
    "initial_tables",
    (
        f"""
        CREATE TABLE IF NOT EXISTS {{db}}.raw_events
        (
            event_id String,
            tenant_id LowCardinality(String),
            owner_id String,
            scope LowCardinality(String),
            scope_id String,
            conversation_id String,
            session_id String,
            role LowCardinality(String),
            speaker String,
            content String,
            content_sha256 String,
            occurred_at DateTime64(6, 'UTC'),
            recorded_at DateTime64(6, 'UTC'),
            metadata String,
            ingested_seq UInt64
        )
        ENGINE = ReplacingMergeTree
        PARTITION BY toYYYYMM(occurred_at)
        ORDER BY (tenant_id, owner_id, occurred_at, event_id)
        {_SETTINGS}
        """,
        f"""
        CREATE TABLE IF NOT EXISTS {{db}}.operations
        (
            op_id String,
            op_type LowCardinality(String),
            op_index UInt32,
            tenant_id LowCardinality(String),
            owner_id String,
            scope LowCardinality(String),
            scope_id String,
            target_id String,
            target_type LowCardinality(String),
            actor_id String,
            actor_type LowCardinality(String),
            caused_by String,
            request_id String,
            occurred_at DateTime64(6, 'UTC'),
            policy_version LowCardinality(String),
            checksum String,
            record String,
            INDEX idx_target target_id TYPE bloom_filter(0.01) GRANULARITY 4,
            INDEX idx_op_type op_type TYPE set(64) GRANULARITY 4
        )
        ENGINE = ReplacingMergeTree
        PARTITION BY toYYYYMM(occurred_at)
        ORDER BY (tenant_id, owner_id, occurred_at, op_id)
        {_SETTINGS}
        """,
        f"""
        CREATE TABLE IF NOT EXISTS {{db}}.node_snapshots
        (
            node_id String,
            version UInt64,
            tenant_id LowCardinality(String),
            owner_id String,
            scope LowCardinality(String),
            scope_id String,
            node_type LowCardinality(String),
            epistemic_type LowCardinality(String),
            lifecycle LowCardinality(String),
            subject String,
            predicate String,
            confidence Float64,
            updated_at DateTime64(6, 'UTC'),
            node String
        )
        ENGINE = ReplacingMergeTree
        PARTITION BY toYYYYMM(updated_at)
        ORDER BY (tenant_id, owner_id, node_id, version)
        {_SETTINGS}
        """,
        f"""
        CREATE TABLE IF NOT EXISTS {{db}}.extraction_journal
        (
            event_id String,
            tenant_id LowCardinality(String),
            owner_id String,
            scope LowCardinality(String),
            scope_id String,
            extractor LowCardinality(String),
            version LowCardinality(String),
            model LowCardinality(String),
            status LowCardinality(String),
            error_category LowCardinality(String),
            accepted UInt32,
            rejected UInt32,
            rejection_codes Array(LowCardinality(String)),
            occurred_at DateTime64(6, 'UTC'),
            recorded_at DateTime64(6, 'UTC'),
            result String
        )
        ENGINE = ReplacingMergeTree
        PARTITION BY toYYYYMM(occurred_at)
        ORDER BY (tenant_id, owner_id, occurred_at, event_id, extractor, version)
        {_SETTINGS}
        """,
        f"""
        CREATE TABLE IF NOT EXISTS {{db}}.dead_letters
        (
            dlq_id String,
            source LowCardinality(String),
            partition Nullable(Int32),
            offset Nullable(Int64),
            reason_code LowCardinality(String),
            message String,
            original_bytes String,
            received_at DateTime64(6, 'UTC')
        )
        ENGINE = ReplacingMergeTree(received_at)
        PARTITION BY toYYYYMM(received_at)
        ORDER BY (source, dlq_id)
        {_SETTINGS}
        """,
    ),
)

#: ``tenant/owner/scope[:scope_id]``: the Kafka partition key, the "stream" of PRME-FACTS 5.1/5.2.
_STREAM_SQL = "concat(tenant_id, '/', owner_id, '/', scope, if(scope_id = '', '', concat(':', scope_id)))"

#: Migration 2 adds the PRME-FACTS 5.1/5.2/5.6 columns the first schema lacked, each derived from
#: what the row already holds (DEFAULT expressions: filled on insert and for rows written before
#: this migration, so no writer had to change and old logs read back complete). Not added: the
#: RFC's per-stream ``sequence_num``/``prev_hash`` hash chain. Every operation already carries the
#: SHA-256 of its canonical record and every event the SHA-256 of its original content; chaining
#: rows would need a read of the stream's head before every insert (chDB's per-query cost is the
#: stream's bottleneck) or per-partition heads in the workers' state, and two owners of a partition
#: during a rebalance would fork the chain.
_M2 = Migration(
    2,
    "spec_columns",
    (
        f"ALTER TABLE {{db}}.raw_events ADD COLUMN IF NOT EXISTS stream String DEFAULT {_STREAM_SQL}",
        "ALTER TABLE {db}.raw_events ADD COLUMN IF NOT EXISTS actor_id String DEFAULT if(speaker = '', role, speaker)",
        "ALTER TABLE {db}.raw_events ADD COLUMN IF NOT EXISTS actor_type LowCardinality(String) DEFAULT"
        " transform(role, ['user', 'human', 'participant', 'assistant', 'system', 'tool'],"
        " ['HUMAN_USER', 'HUMAN_USER', 'HUMAN_USER', 'AI_AGENT', 'SYSTEM_PROCESS', 'EXTERNAL_CONNECTOR'],"
        " 'HUMAN_USER')",
        "ALTER TABLE {db}.raw_events ADD COLUMN IF NOT EXISTS content_hash String ALIAS content_sha256",
        "ALTER TABLE {db}.operations ADD COLUMN IF NOT EXISTS payload String"
        " DEFAULT JSONExtractRaw(record, 'payload')",
        f"ALTER TABLE {{db}}.operations ADD COLUMN IF NOT EXISTS stream String DEFAULT {_STREAM_SQL}",
        "ALTER TABLE {db}.extraction_journal ADD COLUMN IF NOT EXISTS content_sha256 String"
        " DEFAULT JSONExtractString(result, 'event', 'content_sha256')",
        "ALTER TABLE {db}.extraction_journal ADD COLUMN IF NOT EXISTS grounding_policy_version LowCardinality(String)"
        " DEFAULT JSONExtractString(result, 'grounding_policy_version')",
        "ALTER TABLE {db}.extraction_journal ADD COLUMN IF NOT EXISTS schema_version UInt16"
        " DEFAULT JSONExtractUInt(result, 'schema_version')",
    ),
)

#: Migration 3: retrieval receipts, one row per retrieval (PRME-FACTS 5.3 RETRIEVAL_REQUEST, 10
#: ``GET /v1/retrievals/{request_id}``). A table of its own rather than rows of ``operations``: a
#: retrieval changes no state, so replay must never fold it, and the hot write path of the log stays
#: free of read traffic. ``request_id`` is the receipt id; ``included*`` and ``excluded*`` are parallel
#: arrays (bundle order; the response's exclusion order).
_M3 = Migration(
    3,
    "retrieval_requests",
    (
        f"""
        CREATE TABLE IF NOT EXISTS {{db}}.retrieval_requests
        (
            request_id String,
            tenant_id LowCardinality(String),
            owner_id String,
            scope LowCardinality(String),
            scope_id String,
            actor_id String,
            mode LowCardinality(String),
            query_intent LowCardinality(String),
            query String,
            reference_time DateTime64(6, 'UTC'),
            received_at DateTime64(6, 'UTC'),
            candidates_generated UInt32,
            candidates_after_filter UInt32,
            included Array(String),
            included_versions Array(UInt64),
            included_scores Array(Float64),
            included_in_context Array(UInt8),
            excluded Array(String),
            excluded_reasons Array(String),
            excluded_stages Array(LowCardinality(String)),
            excluded_kept Array(UInt8),
            tokens_used Int64,
            token_budget Int64,
            embedding_model LowCardinality(String),
            embedding_version LowCardinality(String),
            embedding_mismatch Bool,
            warnings Array(LowCardinality(String)),
            context_sha256 String,
            request_fingerprint String,
            INDEX idx_request request_id TYPE bloom_filter(0.01) GRANULARITY 4
        )
        ENGINE = ReplacingMergeTree
        PARTITION BY toYYYYMM(received_at)
        ORDER BY (tenant_id, owner_id, received_at, request_id)
        {_SETTINGS}
        """,
    ),
)

#: The receipts table of migration 3 (not in ``TABLES``: those are the log replay and provenance read).
RECEIPTS_TABLE: Final = "retrieval_requests"

TABLES: Final = ("raw_events", "operations", "node_snapshots", "extraction_journal", "dead_letters")

#: Migration 4: ZSTD for the columns that hold whole JSON documents or message text. With LZ4, the
#: default, a 10,000-message ingest stored 10.5 MB of operations, 1.7 MB of node snapshots and 1.6 MB
#: of extraction journal; with ZSTD(1) 7.2, 1.1 and 0.9 MB (-32..-45%) — an append-only log only
#: grows. Ingest speed did not move beyond the 2-core machine's noise (interleaved no-op runs: +4%
#: and -2.5% means over six pairs each). Only the codec changes: existing parts keep LZ4 until a
#: merge rewrites them, and every read works on both.
_ZSTD_COLUMNS: Final = (
    ("raw_events", "content"),
    ("operations", "record"),
    ("operations", "payload"),
    ("node_snapshots", "node"),
    ("extraction_journal", "result"),
)
_M4 = Migration(
    4,
    "zstd_documents",
    tuple(f"ALTER TABLE {{db}}.{table} MODIFY COLUMN {column} CODEC(ZSTD(1))" for table, column in _ZSTD_COLUMNS),
)

#: Migration 5: parts of up to 128 MiB (uncompressed) are written and merged in the compact format,
#: one data file for all columns, instead of two files per column from 10 MiB up (the default). A log
#: is written in many small inserts whose merges produce parts of tens of MiB: as wide parts each
#: merge created dozens of files, and on this machine's ext4 disk file creation is a large share of
#: an insert's CPU (a chDB insert cost 10-16 ms of CPU on disk against 3-4 ms on tmpfs). Interleaved
#: no-op ingests (10,000 messages, every part below either threshold tried, 128 MiB and 1 GiB):
#: 2,562 against 2,469 messages/s (+4%, five of six pairs faster) and -5% process CPU. Large
#: parts of a server deployment still become wide, where column-pruned analytic scans need them.
_WIDE_PART_BYTES: Final = 128 * 1024 * 1024
_M5 = Migration(
    5,
    "compact_parts_up_to_128mib",
    tuple(
        f"ALTER TABLE {{db}}.{table} MODIFY SETTING min_bytes_for_wide_part = {_WIDE_PART_BYTES}"
        for table in (*TABLES, RECEIPTS_TABLE)
    ),
)

#: Migration 6: what a message's excerpt needs beyond its content: the speaker's id as the platform
#: gives it, the attachments (kind and caption, as JSON; their text is part of what was said) and the
#: sender's UTC offset (relative dates in the text are the sender's days). Rows written before it read
#: back with no speaker id, no attachments and an unknown offset.
_M6 = Migration(
    6,
    "excerpt_columns",
    (
        "ALTER TABLE {db}.raw_events ADD COLUMN IF NOT EXISTS speaker_id String DEFAULT ''",
        "ALTER TABLE {db}.raw_events ADD COLUMN IF NOT EXISTS attachments String DEFAULT '[]' CODEC(ZSTD(1))",
        "ALTER TABLE {db}.raw_events ADD COLUMN IF NOT EXISTS utc_offset_minutes Nullable(Int16)",
    ),
)

#: Migration 7: dead letters keep masked bytes, never the original (which may hold a credential):
#: the bytes column is renamed for what it holds, the original's SHA-256 and length are added, and
#: rows written before (which held original bytes) keep only their digest and length — their bytes
#: are cleared, since SQL cannot mask them; ``source``/``partition``/``offset`` still say where the
#: original can be re-read while its source retains it.
_M7 = Migration(
    7,
    "dead_letters_masked",
    (
        "ALTER TABLE {db}.dead_letters RENAME COLUMN IF EXISTS original_bytes TO masked_bytes",
        "ALTER TABLE {db}.dead_letters ADD COLUMN IF NOT EXISTS original_sha256 String DEFAULT ''",
        "ALTER TABLE {db}.dead_letters ADD COLUMN IF NOT EXISTS original_length UInt64 DEFAULT 0",
        "ALTER TABLE {db}.dead_letters UPDATE original_sha256 = lower(hex(SHA256(masked_bytes))),"
        " original_length = length(masked_bytes), masked_bytes = '' WHERE original_sha256 = ''"
        " SETTINGS mutations_sync = 2",
    ),
)

#: Migration 8: content sealed under per-event data keys (``sinks.sealing``) so erasure can shred it.
#: ``data_keys`` holds the keys (erasure deletes rows and rewrites parts), ``erased_keys`` the ids of the
#: destroyed ones (never key material), ``erasures`` the receipts. ``operations.stored_sha256`` is the
#: SHA-256 of the stored (sealed) record, verifiable without keys; ``resealed_from`` the SHA-256 of the
#: record a re-seal replaced (migration 9). ``sealed_key`` names the key of a row's sealed columns ('' for
#: a row written before). node_snapshots gain the evidence they cite (ids), so an erasure finds them.
_M8 = Migration(
    8,
    "sealed_content",
    (
        f"""
        CREATE TABLE IF NOT EXISTS {{db}}.data_keys
        (
            key_id String,
            tenant_id LowCardinality(String),
            owner_id String,
            unit String,
            created_at DateTime64(6, 'UTC'),
            key String
        )
        ENGINE = ReplacingMergeTree
        PARTITION BY toYYYYMM(created_at)
        ORDER BY (tenant_id, owner_id, unit, key_id)
        {_SETTINGS}
        """,
        """
        CREATE TABLE IF NOT EXISTS {db}.erased_keys
        (
            key_id String,
            erasure_id String,
            erased_at DateTime64(6, 'UTC')
        )
        ENGINE = ReplacingMergeTree
        PARTITION BY toYYYYMM(erased_at)
        ORDER BY key_id
        """,
        """
        CREATE TABLE IF NOT EXISTS {db}.erasures
        (
            erasure_id String,
            tenant_id LowCardinality(String),
            scope_key String,
            requested_by String,
            request_id String,
            completed_at DateTime64(6, 'UTC'),
            receipt String
        )
        ENGINE = ReplacingMergeTree
        PARTITION BY toYYYYMM(completed_at)
        ORDER BY (tenant_id, erasure_id)
        """,
        "ALTER TABLE {db}.operations ADD COLUMN IF NOT EXISTS stored_sha256 String DEFAULT ''",
        "ALTER TABLE {db}.operations ADD COLUMN IF NOT EXISTS resealed_from String DEFAULT ''",
        "ALTER TABLE {db}.raw_events ADD COLUMN IF NOT EXISTS sealed_key String DEFAULT ''",
        "ALTER TABLE {db}.extraction_journal ADD COLUMN IF NOT EXISTS sealed_key String DEFAULT ''",
        "ALTER TABLE {db}.retrieval_requests ADD COLUMN IF NOT EXISTS sealed_key String DEFAULT ''",
        "ALTER TABLE {db}.node_snapshots ADD COLUMN IF NOT EXISTS evidence_refs Array(String) DEFAULT []",
    ),
)

#: Migration 9 re-seals the rows written before migration 8 (their content in the clear), once: a data
#: migration run by ``OperationLog.migrate`` (``sinks.clickhouse.reseal_plaintext``), recorded here when done.
_M9 = Migration(9, "reseal_plaintext_rows", ())

#: Migration 10 turns insert-time deduplication off. ClickHouse writes a block's id to the table's
#: deduplication log before it renames the block's part into place, so a process killed between the
#: two leaves the id without the rows, and the retry of that batch (the same rows, the same id) was
#: dropped as a repeat: rows lost from the log while the indexes, written after it, held them.
#: Repeats still collapse by the ReplacingMergeTree keys, and every exact read uses ``FINAL``.
#: (``insert_deduplicate = 0`` per insert does not stop it on chDB 4.4: the table setting does.)
_M10 = Migration(
    10,
    "no_insert_deduplication",
    tuple(
        f"ALTER TABLE {{db}}.{table} MODIFY SETTING non_replicated_deduplication_window = 0"
        for table in (*TABLES, RECEIPTS_TABLE, "data_keys")
    ),
)

#: Migration 11: who may read an event's claims across owners (``schemas.visibility``); rows written
#: before it are private ('').
_M11 = Migration(
    11,
    "event_visibility",
    ("ALTER TABLE {db}.raw_events ADD COLUMN IF NOT EXISTS visibility LowCardinality(String) DEFAULT ''",),
)

MIGRATIONS: Final[tuple[Migration, ...]] = (_M1, _M2, _M3, _M4, _M5, _M6, _M7, _M8, _M9, _M10, _M11)
#: Tables that hold content sealed under data keys, or keys (what an erasure rewrites).
SEALED_TABLES: Final = ("raw_events", "operations", "node_snapshots", "extraction_journal", "dead_letters",
                        RECEIPTS_TABLE, "data_keys")  # fmt: skip



def check_database_name(database: str) -> str:
    """Database names are interpolated into DDL, so only plain identifiers pass."""
    if not _DB_RE.fullmatch(database):
        raise ValidationFailed("database name must be a plain identifier", code="invalid_database_name")
    return database


def _ensure_migrations_table(client: Any, database: str) -> None:
    client.command(f"CREATE DATABASE IF NOT EXISTS {database}")
    client.command(
        f"""
        CREATE TABLE IF NOT EXISTS {database}.schema_migrations
        (
            id UInt32,
            name String,
            checksum String,
            applied_at DateTime64(6, 'UTC')
        )
        ENGINE = ReplacingMergeTree
        ORDER BY id
        """
    )


def applied_migrations(client: Any, database: str) -> dict[int, str]:
    """``id -> checksum`` of the migrations recorded in ``schema_migrations``."""
    check_database_name(database)
    _ensure_migrations_table(client, database)
    rows = client.query(f"SELECT id, any(checksum) FROM {database}.schema_migrations GROUP BY id").result_rows
    return {int(r[0]): str(r[1]) for r in rows}


def rewrite_table(client: Any, database: str, table: str) -> None:
    """Copy ``table`` into a new table of the same definition, swap the two, and drop the old one at once.

    What erasure needs and ``OPTIMIZE ... FINAL`` does not give: every part that ever held a deleted row
    (and the table's mutation files) gone from disk now, not after ``old_parts_lifetime``. ``EXCHANGE``
    is atomic (an Atomic database, the default of ClickHouse and chDB): a crash leaves either table
    whole. The caller keeps writers of this table out while it runs (one writer per data directory).
    """
    name = f"{database}.{table}"
    spare = f"{database}.{table}__rewrite"
    engine = client.command(
        "SELECT engine FROM system.tables WHERE database = {db:String} AND name = {t:String}",
        parameters={"db": database, "t": table},
    )
    # A replacing table holds superseded rows until a merge (a re-sealed row's plaintext original): FINAL
    # copies only the rows that stand, so the copy never brings a replaced one back.
    final = " FINAL" if "Replacing" in str(engine) else ""
    client.command(f"DROP TABLE IF EXISTS {spare} SYNC")
    client.command(f"CREATE TABLE {spare} AS {name}")
    client.command(f"INSERT INTO {spare} SELECT * FROM {name}{final}", settings={"async_insert": 0})
    client.command(f"EXCHANGE TABLES {name} AND {spare}")
    client.command(f"DROP TABLE {spare} SYNC")


def migrate(
    client: Any,
    database: str,
    migrations: Sequence[Migration] = MIGRATIONS,
    *,
    now: datetime | None = None,
    steps: dict[int, Callable[[], object]] | None = None,
) -> list[int]:
    """Apply the migrations not yet recorded, in id order; return the ids applied.

    Safe to run any number of times and after a crash half-way through a
    migration: every statement is ``IF NOT EXISTS`` and the migration is
    recorded only after all its statements ran. A recorded migration whose
    definition changed since is an error, never silently re-applied.
    """
    check_database_name(database)
    done = applied_migrations(client, database)
    applied: list[int] = []
    for migration in sorted(migrations, key=lambda m: m.id):
        recorded = done.get(migration.id)
        if recorded is not None:
            if recorded != migration.checksum:
                raise IntegrityError(
                    "an applied migration was changed; add a new migration instead",
                    code="migration_changed",
                    migration_id=migration.id,
                )
            continue
        for statement in migration.render(database):
            client.command(statement)
        step = (steps or {}).get(migration.id)
        if step is not None:  # a data migration (Python): recorded only once it has run to the end
            step()
        client.insert(
            f"{database}.schema_migrations",
            [[migration.id, migration.name, migration.checksum, now or datetime.now(UTC)]],
            column_names=["id", "name", "checksum", "applied_at"],
        )
        applied.append(migration.id)
    return applied


def schema_version(client: Any, database: str) -> int:
    done = applied_migrations(client, database)
    return max(done, default=0)
