"""The operation log, raw events and journals in ClickHouse (server or chDB).

Writers are idempotent projections: every row's ReplacingMergeTree key is a
derived id, so a row written twice collapses on merge. Inserts are never
deduplicated at insert time (schema migration 10): ClickHouse records a block's
id before its part is in place, so a process killed between the two would make
the retry of that batch a silent no-op and lose its rows. Every read that must be exact uses ``FINAL`` and, where
a key could legitimately differ between copies, ``LIMIT 1 BY`` the id, so a
re-inserted row never changes a result.

Provenance and replay read only ``raw_events`` and ``operations``; operations
are verified against their checksum on every read.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Final, NamedTuple

from engine.canonical_fast import canonical_bytes, canonical_text
from engine.erasure import event_unit, node_unit, owner_unit, payload_unit
from engine.fastjson import model_json
from schemas.claims import ExtractionResult
from schemas.enums import OpType, Role, Scope
from schemas.erasure import ErasureReceipt
from schemas.errors import (
    BackendUnavailable,
    ChecksumMismatch,
    IntegrityError,
    QueryRejected,
    StorageFull,
    ValidationFailed,
)
from schemas.events import Attachment, ConversationEvent
from schemas.nodes import Edge, MemoryNode
from schemas.operations import Operation, verify_operation
from schemas.records import DeadLetter, StoredEvent
from schemas.retrieval import Exclusion, ReceiptItem, RetrievalMode, RetrievalReceipt
from sinks.clickhouse_schema import RECEIPTS_TABLE, check_database_name, migrate, rewrite_table
from sinks.sealing import KeyStore, Sealer
from sinks.sql_guard import check_read_only
from sinks.storage import out_of_space

#: Rows per INSERT; one dedup token per chunk.
INSERT_CHUNK: Final = 20_000
#: Page size of streamed reads (bounded memory on replay).
READ_PAGE: Final = 5_000

_DT: Final = "DateTime64(6, 'UTC')"


#: The log's order (what ``LogCursor`` spells): replay and every paged read follow it.
_LOG_ORDER: Final = "ORDER BY occurred_at, caused_by, op_index, op_id"
#: Node ids searched for per query by :meth:`OperationLog.operations_naming`.
_NEEDLES: Final = 200


class LogCursor(NamedTuple):
    """Position in the log order ``(occurred_at, caused_by, op_index, op_id)``; reads resume after it."""

    occurred_at: datetime
    caused_by: str
    op_index: int
    op_id: str

    @classmethod
    def of(cls, op: Operation) -> LogCursor:
        return cls(op.occurred_at, op.caused_by, op.op_index, op.op_id)


def _attachments_json(event: ConversationEvent) -> str:
    """The attachments as stored: admission masked their text already."""
    if not event.attachments:
        return "[]"
    return canonical_text([a.model_dump(mode="json", exclude_none=True) for a in event.attachments])


def _event_place(tenant: str, owner: str, event_id: str) -> str:
    return f"event:{tenant}/{owner}/{event_id}"


def _open_event_row(sealer: Sealer, r: dict[str, Any]) -> dict[str, Any] | None:
    """A raw_events row with its sealed columns opened; None once the event is erased."""
    key_id = r.get("sealed_key") or ""
    if not key_id:
        return r
    plain = sealer.open_text(key_id, r["content"], _event_place(r["tenant_id"], r["owner_id"], r["event_id"]))
    if plain is None:
        return None
    values = json.loads(plain)
    return {**r, "content": values["content"], "metadata": values["metadata"], "attachments": values["attachments"]}


def _stored_event(r: dict[str, Any]) -> StoredEvent:
    offset = r.get("utc_offset_minutes")
    return StoredEvent(
        event_id=r["event_id"],
        tenant_id=r["tenant_id"],
        owner_id=r["owner_id"],
        scope=Scope(r["scope"]),
        scope_id=_none(r["scope_id"]),
        conversation_id=_none(r["conversation_id"]),
        session_id=_none(r["session_id"]),
        role=Role(r["role"]),
        speaker=_none(r["speaker"]),
        speaker_id=_none(r.get("speaker_id", "")),
        content=r["content"],
        content_sha256=r["content_sha256"],
        occurred_at=r["occurred_at"],
        recorded_at=r["recorded_at"],
        metadata=json.loads(r["metadata"]),
        ingested_seq=int(r["ingested_seq"]),
        attachments=tuple(Attachment.model_validate(a) for a in json.loads(r.get("attachments") or "[]")),
        utc_offset_minutes=None if offset is None else int(offset),
        visibility=_none(r.get("visibility") or ""),
    )


def chdb_engine_path(data_dir: str | os.PathLike[str]) -> Path:
    """Where the embedded engine keeps its files inside a data directory."""
    return Path(data_dir).resolve() / "chdb"


def parse_scope_key(scope_key: str) -> tuple[str, str]:
    """``"project:alpha"`` -> ``("project", "alpha")``; ``"personal"`` -> ``("personal", "")``."""
    scope, _, scope_id = scope_key.partition(":")
    try:
        return Scope(scope).value, scope_id
    except ValueError:
        raise ValidationFailed("unknown scope in scope key", code="invalid_scope_key") from None


def _opt(value: str | None) -> str:
    return value if value is not None else ""


def _none(value: str) -> str | None:
    return value or None


#: No insert-time deduplication (see the module docstring; on chDB the table setting of migration 10 is what
#: stops it): repeats collapse on merge and under FINAL.
_INSERT_SETTINGS: Final = {"insert_deduplicate": 0, "async_insert": 0}


class QueryRows(NamedTuple):
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool


def _engine_message(text: str) -> str:
    """The engine's one-line reason (``Code: N. DB::Exception: ...``) without the client's wrapping."""
    for line in text.splitlines():
        if "DB::Exception" in line:
            reason = line.split("DB::Exception:", 1)[1].strip()
            return reason[:300]
    return "the query could not be run"


class OperationLog:
    """Writer and reader of the ClickHouse tables for one database."""

    def __init__(self, client: Any, database: str = "epistream") -> None:
        self.client = client
        self.database = check_database_name(database)
        self._closed = False
        #: Column types per (table, columns), read from the server once: every
        #: later insert skips the DESCRIBE round trip.
        self._column_types: dict[tuple[str, tuple[str, ...]], Sequence[Any]] = {}
        #: Opens another client on the same backend (set by :meth:`connect`); see :meth:`clone`.
        self._reconnect: Callable[[], Any] | None = None
        #: Data keys and the sealing of content (``sinks.sealing``): every write seals, every read opens.
        self.keys = KeyStore(client, self.database)
        self.sealer = Sealer(self.keys)

    # ------------------------------------------------------------------ setup
    @classmethod
    def connect(
        cls,
        url: str | None = None,
        *,
        path: str | os.PathLike[str] | None = None,
        database: str = "epistream",
        run_migrations: bool = True,
    ) -> OperationLog:
        """Open a ClickHouse server (``url``: an http(s)/clickhouse DSN) or chDB under data dir ``path``.

        chDB allows one engine path per process: every OperationLog in a
        process must use the same ``path`` (separate them by ``database``).
        """
        import clickhouse_connect

        check_database_name(database)
        def open_client() -> Any:
            if url:
                return clickhouse_connect.get_client(dsn=url, tz_mode="aware")
            if path is None:
                raise ValidationFailed("either a ClickHouse URL or a data directory is needed", code="no_backend")
            engine = chdb_engine_path(path)
            engine.mkdir(parents=True, exist_ok=True)
            return clickhouse_connect.get_client(interface="chdb", path=str(engine), tz_mode="aware")

        try:
            client = open_client()
        except ValidationFailed:
            raise
        except Exception as exc:
            raise BackendUnavailable("cannot open the ClickHouse backend", reason=type(exc).__name__) from None
        log = cls(client, database)
        log._reconnect = open_client
        if run_migrations:
            log.migrate()
        return log

    def migrate(self) -> list[int]:
        return migrate(self.client, self.database, steps={9: self.reseal_plaintext})

    def clone(self) -> OperationLog:
        """Another log on the same backend and database with its own client (own chDB handle or HTTP
        session), for a thread that writes beside this log's owner without sharing its connection."""
        if self._reconnect is None:
            raise BackendUnavailable("this log was not opened by connect() and cannot be cloned", reason="no_dsn")
        try:
            client = self._reconnect()
        except Exception as exc:
            raise BackendUnavailable("cannot open the ClickHouse backend", reason=type(exc).__name__) from None
        twin = OperationLog(client, self.database)
        twin._reconnect = self._reconnect
        return twin

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.client.close()

    def __enter__(self) -> OperationLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _t(self, table: str) -> str:
        return f"{self.database}.{table}"

    def _insert(self, table: str, columns: list[str], rows: list[list[Any]]) -> int:
        """Insert in chunks (a repeated row is collapsed by its key, never dropped at insert time)."""
        try:
            return self._insert_chunks(table, columns, rows)
        except Exception as exc:
            if out_of_space(exc):
                raise StorageFull("no space left for the operation log", table=table) from None
            raise

    def _insert_chunks(self, table: str, columns: list[str], rows: list[list[Any]]) -> int:
        key = (table, tuple(columns))
        for start in range(0, len(rows), INSERT_CHUNK):
            chunk = rows[start : start + INSERT_CHUNK]
            types = self._column_types.get(key)
            if types is None:
                context = self.client.create_insert_context(self._t(table), columns, settings=_INSERT_SETTINGS)
                self._column_types[key] = context.column_types
                self.client.insert(data=chunk, context=context)
            else:
                self.client.insert(
                    self._t(table), chunk, column_names=columns, column_types=types, settings=_INSERT_SETTINGS
                )
        return len(rows)

    # ----------------------------------------------------------------- writes
    def write_events(
        self,
        events: Sequence[ConversationEvent],
        *,
        seqs: Sequence[int] | None = None,
    ) -> int:
        """Store raw events as admission left them (secrets masked); the hash is of the original content."""
        if seqs is not None and len(seqs) != len(events):
            raise ValidationFailed("seqs must match events", code="invalid_batch")
        order = sorted(range(len(events)), key=lambda i: events[i].event_id)
        rows: list[list[Any]] = []
        sealer = self.sealer
        sealer.prepare(event_unit(e.tenant_id, e.owner_id, e.event_id) for e in events)
        for i in order:
            e = events[i]
            content = e.content
            digest = e.content_sha256
            # what was said, by whom by name, with what attachments and metadata: sealed under the event's key
            secret = canonical_text({
                "content": content, "attachments": _attachments_json(e),
                "metadata": canonical_text(e.metadata) if e.metadata else "{}",
            })  # fmt: skip
            key_id, sealed = sealer.seal_text(
                event_unit(e.tenant_id, e.owner_id, e.event_id), secret,
                _event_place(e.tenant_id, e.owner_id, e.event_id),
            )  # fmt: skip
            rows.append(
                [
                    e.event_id,
                    e.tenant_id,
                    e.owner_id,
                    e.scope.value,
                    _opt(e.scope_id),
                    _opt(e.conversation_id),
                    _opt(e.session_id),
                    e.role.value,
                    _opt(e.speaker),
                    sealed,
                    digest,
                    e.occurred_at,
                    e.recorded_at,
                    "{}",
                    int(seqs[i]) if seqs is not None else 0,
                    _opt(e.speaker_id),
                    "[]",
                    e.utc_offset_minutes,
                    key_id,
                    _opt(e.visibility),
                ]
            )
        return self._insert("raw_events", list(_EVENT_COLUMNS), rows)

    def write_operations(self, ops: Sequence[Operation]) -> int:
        """Append sealed operations; an unsealed one is refused (it could never be verified)."""
        rows: list[list[Any]] = []
        sealer = self.sealer
        units = set()
        for op in ops:
            unit = payload_unit(op)
            if unit is not None:
                units.add(unit)
            for node in (op.before, op.after):
                if node is not None:
                    units.add(node_unit(node))
        sealer.prepare(units)
        for op in sorted(ops, key=lambda o: o.op_id):
            if len(op.checksum) != 64:
                raise IntegrityError("operation is not sealed", code="operation_not_sealed", op_id=op.op_id)
            record = sealer.operation_record(op)
            rows.append(
                [
                    op.op_id,
                    op.op_type.value,
                    op.op_index,
                    op.tenant_id,
                    op.owner_id,
                    op.scope.value,
                    _opt(op.scope_id),
                    op.target_id,
                    op.target_type.value,
                    op.actor.actor_id,
                    op.actor.actor_type.value,
                    op.caused_by,
                    _opt(op.request_id),
                    op.occurred_at,
                    op.policy_version,
                    op.checksum,
                    record,  # bytes: the String column takes them as they are
                    hashlib.sha256(record).hexdigest(),
                ]
            )
        return self._insert("operations", list(_OP_COLUMNS), rows)

    def write_node_snapshots(self, nodes: Sequence[MemoryNode]) -> int:
        rows: list[list[Any]] = []
        sealer = self.sealer
        sealer.prepare(node_unit(n) for n in nodes)
        for n in sorted(nodes, key=lambda x: (x.node_id, x.version)):
            body = sealer.node_bytes(n)
            rows.append(
                [
                    n.node_id,
                    n.version,
                    n.tenant_id,
                    n.owner_id,
                    n.scope.value,
                    _opt(n.scope_id),
                    n.node_type.value,
                    n.epistemic_type.value,
                    n.lifecycle.value,
                    "",  # subject and predicate are content: only inside the sealed snapshot
                    "",
                    float(n.confidence),
                    n.updated_at,
                    body,
                    list(n.evidence_refs),
                ]
            )
        return self._insert("node_snapshots", list(_NODE_COLUMNS), rows)

    def write_extractions(self, results: Sequence[ExtractionResult]) -> int:
        rows: list[list[Any]] = []
        sealer = self.sealer
        sealer.prepare(event_unit(r.event.tenant_id, r.event.owner_id, r.event.event_id) for r in results)
        for r in sorted(results, key=lambda x: (x.event.event_id, x.extractor, x.extractor_version)):
            plain = canonical_bytes(model_json(r))
            ev = r.event
            sealed = sealer.seal_bytes(
                event_unit(ev.tenant_id, ev.owner_id, ev.event_id), plain, _journal_place(ev.tenant_id, ev.owner_id,
                ev.event_id, r.extractor, r.extractor_version),
            )  # fmt: skip
            body = sealed["c"]
            rows.append(
                [
                    ev.event_id,
                    ev.tenant_id,
                    ev.owner_id,
                    ev.scope.value,
                    _opt(ev.scope_id),
                    r.extractor,
                    r.extractor_version,
                    _opt(r.model),
                    r.status,
                    _opt(r.error_category),
                    len(r.claims),
                    len(r.rejected),
                    [rej.reason_code for rej in r.rejected],
                    ev.occurred_at,
                    ev.recorded_at,
                    body,
                    sealed["sealed"],
                    ev.content_sha256,
                    r.grounding_policy_version,
                    int(r.schema_version),
                ]
            )
        return self._insert("extraction_journal", list(_EXTRACTION_COLUMNS), rows)

    def write_dead_letters(self, letters: Sequence[DeadLetter]) -> int:
        rows: list[list[Any]] = []
        for d in sorted(letters, key=lambda x: x.dlq_id):
            rows.append(
                [
                    d.dlq_id,
                    d.source,
                    d.partition,
                    d.offset,
                    d.reason_code,
                    d.message,
                    d.masked_bytes,
                    d.received_at,
                    d.original_sha256,
                    d.original_length,
                ]
            )
        return self._insert("dead_letters", list(_DLQ_COLUMNS), rows)

    def write_retrievals(self, receipts: Sequence[RetrievalReceipt]) -> int:
        """Store retrieval receipts (never in ``operations``: they change no state and replay skips them).

        A receipt is immutable: one whose id is already stored (or earlier in the batch) is not written
        again, so a retry can neither replace nor hide the receipt its first answer named.
        """
        first: dict[tuple[str, str], RetrievalReceipt] = {}
        for r in sorted(receipts, key=lambda x: (x.receipt_id, x.received_at)):
            first.setdefault((r.tenant_id, r.receipt_id), r)
        if first:
            stored = self.client.query(
                f"SELECT DISTINCT tenant_id, request_id FROM {self._t(RECEIPTS_TABLE)}"
                " WHERE request_id IN {ids:Array(String)}",
                parameters={"ids": sorted({rid for _t, rid in first})},
            ).result_rows
            for tenant, rid in stored:
                first.pop((tenant, rid), None)
        rows: list[list[Any]] = []
        sealer = self.sealer
        sealer.prepare(owner_unit(r.tenant_id, r.owner_id) for r in first.values())
        for r in first.values():
            key_id, query = sealer.seal_text(owner_unit(r.tenant_id, r.owner_id), r.query, f"query:{r.receipt_id}")
            rows.append(
                [
                    r.receipt_id,
                    r.tenant_id,
                    r.owner_id,
                    r.scope.value if r.scope is not None else "",
                    _opt(r.scope_id),
                    r.actor_id,
                    r.mode.value,
                    r.query_intent.value,
                    query,
                    r.reference_time,
                    r.received_at,
                    r.candidates_generated,
                    r.candidates_after_filter,
                    [i.node_id for i in r.included],
                    [i.version for i in r.included],
                    [float(i.score) for i in r.included],
                    [int(i.in_context) for i in r.included],
                    [e.node_id for e in r.excluded],
                    [e.reason for e in r.excluded],
                    [e.stage for e in r.excluded],
                    [int(e.included) for e in r.excluded],
                    r.tokens_used,
                    r.token_budget,
                    r.embedding_model,
                    r.embedding_version,
                    r.embedding_mismatch,
                    list(r.warnings),
                    r.context_sha256,
                    r.request_fingerprint,
                    key_id,
                ]
            )
        return self._insert(RECEIPTS_TABLE, list(_RECEIPT_COLUMNS), rows)

    def get_retrieval(self, tenant_id: str, request_id: str) -> RetrievalReceipt | None:
        """One tenant's receipt by id. Receipts are immutable: an id written again (the same caller's
        Idempotency-Key sent again) answers the first receipt written under it."""
        cols = ", ".join(_RECEIPT_COLUMNS)
        sql = (
            f"SELECT {cols} FROM {self._t(RECEIPTS_TABLE)} FINAL"
            " WHERE tenant_id = {tenant:String} AND request_id = {rid:String}"
            " ORDER BY received_at ASC LIMIT 1"
        )
        result = self.client.query(sql, parameters={"tenant": tenant_id, "rid": request_id})
        for r in result.named_results():
            query = r["query"]
            if r.get("sealed_key"):
                opened = self.sealer.open_text(r["sealed_key"], query, f"query:{r['request_id']}")
                if opened is None:
                    return None  # the owner's memory was erased, and what they asked with it
                query = opened
            return RetrievalReceipt(
                receipt_id=r["request_id"],
                tenant_id=r["tenant_id"],
                owner_id=r["owner_id"],
                scope=Scope(r["scope"]) if r["scope"] else None,
                scope_id=_none(r["scope_id"]),
                actor_id=r["actor_id"],
                mode=RetrievalMode(r["mode"]),
                query_intent=r["query_intent"],
                query=query,
                reference_time=r["reference_time"],
                received_at=r["received_at"],
                candidates_generated=int(r["candidates_generated"]),
                candidates_after_filter=int(r["candidates_after_filter"]),
                included=tuple(
                    ReceiptItem(node_id=n, version=int(v), score=float(s), in_context=bool(c))
                    for n, v, s, c in zip(
                        r["included"], r["included_versions"], r["included_scores"], r["included_in_context"],
                        strict=True,
                    )
                ),
                excluded=tuple(
                    Exclusion(node_id=n, reason=why, stage=stage, included=bool(kept))
                    for n, why, stage, kept in zip(
                        r["excluded"], r["excluded_reasons"], r["excluded_stages"], r["excluded_kept"], strict=True
                    )
                ),
                tokens_used=int(r["tokens_used"]),
                token_budget=int(r["token_budget"]),
                embedding_model=r["embedding_model"],
                embedding_version=r["embedding_version"],
                embedding_mismatch=bool(r["embedding_mismatch"]),
                warnings=tuple(r["warnings"]),
                context_sha256=r["context_sha256"],
                request_fingerprint=r["request_fingerprint"],
            )
        return None

    # ------------------------------------------------------------------ reads
    def _scope_where(
        self,
        params: dict[str, Any],
        tenant: str | None,
        owner: str | None,
        scope_key: str | None,
    ) -> list[str]:
        where: list[str] = []
        if tenant is not None:
            where.append("tenant_id = {tenant:String}")
            params["tenant"] = tenant
        if owner is not None:
            where.append("owner_id = {owner:String}")
            params["owner"] = owner
        if scope_key is not None:
            scope, scope_id = parse_scope_key(scope_key)
            where.append("scope = {scope:String} AND scope_id = {scope_id:String}")
            params["scope"] = scope
            params["scope_id"] = scope_id
        return where

    def _load_ops(self, rows: Iterable[Sequence[Any]]) -> list[Operation]:
        sealer = self.sealer
        return [_load_row(op_id, checksum, record, stored, sealer) for op_id, checksum, record, stored in rows]

    def stream_operations(self, *, page_size: int = READ_PAGE) -> Iterator[Operation]:
        """Every verified operation in log order from one streamed query (start-up and replay).

        Paging with a cursor re-sorts the rest of the log for every page, so
        folding a big log that way is quadratic; one ordered stream is not, and
        ``max_block_size`` keeps memory bounded. Nothing else may use the client
        on this thread until the iterator is exhausted or closed.
        """
        sql = (
            f"SELECT op_id, checksum, record, stored_sha256 FROM {self._t('operations')} FINAL"
            f" {_LOG_ORDER}"
        )
        self.keys.load_all()  # the stream holds the client: no key can be looked up while it runs
        with self.client.query_row_block_stream(
            sql, settings={"max_block_size": int(page_size)}, column_formats={"record": "bytes"}
        ) as stream:
            for block in stream:
                yield from self._load_ops(block)

    def iter_operations(
        self,
        *,
        tenant: str | None = None,
        owner: str | None = None,
        scope_key: str | None = None,
        target_id: str | None = None,
        after: LogCursor | datetime | None = None,
        limit: int | None = None,
        page_size: int = READ_PAGE,
    ) -> Iterator[Operation]:
        """Verified operations in log order, fetched page by page (bounded memory)."""
        cursor: LogCursor | None = after if isinstance(after, LogCursor) else None
        since = after if isinstance(after, datetime) else None
        remaining = limit
        while remaining is None or remaining > 0:
            params: dict[str, Any] = {}
            where = self._scope_where(params, tenant, owner, scope_key)
            if target_id is not None:
                where.append("target_id = {target:String}")
                params["target"] = target_id
            if since is not None:
                where.append(f"occurred_at > {{since:{_DT}}}")
                params["since"] = since
            if cursor is not None:
                where.append(
                    f"(occurred_at, caused_by, op_index, op_id) > "
                    f"({{c_at:{_DT}}}, {{c_by:String}}, {{c_ix:UInt32}}, {{c_id:String}})"
                )
                params.update(c_at=cursor.occurred_at, c_by=cursor.caused_by, c_ix=cursor.op_index, c_id=cursor.op_id)
            page = page_size if remaining is None else min(page_size, remaining)
            sql = (
                f"SELECT op_id, checksum, record, stored_sha256 FROM {self._t('operations')} FINAL"
                + (" WHERE " + " AND ".join(where) if where else "")
                + f" {_LOG_ORDER} LIMIT {int(page)}"
            )
            result = self.client.query(sql, parameters=params, column_formats={"record": "bytes"})
            ops = self._load_ops(result.result_rows)
            yield from ops
            if len(ops) < page:
                return
            cursor = LogCursor.of(ops[-1])
            if remaining is not None:
                remaining -= len(ops)

    def read_operations(
        self,
        tenant: str | None = None,
        owner: str | None = None,
        scope_key: str | None = None,
        after: LogCursor | datetime | None = None,
        limit: int | None = None,
    ) -> list[Operation]:
        return list(self.iter_operations(tenant=tenant, owner=owner, scope_key=scope_key, after=after, limit=limit))

    def operations_for_target(
        self,
        node_id: str,
        cursor: LogCursor | None = None,
        limit: int = 100,
        *,
        tenant: str | None = None,
        owner: str | None = None,
    ) -> tuple[list[Operation], LogCursor | None]:
        """One page of a node's history; the returned cursor is ``None`` when there is no more."""
        ops = list(
            self.iter_operations(tenant=tenant, owner=owner, target_id=node_id, after=cursor, limit=limit + 1)
        )
        more = len(ops) > limit
        ops = ops[:limit]
        return ops, (LogCursor.of(ops[-1]) if more and ops else None)

    def event_count(self) -> int:
        """Distinct stored events (a redelivered event stored twice counts once): the excerpts expected."""
        return int(self.client.command(f"SELECT uniqExact(tenant_id, owner_id, event_id) FROM {self._t('raw_events')}"))

    def count(self, table: str, *, final: bool = True) -> int:
        if table not in _ALL_TABLES:
            raise ValidationFailed("unknown table", code="unknown_table")
        return int(self.client.command(f"SELECT count() FROM {self._t(table)}{' FINAL' if final else ''}"))

    def latest_node_snapshots(
        self,
        tenant: str | None = None,
        owner: str | None = None,
        scope_key: str | None = None,
        node_ids: Sequence[str] | None = None,
    ) -> list[MemoryNode]:
        """The newest stored version of each node (what the embedded runner restarts from)."""
        params: dict[str, Any] = {}
        where = self._scope_where(params, tenant, owner, scope_key)
        if node_ids is not None:
            if not node_ids:
                return []
            where.append("node_id IN {ids:Array(String)}")
            params["ids"] = list(node_ids)
        sql = (
            f"SELECT node FROM {self._t('node_snapshots')} FINAL"
            + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY tenant_id, owner_id, node_id, version DESC LIMIT 1 BY tenant_id, owner_id, node_id"
        )
        rows = self.client.query(sql, parameters=params).result_rows
        nodes = (self.sealer.load_node(r[0]) for r in rows)
        return [n for n in nodes if n is not None]

    def operations_naming(self, tenant: str, owner: str, node_ids: Sequence[str]) -> list[Operation]:
        """The owner's verified operations whose record names any of ``node_ids``, in log order.

        A node's id is in the record of every operation that targets it, carries an edge to it
        or snapshots it, so this is a superset of what the node's provenance is built from. The
        text search runs in ClickHouse; only the matches are parsed and verified, where reading
        a long-lived owner's whole log parsed thousands of operations per provenance request.
        """
        found: dict[str, Operation] = {}
        ids = list(dict.fromkeys(node_ids))
        for start in range(0, len(ids), _NEEDLES):  # multiSearchAny takes at most 255 needles
            params: dict[str, Any] = {"needles": ids[start : start + _NEEDLES]}
            where = [*self._scope_where(params, tenant, owner, None), "multiSearchAny(record, {needles:Array(String)})"]
            sql = (
                f"SELECT op_id, checksum, record, stored_sha256 FROM {self._t('operations')} FINAL"
                f" WHERE {' AND '.join(where)} {_LOG_ORDER}"
            )
            result = self.client.query(sql, parameters=params, column_formats={"record": "bytes"})
            found.update((op.op_id, op) for op in self._load_ops(result.result_rows))
        return sorted(found.values(), key=LogCursor.of)

    def owner_edges(self, tenant: str, owner: str) -> list[Edge]:
        """Each edge of one owner in its newest state: what a fold of the owner's operations holds.

        Only operations that carry an edge are read, and only that member of their record is
        parsed. Folding every operation of a long-lived owner (~150 us each, most of it parsing
        and verifying the before/after snapshots) made a distributed world view take seconds.
        """
        params: dict[str, Any] = {}
        where = [*self._scope_where(params, tenant, owner, None), "edge NOT IN ('', 'null')"]
        sql = (
            f"SELECT JSONExtractRaw(record, 'edge') AS edge FROM {self._t('operations')} FINAL"
            f" WHERE {' AND '.join(where)} {_LOG_ORDER}"
        )
        latest: dict[str, Edge] = {}
        for (raw,) in self.client.query(sql, parameters=params).result_rows:
            edge = Edge.model_validate_json(raw)
            latest[edge.edge_id] = edge  # log order: a later state of an edge replaces the earlier one
        return list(latest.values())

    def get_events(self, event_ids: Sequence[str], tenant: str, owner: str) -> list[StoredEvent]:
        """Raw events of one owner, in event-time order; the first stored copy of an id wins."""
        if not event_ids:
            return []
        cols = ", ".join(_EVENT_COLUMNS)
        sql = (
            f"SELECT {cols} FROM (SELECT {cols} FROM {self._t('raw_events')} FINAL"
            " WHERE tenant_id = {tenant:String} AND owner_id = {owner:String} AND event_id IN {ids:Array(String)}"
            " ORDER BY recorded_at, ingested_seq LIMIT 1 BY event_id) ORDER BY occurred_at, event_id"
        )
        rows = self.client.query(sql, parameters={"tenant": tenant, "owner": owner, "ids": list(event_ids)})
        opened = (_open_event_row(self.sealer, r) for r in rows.named_results())
        return [_stored_event(r) for r in opened if r is not None]

    def stream_events(self, *, by_session: bool = False, page_size: int = READ_PAGE) -> Iterator[StoredEvent]:
        """Every stored event once (the first stored copy of an id), in (tenant, owner, event) order, or
        ``by_session`` in (tenant, owner, session, time) order: what the excerpts are rebuilt from, with
        each message's preceding turns read just before it.
        """
        cols = ", ".join(_EVENT_COLUMNS)
        session = "if(session_id = '', conversation_id, session_id)"
        key = (f"tenant_id, owner_id, {session}, occurred_at, event_id" if by_session
               else "tenant_id, owner_id, event_id")  # fmt: skip
        after: tuple[Any, ...] | None = None
        while True:
            where = f" WHERE ({key}) > {{after:Tuple(String, String, String, DateTime64(6, 'UTC'), String)}}" if (
                by_session and after is not None) else (
                f" WHERE ({key}) > {{after:Tuple(String, String, String)}}" if after is not None else "")
            sql = (
                f"SELECT {cols}, {session} AS session_key FROM (SELECT {cols} FROM {self._t('raw_events')} FINAL"
                " ORDER BY tenant_id, owner_id, event_id, recorded_at, ingested_seq"
                f" LIMIT 1 BY tenant_id, owner_id, event_id){where} ORDER BY {key} LIMIT {{n:UInt32}}"
            )
            params: dict[str, Any] = {"n": page_size}
            if after is not None:
                params["after"] = after
            page = list(self.client.query(sql, parameters=params).named_results())
            for r in page:
                opened = _open_event_row(self.sealer, r)
                if opened is not None:  # an erased event (its key destroyed) is no longer an event
                    yield _stored_event(opened)
            if len(page) < page_size:
                return
            last = page[-1]
            after = ((last["tenant_id"], last["owner_id"], last["session_key"], last["occurred_at"], last["event_id"])
                     if by_session else (last["tenant_id"], last["owner_id"], last["event_id"]))  # fmt: skip

    def list_dead_letters(
        self,
        *,
        source: str | None = None,
        reason_code: str | None = None,
        dlq_ids: Sequence[str] | None = None,
        limit: int = 100,
    ) -> list[DeadLetter]:
        """Dead letters oldest first; a letter received twice is listed once, with its latest receipt.

        The table keeps the row with the greatest ``received_at`` per id (and
        ``FINAL`` merges across monthly partitions), so the answer does not
        depend on the order redeliveries were written in.
        """
        params: dict[str, Any] = {}
        where: list[str] = []
        if source is not None:
            where.append("source = {source:String}")
            params["source"] = source
        if reason_code is not None:
            where.append("reason_code = {reason:String}")
            params["reason"] = reason_code
        if dlq_ids is not None:
            where.append("dlq_id IN {ids:Array(String)}")
            params["ids"] = list(dlq_ids)
        cols = ", ".join(_DLQ_COLUMNS)
        sql = (
            f"SELECT {cols} FROM (SELECT {cols} FROM {self._t('dead_letters')} FINAL"
            + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY received_at DESC, dlq_id LIMIT 1 BY dlq_id)"
            + f" ORDER BY received_at, dlq_id LIMIT {int(limit)}"
        )
        result = self.client.query(sql, parameters=params, column_formats={"masked_bytes": "bytes"})
        return [
            DeadLetter(
                source=r["source"],
                partition=r["partition"],
                offset=r["offset"],
                reason_code=r["reason_code"],
                message=r["message"],
                masked_bytes=bytes(r["masked_bytes"]),
                original_sha256=r["original_sha256"] or "0" * 64,
                original_length=int(r["original_length"]),
                received_at=r["received_at"],
            )
            for r in result.named_results()
        ]

    # ---------------------------------------------------------------- erasure
    def owner_events(
        self, tenant: str, owner: str | None = None, *, conversation: str | None = None, speaker: str | None = None,
        event: str | None = None,
    ) -> list[tuple[str, str]]:
        """``(owner, event id)`` of the stored events an erasure scope names (ids only, no content read).

        ``speaker`` matches the platform's speaker id, or the display name of events without one.
        """
        params: dict[str, Any] = {"tenant": tenant}
        where = ["tenant_id = {tenant:String}"]
        if owner is not None:
            where.append("owner_id = {owner:String}")
            params["owner"] = owner
        if conversation is not None:
            where.append("conversation_id = {conversation:String}")
            params["conversation"] = conversation
        if event is not None:
            where.append("event_id = {event:String}")
            params["event"] = event
        if speaker is not None:
            where.append("(speaker_id = {speaker:String} OR (speaker_id = '' AND speaker = {speaker:String}))")
            params["speaker"] = speaker
        rows = self.client.query(
            f"SELECT DISTINCT owner_id, event_id FROM {self._t('raw_events')} WHERE {' AND '.join(where)}",
            parameters=params,
        ).result_rows
        return sorted((str(o), str(e)) for o, e in rows)

    def partition_keys(self, tenant: str, owner: str | None = None) -> list[tuple[str, str, str]]:
        """``(owner, scope, scope_id)`` of every stream of a tenant (or of one owner) the log holds."""
        params: dict[str, Any] = {"tenant": tenant}
        where = "tenant_id = {tenant:String}"
        if owner is not None:
            where += " AND owner_id = {owner:String}"
            params["owner"] = owner
        sql = " UNION DISTINCT ".join(
            f"SELECT owner_id, scope, scope_id FROM {self._t(t)} WHERE {where}" for t in ("raw_events", "operations")
        )
        rows = self.client.query(f"SELECT DISTINCT * FROM ({sql}) ORDER BY 1, 2, 3", parameters=params).result_rows
        return [(str(o), str(s), str(i)) for o, s, i in rows]

    def delete_erased_rows(
        self, tenant: str, events: Sequence[tuple[str, str]], nodes: Sequence[str], *, owner: str | None = None,
        dead_letter_ids: Sequence[str] = (),
    ) -> dict[str, int]:
        """Delete the rows an erasure removes from every table but the operation log; returns rows per table.

        The log (``operations``) is append-only and keeps its records, sealed under keys the erasure
        destroys. Raw events, extraction journals, node snapshots, retrieval receipts (an owner's) and
        dead letters are inputs and projections: their rows go (``ALTER ... DELETE``, waited for), so
        not even a sealed copy or a content hash remains. ``owner`` (an owner erasure) deletes all of
        that owner's rows and receipts.
        """
        counts: dict[str, int] = {}
        by_owner: dict[str, list[str]] = {}
        for o, e in events:
            by_owner.setdefault(o, []).append(e)

        def delete(table: str, where: str, params: dict[str, Any]) -> None:
            n = int(self.client.command(f"SELECT count() FROM {self._t(table)} WHERE {where}", parameters=params))
            if n:
                self.client.command(f"ALTER TABLE {self._t(table)} DELETE WHERE {where}", parameters=params,
                                    settings={"mutations_sync": 2})  # fmt: skip
            counts[table] = counts.get(table, 0) + n

        base = {"tenant": tenant}
        if owner is not None:
            for table in ("raw_events", "extraction_journal", "node_snapshots", RECEIPTS_TABLE):
                delete(table, "tenant_id = {tenant:String} AND owner_id = {owner:String}", {**base, "owner": owner})
        for o, ids in sorted(by_owner.items()):
            if o == owner:
                continue
            for start in range(0, len(ids), 5000):
                chunk = {**base, "owner": o, "ids": ids[start : start + 5000]}
                where = "tenant_id = {tenant:String} AND owner_id = {owner:String} AND event_id IN {ids:Array(String)}"
                delete("raw_events", where, chunk)
                delete("extraction_journal", where, chunk)
        node_ids = sorted(set(nodes))
        for start in range(0, len(node_ids), 5000):
            delete("node_snapshots", "tenant_id = {tenant:String} AND node_id IN {ids:Array(String)}",
                   {**base, "ids": node_ids[start : start + 5000]})  # fmt: skip
            delete(RECEIPTS_TABLE, "tenant_id = {tenant:String} AND hasAny(included, {ids:Array(String)})",
                   {**base, "ids": node_ids[start : start + 5000]})  # fmt: skip
        if dead_letter_ids:
            delete("dead_letters", "dlq_id IN {ids:Array(String)}", {"ids": sorted(set(dead_letter_ids))})
        return counts

    def dead_letters_naming(self, tenant: str, needles: Sequence[str]) -> list[str]:
        """Ids of the dead letters whose (masked) bytes name the tenant and any of ``needles`` (owner or event ids).

        A dead letter is refused input: it may not even parse, so it is attributed by what its bytes say.
        """
        found: set[str] = set()
        wanted = sorted({n for n in needles if n})
        for start in range(0, len(wanted), 200):
            rows = self.client.query(
                f"SELECT dlq_id FROM {self._t('dead_letters')} WHERE position(masked_bytes, {{tenant:String}}) > 0"
                " AND multiSearchAny(masked_bytes, {needles:Array(String)})",
                parameters={"tenant": tenant, "needles": wanted[start : start + 200]},
            ).result_rows
            found.update(str(r[0]) for r in rows)
        return sorted(found)

    def compact(self, tables: Sequence[str]) -> None:
        """Rewrite each table into a new one and drop the old one with every part it had (see ``rewrite_table``).

        A delete or a merge writes new parts and leaves the old ones (which still hold the removed rows)
        for the engine's cleanup, minutes later (``old_parts_lifetime``; chDB may not run it at all):
        after an erasure no file may keep what was removed, so the tables it touched are copied.
        """
        for table in tables:
            rewrite_table(self.client, self.database, table)

    def write_erasure(self, receipt: ErasureReceipt) -> None:
        body = canonical_text(receipt.model_dump(mode="json"))
        self.client.insert(
            self._t("erasures"),
            [[receipt.erasure_id, receipt.scope.tenant_id, receipt.scope.scope_key, receipt.requested_by,
              _opt(receipt.request_id), receipt.completed_at, body]],
            column_names=["erasure_id", "tenant_id", "scope_key", "requested_by", "request_id", "completed_at",
                          "receipt"],
            settings={"async_insert": 0},
        )  # fmt: skip

    def erasures(self, tenant: str, *, scope_key: str | None = None, request_id: str | None = None,
                 erasure_id: str | None = None) -> list[ErasureReceipt]:  # fmt: skip
        """A tenant's erasure receipts, oldest first (of one scope, request id or erasure id if given)."""
        params: dict[str, Any] = {"tenant": tenant}
        where = ["tenant_id = {tenant:String}"]
        for column, value in (("scope_key", scope_key), ("request_id", request_id), ("erasure_id", erasure_id)):
            if value is not None:
                where.append(f"{column} = {{{column}:String}}")
                params[column] = value
        rows = self.client.query(
            f"SELECT receipt FROM {self._t('erasures')} FINAL WHERE {' AND '.join(where)} ORDER BY completed_at",
            parameters=params,
        ).result_rows
        return [ErasureReceipt.model_validate_json(r[0]) for r in rows]

    def read_extractions(self) -> list[ExtractionResult]:
        """Every stored extraction result (opened), in event-time order; erased ones are gone."""
        rows = self.client.query(
            f"SELECT tenant_id, owner_id, event_id, extractor, version, result, sealed_key"
            f" FROM {self._t('extraction_journal')} FINAL ORDER BY occurred_at, event_id"
        ).result_rows
        out: list[ExtractionResult] = []
        for tenant, owner, event_id, extractor, version, result, key_id in rows:
            if key_id:
                plain = self.sealer.open_bytes({"sealed": key_id, "c": result},
                                               _journal_place(tenant, owner, event_id, extractor, version))  # fmt: skip
                if plain is None:
                    continue
                result = plain
            out.append(ExtractionResult.model_validate_json(result))
        return out

    # -------------------------------------------------------------- migration 9
    def reseal_plaintext(self) -> dict[str, int]:
        """Seal every row written before content was sealed (migration 9), once; returns rows per table.

        Each row is written again in its sealed form under the same sorting key (ReplacingMergeTree
        keeps the later row), then the tables' parts are rewritten and the old ones removed, so no
        plaintext copy stays on disk. A re-sealed operation keeps its own checksum (inside the sealed
        record, verifiable with its keys) and records beside its new ``stored_sha256`` the SHA-256 of
        the record it replaced (``resealed_from``): the old format's bytes stay verifiable from it.
        """
        counts: dict[str, int] = {}
        ops_cols = [c for c in _OP_COLUMNS if c != "stored_sha256"]
        rows = self.client.query(
            f"SELECT {', '.join(ops_cols)} FROM {self._t('operations')} FINAL WHERE stored_sha256 = ''",
            column_formats={"record": "bytes"},
        ).named_results()
        ops_out: list[list[Any]] = []
        for r in rows:
            old = bytes(r["record"])
            op = _load_row(r["op_id"], r["checksum"], old)
            self.sealer.prepare([u for u in (payload_unit(op),) if u is not None]
                                + [node_unit(n) for n in (op.before, op.after) if n is not None])  # fmt: skip
            record = self.sealer.operation_record(op)
            ops_out.append([*(r[c] for c in ops_cols if c != "record"), record, hashlib.sha256(record).hexdigest(),
                            hashlib.sha256(old).hexdigest()])  # fmt: skip
        if ops_out:
            names = [c for c in ops_cols if c != "record"] + ["record", "stored_sha256", "resealed_from"]
            self._insert("operations", names, ops_out)
        counts["operations"] = len(ops_out)

        events = [dict(r) for r in self.client.query(
            f"SELECT {', '.join(_RESEALED_EVENT_COLUMNS)} FROM {self._t('raw_events')} FINAL WHERE sealed_key = ''"
        ).named_results()]  # fmt: skip
        if events:
            self.sealer.prepare(event_unit(r["tenant_id"], r["owner_id"], r["event_id"]) for r in events)
            for r in events:
                secret = canonical_text({"content": r["content"], "attachments": r.get("attachments") or "[]",
                                         "metadata": r["metadata"]})
                key_id, sealed = self.sealer.seal_text(
                    event_unit(r["tenant_id"], r["owner_id"], r["event_id"]), secret,
                    _event_place(r["tenant_id"], r["owner_id"], r["event_id"]),
                )  # fmt: skip
                r.update(content=sealed, attachments="[]", metadata="{}", sealed_key=key_id)
            self._insert("raw_events", list(_RESEALED_EVENT_COLUMNS),
                         [[r[c] for c in _RESEALED_EVENT_COLUMNS] for r in events])  # fmt: skip
        counts["raw_events"] = len(events)

        node_cols = [c for c in _NODE_COLUMNS if c != "evidence_refs"]
        nodes = [dict(r) for r in self.client.query(
            f"SELECT {', '.join(node_cols)} FROM {self._t('node_snapshots')} FINAL"
            " WHERE position(node, '\"sealed\":') = 0"
        ).named_results()]  # fmt: skip
        if nodes:
            parsed = [MemoryNode.model_validate_json(r["node"]) for r in nodes]
            self.sealer.prepare(node_unit(n) for n in parsed)
            for r, n in zip(nodes, parsed, strict=True):
                r.update(node=self.sealer.node_bytes(n), subject="", predicate="", evidence_refs=list(n.evidence_refs))
            self._insert("node_snapshots", list(_NODE_COLUMNS), [[r[c] for c in _NODE_COLUMNS] for r in nodes])
        counts["node_snapshots"] = len(nodes)

        journals = [dict(r) for r in self.client.query(
            f"SELECT {', '.join(_EXTRACTION_COLUMNS)} FROM {self._t('extraction_journal')} FINAL WHERE sealed_key = ''"
        ).named_results()]  # fmt: skip
        if journals:
            self.sealer.prepare(event_unit(r["tenant_id"], r["owner_id"], r["event_id"]) for r in journals)
            for r in journals:
                box = self.sealer.seal_bytes(
                    event_unit(r["tenant_id"], r["owner_id"], r["event_id"]), r["result"].encode("utf-8"),
                    _journal_place(r["tenant_id"], r["owner_id"], r["event_id"], r["extractor"], r["version"]),
                )  # fmt: skip
                r.update(result=box["c"], sealed_key=box["sealed"])
            self._insert("extraction_journal", list(_EXTRACTION_COLUMNS),
                         [[r[c] for c in _EXTRACTION_COLUMNS] for r in journals])  # fmt: skip
        counts["extraction_journal"] = len(journals)

        receipts = [dict(r) for r in self.client.query(
            f"SELECT {', '.join(_RECEIPT_COLUMNS)} FROM {self._t(RECEIPTS_TABLE)} FINAL WHERE sealed_key = ''"
        ).named_results()]  # fmt: skip
        if receipts:
            self.sealer.prepare(owner_unit(r["tenant_id"], r["owner_id"]) for r in receipts)
            for r in receipts:
                key_id, query = self.sealer.seal_text(owner_unit(r["tenant_id"], r["owner_id"]), r["query"],
                                                      f"query:{r['request_id']}")  # fmt: skip
                r.update(query=query, sealed_key=key_id)
            self._insert(RECEIPTS_TABLE, list(_RECEIPT_COLUMNS), [[r[c] for c in _RECEIPT_COLUMNS] for r in receipts])
        counts[RECEIPTS_TABLE] = len(receipts)
        if any(counts.values()):
            self.compact([t for t, n in counts.items() if n])
        return counts

    # -------------------------------------------------------------- analytics
    def read_only_query(
        self, sql: str, *, max_rows: int = 10_000, timeout_s: float = 30.0, max_memory_bytes: int = 1 << 30
    ) -> QueryRows:
        """Run an analyst's SQL against this database: one read of the documented tables.

        The statement is checked first (:func:`sinks.sql_guard.check_read_only`: one SELECT, no
        ``INTO OUTFILE``, no table functions, no other database such as ``system``), then the engine
        runs it under ``readonly=1`` (writes, DDL and setting changes fail), a memory cap and a time
        cap. Unqualified table names resolve to this database. At most ``max_rows`` rows come back
        (``truncated`` says when more matched).
        """
        sql = check_read_only(sql, self.database)
        client = self.client
        previous = getattr(client, "database", None)
        client.database = self.database
        try:
            result = client.query(
                sql,
                settings={
                    "readonly": 1,
                    "max_result_rows": max_rows + 1,
                    "result_overflow_mode": "break",
                    "max_execution_time": timeout_s,
                    "max_memory_usage": max_memory_bytes,
                },
            )
        except Exception as exc:  # clickhouse_connect wraps every engine error in DatabaseError
            text = str(exc)
            if "READONLY" in text or "readonly mode" in text:
                raise QueryRejected("only reads are allowed on the operation log", code="read_only") from None
            raise QueryRejected(_engine_message(text), code="sql_error") from None
        finally:
            client.database = previous
        rows = [list(r) for r in result.result_rows]
        return QueryRows(columns=list(result.column_names), rows=rows[:max_rows], truncated=len(rows) > max_rows)

    def stats(self, tenant: str | None = None, owner: str | None = None) -> dict[str, Any]:
        """Operation-log analytics over the deduplicated tables (JSON-ready)."""
        params: dict[str, Any] = {}
        where = self._scope_where(params, tenant, owner, None)
        cond = (" WHERE " + " AND ".join(where)) if where else ""
        and_cond = (" AND " + " AND ".join(where)) if where else ""
        q = self.client.query

        by_day = q(
            f"SELECT toDate(occurred_at) AS day, op_type, count() FROM {self._t('operations')} FINAL{cond}"
            " GROUP BY day, op_type ORDER BY day, op_type",
            parameters=params,
        ).result_rows
        by_type = q(
            f"SELECT op_type, count() FROM {self._t('operations')} FINAL{cond} GROUP BY op_type ORDER BY op_type",
            parameters=params,
        ).result_rows
        type_counts = {str(t): int(n) for t, n in by_type}
        deciles = ", ".join(f"countIf(bucket = {i})" for i in range(10))
        confidence = q(
            f"SELECT epistemic_type, count(), avg(confidence), quantilesExact(0.1, 0.5, 0.9)(confidence), [{deciles}]"
            " FROM (SELECT epistemic_type, confidence, least(toUInt8(floor(confidence * 10)), 9) AS bucket"
            f" FROM {self._t('node_snapshots')} FINAL{cond}"
            " ORDER BY tenant_id, owner_id, node_id, version DESC LIMIT 1 BY tenant_id, owner_id, node_id)"
            " GROUP BY epistemic_type ORDER BY epistemic_type",
            parameters=params,
        ).result_rows
        extraction = q(
            f"SELECT count(), sum(accepted), sum(rejected), countIf(status = 'failed')"
            f" FROM {self._t('extraction_journal')} FINAL{cond}",
            parameters=params,
        ).result_rows[0]
        reasons = q(
            f"SELECT code, count() FROM {self._t('extraction_journal')} FINAL ARRAY JOIN rejection_codes AS code"
            f" WHERE 1{and_cond} GROUP BY code ORDER BY count() DESC, code",
            parameters=params,
        ).result_rows
        failures = q(
            f"SELECT error_category, count() FROM {self._t('extraction_journal')} FINAL"
            f" WHERE status = 'failed'{and_cond} GROUP BY error_category ORDER BY count() DESC, error_category",
            parameters=params,
        ).result_rows
        return {
            "operations_total": sum(type_counts.values()),
            "operations_by_type": type_counts,
            "operations_by_type_day": [
                {"day": d.isoformat(), "op_type": str(t), "count": int(n)} for d, t, n in by_day
            ],
            "contradictions_noted": type_counts.get(OpType.CONTRADICTION_NOTED.value, 0),
            "contradictions_resolved": type_counts.get(OpType.CONTRADICTION_RESOLVED.value, 0),
            "supersedences": type_counts.get(OpType.SUPERSEDENCE_APPLIED.value, 0),
            "confidence_by_epistemic_type": [
                {
                    "epistemic_type": str(et),
                    "nodes": int(n),
                    "mean": round(float(avg), 6),
                    "p10": round(float(qs[0]), 6),
                    "p50": round(float(qs[1]), 6),
                    "p90": round(float(qs[2]), 6),
                    "deciles": [int(c) for c in hist],
                }
                for et, n, avg, qs, hist in confidence
            ],
            "extraction": {
                "results": int(extraction[0]),
                "claims_accepted": int(extraction[1] or 0),
                "claims_rejected": int(extraction[2] or 0),
                "failed": int(extraction[3]),
                "rejection_reasons": {str(c): int(n) for c, n in reasons},
                "failure_categories": {str(c) or "unknown": int(n) for c, n in failures},
            },
        }


    def owners(self, tenant: str, *, limit: int = 1000) -> list[tuple[str, int]]:
        """The owners of a tenant with how many nodes each has (the inspector's owner picker)."""
        rows = self.client.query(
            f"SELECT owner_id, uniqExact(node_id) FROM {self._t('node_snapshots')} WHERE tenant_id = {{tenant:String}}"
            " GROUP BY owner_id ORDER BY owner_id LIMIT {limit:UInt32}",
            parameters={"tenant": tenant, "limit": limit},
        ).result_rows
        return [(str(o), int(n)) for o, n in rows]

    def ingestion_lag(self, tenant: str | None = None, owner: str | None = None) -> list[dict[str, Any]]:
        """Per day: events stored and how long after they were said (``recorded_at - occurred_at``), seconds."""
        params: dict[str, Any] = {}
        where = self._scope_where(params, tenant, owner, None)
        cond = (" WHERE " + " AND ".join(where)) if where else ""
        lag = "greatest(0, dateDiff('millisecond', occurred_at, recorded_at)) / 1000"
        rows = self.client.query(
            f"SELECT toDate(occurred_at) AS day, count(), avg({lag}), quantilesExact(0.5, 0.95)({lag}), max({lag})"
            f" FROM {self._t('raw_events')} FINAL{cond} GROUP BY day ORDER BY day",
            parameters=params,
        ).result_rows
        return [
            {"day": d.isoformat(), "events": int(n), "mean_s": round(float(mean), 3), "p50_s": round(float(qs[0]), 3),
             "p95_s": round(float(qs[1]), 3), "max_s": round(float(top), 3)}
            for d, n, mean, qs, top in rows
        ]  # fmt: skip


def _checksum_member(checksum: str) -> bytes | None:
    """``,"checksum":"<hex>",`` as a canonical record spells it, or None for a malformed checksum."""
    if len(checksum) != 64 or not checksum.isascii() or not checksum.isalnum():
        return None
    return b',"checksum":"' + checksum.encode("ascii") + b'",'


def _record_hashes_to(record: bytes, checksum: str) -> bool:
    """Whether the stored bytes minus their checksum member hash to the checksum.

    A record is canonical JSON whose top-level ``checksum`` member sits between
    ``caused_by`` and ``edge``; without it the bytes are exactly the sealed body.
    A match therefore proves the record is the one that was sealed, without
    re-serialising the parsed operation (the costly part of start-up). Anything
    else — the member missing or repeated, a mismatch — goes to the reference
    check, which raises for a genuinely tampered row.
    """
    member = _checksum_member(checksum)
    if member is None or record.count(member) != 1:
        return False
    return hashlib.sha256(record.replace(member, b",", 1)).hexdigest() == checksum


def _journal_place(tenant: str, owner: str, event_id: str, extractor: str, version: str) -> str:
    return f"journal:{tenant}/{owner}/{event_id}/{extractor}/{version}"


def _load_row(
    op_id: str, checksum: str, record: str | bytes, stored: str = "", sealer: Sealer | None = None
) -> Operation:
    """Parse one stored operation and verify its identity and checksum.

    A sealed record (``stored_sha256`` set) is first verified over its stored bytes, which needs no
    key; its parts are then opened, and a record whose keys all exist is checked against its own
    checksum as well. An erased part reads as ``engine.erasure.as_erased`` says.
    """
    data = record.encode("utf-8") if isinstance(record, str) else bytes(record)
    if stored:
        if hashlib.sha256(data).hexdigest() != stored:
            raise ChecksumMismatch("stored record does not match its stored checksum", op_id=op_id)
        if sealer is not None and b'"sealed":' in data:
            try:
                op = sealer.load_operation(data)
            except IntegrityError as exc:
                if exc.code != "not_sealed":
                    raise
            else:
                if op.op_id != op_id or op.checksum != checksum:
                    raise IntegrityError("operation row does not match its record", code="operation_identity",
                                         op_id=op_id)  # fmt: skip
                return op
    op = Operation.model_validate_json(data)
    if op.op_id == op_id and op.checksum == checksum and _record_hashes_to(data, checksum):
        return op
    verify_operation(op)  # the reference check: raises ChecksumMismatch for a tampered record
    if op.op_id != op_id or op.checksum != checksum:
        raise IntegrityError("operation row does not match its record", code="operation_identity", op_id=op_id)
    return op


_EVENT_COLUMNS: Final = (
    "event_id",
    "tenant_id",
    "owner_id",
    "scope",
    "scope_id",
    "conversation_id",
    "session_id",
    "role",
    "speaker",
    "content",
    "content_sha256",
    "occurred_at",
    "recorded_at",
    "metadata",
    "ingested_seq",
    "speaker_id",
    "attachments",
    "utc_offset_minutes",
    "sealed_key",
    "visibility",
)
#: The columns raw_events had when migration 9 re-sealed it (it runs before later migrations add theirs).
_RESEALED_EVENT_COLUMNS: Final = tuple(c for c in _EVENT_COLUMNS if c != "visibility")
_OP_COLUMNS: Final = (
    "op_id",
    "op_type",
    "op_index",
    "tenant_id",
    "owner_id",
    "scope",
    "scope_id",
    "target_id",
    "target_type",
    "actor_id",
    "actor_type",
    "caused_by",
    "request_id",
    "occurred_at",
    "policy_version",
    "checksum",
    "record",
    "stored_sha256",
)
_NODE_COLUMNS: Final = (
    "node_id",
    "version",
    "tenant_id",
    "owner_id",
    "scope",
    "scope_id",
    "node_type",
    "epistemic_type",
    "lifecycle",
    "subject",
    "predicate",
    "confidence",
    "updated_at",
    "node",
    "evidence_refs",
)
_EXTRACTION_COLUMNS: Final = (
    "event_id",
    "tenant_id",
    "owner_id",
    "scope",
    "scope_id",
    "extractor",
    "version",
    "model",
    "status",
    "error_category",
    "accepted",
    "rejected",
    "rejection_codes",
    "occurred_at",
    "recorded_at",
    "result",
    "sealed_key",
    "content_sha256",
    "grounding_policy_version",
    "schema_version",
)
_DLQ_COLUMNS: Final = (
    "dlq_id",
    "source",
    "partition",
    "offset",
    "reason_code",
    "message",
    "masked_bytes",
    "received_at",
    "original_sha256",
    "original_length",
)
_RECEIPT_COLUMNS: Final = (
    "request_id",
    "tenant_id",
    "owner_id",
    "scope",
    "scope_id",
    "actor_id",
    "mode",
    "query_intent",
    "query",
    "reference_time",
    "received_at",
    "candidates_generated",
    "candidates_after_filter",
    "included",
    "included_versions",
    "included_scores",
    "included_in_context",
    "excluded",
    "excluded_reasons",
    "excluded_stages",
    "excluded_kept",
    "tokens_used",
    "token_budget",
    "embedding_model",
    "embedding_version",
    "embedding_mismatch",
    "warnings",
    "context_sha256",
    "request_fingerprint",
    "sealed_key",
)
_ALL_TABLES: Final = frozenset(
    {"raw_events", "operations", "node_snapshots", "extraction_journal", "dead_letters", RECEIPTS_TABLE}
)
