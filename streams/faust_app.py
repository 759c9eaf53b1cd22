"""The distributed pipeline: faust-streaming agents on Kafka.

Agents (see ARCHITECTURE.md "Flow"); each calls the shared steps in
``streams.agents`` so behaviour tested in-process holds here:

* ``extract``      conversation.events -> admit -> raw events + extraction journals to ClickHouse
                   -> memory.extractions, one record per partition of a batch (up to
                   ``streams.record_size`` limits), or the DLQ
* ``materialize``  memory.extractions + memory.commands (co-partitioned) -> reducer
                   -> operations + node snapshots to ClickHouse, latest snapshots to
                   memory.nodes (compacted), and last memory.operations (records of whole
                   inputs: the :class:`~streams.kafka_store.OpBatch` of each input)
* ``oplog_dead_letters`` dead-letter topics -> ClickHouse
* ``index_sink``   memory.nodes -> OpenSearch (``_id`` = node id, external version = node version)

Each record is consumed by as few agents as possible (every consumption costs
faust/aiokafka machinery and a parse): the stage that already holds the parsed
value writes it to ClickHouse, instead of a separate sink agent re-reading the
topic. Those writes go *behind* the stream (:mod:`streams.write_behind`): the rows
of the takes of up to ``clickhouse_within_s`` (0.5 s) go in one insert per table,
because a chDB insert costs ~30 ms of CPU whatever its size, and the takes' input
records stay unacknowledged (so uncommitted) until that insert returned, so the
guarantees below hold unchanged. Extraction records and node snapshots do not
wait for it: the path to the index holds no ClickHouse insert. ``memory.operations``
is the changelog of materialize's state (and what the API follows for command
outcomes); materialize writes it *after* ClickHouse and memory.nodes, so an input
the log calls done has everything derived from it durable (see ``_publish_outputs``).

Processing guarantee shipped: **at-least-once, made exact by idempotency.**
faust-streaming 0.15's ``exactly_once`` runs one transactional producer per
assigned partition and a transaction manager that is known to stall on
rebalances and leaves changelog reads and our state loader needing
``read_committed`` everywhere; it was not needed, because every stage is
idempotent on its own:

* an input record is acknowledged (so committable) only after its ClickHouse rows
  are written and the broker has acknowledged every record produced from it
  (``streams.delivery``; faust's own flush before a commit gives up after 0.1 s
  and is not relied on), so nothing is committed before what it produced is
  durable (no loss);
* the reducer ignores input ids it has seen; its state is the fold of
  ``memory.operations`` and one input's operations are always in a single Kafka
  record, written after their ClickHouse rows and node snapshots, so a crash
  leaves an input either fully applied (redelivery -> duplicate, nothing
  emitted) or not at all (redelivery -> the same bytes again, the reducer is
  deterministic, the second copies are deduplicated);
* ClickHouse writes carry insert-dedup tokens over derived ids and the tables
  are ReplacingMergeTree on those ids; dead letters are keyed by source
  topic/partition/offset;
* OpenSearch refuses a node version it already has (external versioning).

Time: a Kafka-received event without ``received_at`` gets the record's
timestamp (set once by the producer), never the worker's clock, so a
redelivery of the same record yields identical state.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import functools
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.canonical_fast import model_bytes
from engine.reducer import Reducer
from extractors.base import Extractor, get_extractor
from schemas.claims import ExtractionResult
from schemas.commands import Command, CommandBase, parse_command
from schemas.errors import BackendUnavailable, EpistreamError, ValidationFailed
from schemas.events import ConversationEvent
from schemas.nodes import MemoryNode
from schemas.operations import Operation
from schemas.records import DeadLetter
from schemas.settings import Settings
from sinks.clickhouse import OperationLog
from streams import agents, eager_delivery, extraction_records
from streams import topics as tn
from streams.delivery import Outbox, delivered
from streams.extract_pool import ExtractionPool
from streams.kafka_errors import kafka_client
from streams.kafka_store import OpBatch, PartitionStates
from streams.lag import topic_lag
from streams.metrics import WorkerMetrics
from streams.metrics import serve as serve_metrics
from streams.record_size import split_to_fit
from streams.write_behind import WriteBehind

log = logging.getLogger("epistream.worker")

GUARANTEE = "at_least_once"

#: A record handed to faust's producer: resolves when the broker has acknowledged it.
Sent = asyncio.Future[Any]
#: An extract take on its way to ClickHouse: its events, their extraction results, the records sent.
Extracted = tuple[list[ConversationEvent], list[ExtractionResult], list[Sent]]
#: A materialize take: the generation it was reduced under, (partition, key, batches) per input
#: record, and the records (node snapshots, dead letters) that must be on the broker before its log.
Reduced = tuple[int, list[tuple[int, bytes | None, list[OpBatch]]], list[Sent]]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class WorkerOptions:
    """Deployment knobs that are not in :class:`Settings` (tests and benches vary them)."""

    app_id: str = "epistream"
    topic_prefix: str = ""
    index_alias: str | None = None
    clickhouse_database: str = "epistream"
    batch: int = 500
    within_s: float = 0.05
    #: extract sends one extraction record per partition of a take: a longer window than
    #: materialize's keeps those records few.
    extract_within_s: float = 0.2
    #: ClickHouse sinks: a chDB insert costs ~30 ms of CPU whatever its size, so few large ones.
    sink_batch: int = 5000
    sink_within_s: float = 1.0
    #: extract's raw events and journals and materialize's operations and snapshots are written
    #: behind the stream (streams.write_behind): at most this long after their take, or as soon
    #: as ``clickhouse_batch`` rows wait (intake pauses while that many wait for a write).
    clickhouse_within_s: float = 0.5
    clickhouse_batch: int = 5000
    #: memory.nodes -> OpenSearch: this window is most of the publish-to-retrievable latency.
    index_batch: int = 2000
    index_within_s: float = 0.2
    #: Backoff of a sink write (OpenSearch, ClickHouse) that failed: it is retried, never dropped.
    sink_retry_initial_s: float = 0.5
    sink_retry_max_s: float = 10.0
    commit_interval_s: float = 1.0
    #: Linger and batch size of the producer: each produce request costs the event loop a socket
    #: write that wakes the broker (a context switch on a small box), so fewer, larger requests.
    #: 20 ms and 256 KiB against 5 ms and faust's 16 KiB (every operations record of a take, tens
    #: of KiB, was a batch of its own): +6-11% capacity, -7-11% worker CPU per event in alternating
    #: runs; the linger adds at most 20 ms per hop (two hops to the index).
    producer_linger_s: float = 0.02
    producer_batch_bytes: int = 256 * 1024
    processing_guarantee: str = GUARANTEE
    #: Which agents this process runs: ``all``; ``core`` (extract, materialize, dead letters);
    #: ``index`` (the index sink alone, in the consumer group ``<app_id>-index``), so indexing can
    #: run in processes of its own beside core workers.
    role: str = "all"
    #: How long a dead (SIGKILLed) worker keeps its partitions before the group reassigns them.
    session_timeout_s: float = 30.0


#: Worker roles (see ``WorkerOptions.role``).
ROLES = ("all", "core", "index")

#: Exit status of a worker that stopped itself because an agent failed (see :func:`fail_stop`).
EXIT_AGENT_FAILED = 70


def fail_stop(body: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
    """Turn an unexpected error in an agent into the end of the worker process, uncommitted.

    faust restarts a crashed agent, and ``take_events`` acknowledges the batch the agent held
    when it is closed, so an error would silently skip that batch's records. Exiting at once
    instead (no shutdown, no commit) is exactly a SIGKILL, which the pipeline is proven to
    survive: the records are redelivered to the restarted worker. Expected failures never get
    here: sinks retry (``until_written``), bad input goes to dead letters.
    """

    @functools.wraps(body)
    async def run(*args: Any) -> None:
        try:
            await body(*args)
        except asyncio.CancelledError:
            raise  # rebalance or shutdown: faust's own business
        except Exception as exc:
            log.critical(
                "agent %s failed (%s); stopping this worker without committing: its inputs are redelivered",
                getattr(body, "__name__", "?"),
                type(exc).__name__,
            )
            os._exit(EXIT_AGENT_FAILED)

    return run


def _leave_uncommitted(events: Iterable[Any]) -> None:
    """Keep these records out of the offsets faust commits, so they are delivered again.

    ``take_events`` acknowledges every record of a batch when the agent asks for the next one;
    an acknowledged offset is committed even when it belongs to a partition that was revoked and
    assigned back meanwhile. A record already marked acknowledged is skipped by that bookkeeping
    (faust's ``Message.ack`` does nothing twice), so its offset stays uncommitted: the commit
    cannot pass it, and the consumer, which re-reads from the committed offsets after the
    rebalance, delivers it again.
    """
    for event in events:
        event.message.acked = True


def _hold(event: Any) -> None:
    """One more reference on the record: ``take_events``' acknowledgement no longer makes it committable."""
    event.message.incref()


def _abandon(event: Any) -> None:
    _leave_uncommitted((event,))


def _current_generation(events: list[Any], generation_id: int) -> list[Any]:
    """The records of a take fetched under the consumer's current group generation.

    ``take_events`` fills its buffer in the background, so records fetched before a rebalance can
    be handed over after it. Reducing them then is out of order: an earlier record of the same
    partition may have been left for redelivery by the batch the rebalance overlapped, and the
    consumer now fetches again from the committed offset, so it comes back *after* them, to be
    reduced against a state that already holds its successors (different operations than the
    uninterrupted run). Those records are left uncommitted instead; the consumer delivers them
    again, in order, after the ones before them.
    """
    stale = [ev for ev in events if ev.message.generation_id != generation_id]
    if not stale:
        return events
    log.info("materialize: %d records fetched before a rebalance left for redelivery", len(stale))
    _leave_uncommitted(stale)
    return [ev for ev in events if ev.message.generation_id == generation_id]


def _received_at(timestamp_s: float | None) -> datetime:
    # faust exposes the record timestamp in seconds; a record always has one on Kafka >= 0.10.
    return datetime.fromtimestamp(timestamp_s or 0.0, UTC)


def enrich(event: ConversationEvent, timestamp_s: float | None) -> ConversationEvent:
    """Use the record time as ``received_at`` only when the publisher set none."""
    if event.received_at is not None:
        return event
    return event.model_copy(update={"received_at": _received_at(timestamp_s)})


def _headers(letter: DeadLetter) -> list[tuple[str, bytes]]:
    return [
        (tn.H_REASON, letter.reason_code.encode()),
        (tn.H_SOURCE, letter.source.encode()),
        (tn.H_PARTITION, str(letter.partition if letter.partition is not None else -1).encode()),
        (tn.H_OFFSET, str(letter.offset if letter.offset is not None else -1).encode()),
        (tn.H_MESSAGE, letter.message.encode("utf-8")),
        (tn.H_RECEIVED, letter.received_at.isoformat().encode()),
    ]


def letter_from_record(value: bytes, headers: Iterable[tuple[str, bytes]] | dict[str, bytes] | None) -> DeadLetter:
    """Rebuild a :class:`DeadLetter` from a DLQ record (value = original bytes)."""
    items = headers.items() if isinstance(headers, dict) else (headers or [])
    h = {k: (v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)) for k, v in items}
    partition = int(h.get(tn.H_PARTITION, "-1"))
    offset = int(h.get(tn.H_OFFSET, "-1"))
    return DeadLetter(
        source=h.get(tn.H_SOURCE, "unknown"),
        partition=None if partition < 0 else partition,
        offset=None if offset < 0 else offset,
        reason_code=h.get(tn.H_REASON, "unknown"),
        message=h.get(tn.H_MESSAGE, ""),
        original_bytes=value or b"",
        received_at=datetime.fromisoformat(h[tn.H_RECEIVED]) if tn.H_RECEIVED in h else _EPOCH,
    )


_KEY_MISMATCH_MESSAGE = "the record key is not the input's tenant/owner/scope (see streams.agents.keyed_correctly)"


def _bad_record(raw: bytes, msg: Any, code: str, message: str) -> DeadLetter:
    return DeadLetter(
        source=msg.topic,
        partition=msg.partition,
        offset=msg.offset,
        reason_code=code,
        message=message[:4000],
        original_bytes=raw or b"",
        received_at=_received_at(msg.timestamp),
    )


def create_app(
    settings: Settings,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    opensearch_url: str | None = None,
    options: WorkerOptions | None = None,
    extractor: Extractor | None = None,
    embedder: Any = None,
) -> Any:
    """Build the faust app with its agents; sinks open lazily when the worker starts."""
    import faust

    opts = options or WorkerOptions()
    if opts.role not in ROLES:
        raise ValidationFailed(f"unknown worker role (one of {', '.join(ROLES)})", code="invalid_option")
    runs_core, runs_index = opts.role in ("all", "core"), opts.role in ("all", "index")
    data_path = Path(data_dir if data_dir is not None else settings.data_dir)
    topics = tn.Topics(prefix=opts.topic_prefix, partitions=settings.partitions)
    (data_path / "faust").mkdir(parents=True, exist_ok=True)
    os_url = opensearch_url if opensearch_url is not None else settings.opensearch_url
    alias = opts.index_alias or settings.opensearch_index
    group_id = opts.app_id if opts.role != "index" else f"{opts.app_id}-index"
    app = faust.App(
        group_id,
        broker=f"kafka://{settings.kafka_bootstrap}",
        # Named after the group rather than faust's version: broker logs, metrics and client
        # quotas can then tell deployments (and core from index workers) apart.
        broker_client_id=f"epistream-{group_id}",
        store="memory://",
        datadir=str(data_path / "faust"),
        web_enabled=False,
        processing_guarantee=opts.processing_guarantee,
        topic_partitions=settings.partitions,
        topic_disable_leader=True,
        consumer_auto_offset_reset="earliest",
        broker_commit_interval=opts.commit_interval_s,
        broker_session_timeout=opts.session_timeout_s,
        broker_heartbeat_interval=max(1.0, opts.session_timeout_s / 3),
        producer_acks=-1,
        # A few ms of linger turns a produce request per record into one per burst (fewer syscalls
        # and broker round trips on a 2-core box); it adds at most this much latency per hop.
        producer_linger=opts.producer_linger_s,
        producer_max_batch_size=opts.producer_batch_bytes,
        producer_compression_type=None if settings.kafka_compression == "none" else settings.kafka_compression,
        autodiscover=False,
        # faust's default waits for every in-flight event before a rebalance, which deadlocks with
        # take_events() buffers (the last batch is acked only when the next one starts). Not
        # waiting is safe here: unacked inputs are redelivered to the new owner, which rebuilds
        # state from memory.operations; materialize never writes for a partition it no longer owns.
        stream_wait_empty=False,
    )

    def raw_topic(*names: str) -> Any:
        return app.topic(
            *names,
            key_type=bytes,
            value_type=bytes,
            key_serializer="raw",
            value_serializer="raw",
            partitions=settings.partitions,
        )

    t_events = raw_topic(topics.events)
    t_extractions = raw_topic(topics.extractions)
    t_operations = raw_topic(topics.operations)
    t_nodes = raw_topic(topics.nodes)
    t_events_dlq = raw_topic(topics.events_dlq)
    t_commands_dlq = raw_topic(topics.commands_dlq)
    t_materialize_in = raw_topic(topics.extractions, topics.commands)
    t_dlqs = raw_topic(*topics.dlqs)

    # The rule extractor is pure CPU: in processes of its own it runs beside the event loop instead of
    # taking a quarter of its core (an extractor passed in, or the I/O-bound LLM one, stays here).
    procs = (
        ExtractionPool(settings.extractor, settings, settings.extract_processes)
        if runs_core and extractor is None and settings.extractor != "llm" and settings.extract_processes > 0
        else None
    )
    the_extractor = (
        None if procs is not None or not runs_core else extractor or get_extractor(settings.extractor, settings)
    )
    concurrency = settings.llm_concurrency if settings.extractor == "llm" else 1
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="extract") if concurrency > 1 else None
    reducer = Reducer()
    metrics = WorkerMetrics()
    states = PartitionStates(
        settings.kafka_bootstrap, topics.operations, read_committed=opts.processing_guarantee == "exactly_once"
    )
    mask = None if settings.retain_raw_secrets else agents.masked_content
    sinks: dict[str, Any] = {}
    # Every ClickHouse call runs on this one thread: chDB releases the GIL, so inserts overlap with
    # the event loop instead of stalling every agent, and one thread keeps the session single-user.
    ch_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clickhouse")

    async def until_written(sink: str, write: Any, *, label: str) -> Any:
        """Await ``write()`` until it succeeds, with backoff; the batch is acked only afterwards.

        Letting a failed sink write crash the agent is not an option: faust restarts a crashed
        agent and acknowledges the batch it held, so those records would never be written (an
        OpenSearch outage lost every node document that way). Every sink write here is
        idempotent (ClickHouse deduplication tokens, OpenSearch external versions), so a retry
        adds nothing. While a sink is down its agent waits and its lag grows, which is what
        operators watch; nothing is lost.
        """
        delay = opts.sink_retry_initial_s
        attempt = 0
        while True:
            try:
                return await write()
            except Exception as exc:  # driver and backend errors alike; the type is logged, never the rows
                attempt += 1
                metrics.inc("epistream_sink_retries_total", sink=label)
                detail = exc.message if isinstance(exc, EpistreamError) else type(exc).__name__
                log.warning("%s write failed: %s (attempt %d); retrying in %.1f s", sink, detail, attempt, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, opts.sink_retry_max_s)

    async def in_clickhouse(fn: Any, *args: Any) -> None:
        # Awaited inside the agent: the batch is acked (and its offsets committed) only after the write.
        loop = asyncio.get_running_loop()
        await until_written("ClickHouse", lambda: loop.run_in_executor(ch_pool, fn, *args), label="clickhouse")
    def _release(event: Any) -> None:
        event.message.ack(app.consumer)  # the last reference: the offset becomes committable

    # Every record this worker produces through faust's buffer, until the broker has it (see
    # streams.delivery: faust's own flush before a commit gives up after 0.1 s).
    outbox = Outbox()

    def send(topic: Any, *, key: bytes | None, value: bytes, partition: int | None = None, **kw: Any) -> Sent:
        return outbox.track(topic.send_soon(key=key, value=value, partition=partition, **kw))

    async def _write_extracted(items: list[Extracted]) -> list[bool]:
        first: dict[tuple[str, str], ConversationEvent] = {}  # a repeated event id keeps its first copy
        for evs, _results, _sent in items:
            for e in evs:
                first.setdefault((e.tenant_id, e.event_id), e)
        events = list(first.values())
        results = [r for _e, rs, _s in items for r in rs]
        if events:
            await in_clickhouse(_write_events, events)
        if results:
            await in_clickhouse(_write_journals, results)
        # An event is done when its raw row is stored *and* its extraction records are on the
        # broker: committing it earlier would lose its memory with a crash of this worker.
        await delivered(f for _e, _r, sent in items for f in sent)
        return [True] * len(items)

    def behind(write: Any) -> Any:
        """A ClickHouse write-behind whose records are this app's faust events (see streams.write_behind)."""
        return WriteBehind(
            write,
            max_delay_s=opts.clickhouse_within_s,
            max_items=opts.clickhouse_batch,
            hold=_hold,
            release=_release,
            abandon=_abandon,
        )

    extract_writes: WriteBehind[Extracted] = behind(_write_extracted)
    app.epistream = {  # type: ignore[attr-defined]
        "topics": topics, "states": states, "sinks": sinks, "options": opts, "metrics": metrics,
    }

    def oplog() -> OperationLog:
        if "oplog" not in sinks:
            sinks["oplog"] = OperationLog.connect(
                settings.clickhouse_url, path=data_path, database=opts.clickhouse_database
            )
        return sinks["oplog"]  # type: ignore[no-any-return]

    index_lock = threading.Lock()  # opened from the index sink's thread and from the start-up task

    def index() -> Any:
        with index_lock:
            if "index" not in sinks:
                from sinks.embedding import default_embedder
                from sinks.opensearch_index import OpenSearchIndex

                if not os_url:
                    raise EpistreamError("the index sink needs an OpenSearch URL", code="no_opensearch")
                emb = embedder if embedder is not None else default_embedder(settings.embedder)
                sinks["index"] = OpenSearchIndex.from_settings(settings, emb, url=os_url, alias=alias)
            return sinks["index"]

    def counted(letter: DeadLetter, stage: str) -> DeadLetter:
        """Every dead letter passes here on its way out, so the metrics count each one once."""
        metrics.inc("epistream_dead_letters_total", stage=stage, reason=letter.reason_code)
        return letter

    async def dead_letter(letter: DeadLetter, key: bytes | None, target: Any, stage: str) -> None:
        counted(letter, stage)
        await target.send(key=key, value=letter.original_bytes, headers=_headers(letter))

    # ------------------------------------------------------------------ extract
    async def run_extraction(events: Sequence[ConversationEvent]) -> list[ExtractionResult]:
        if procs is not None:
            return await procs.extract(events)
        extractor_here = the_extractor
        if extractor_here is None:  # only a worker without the core agents has none, and it never extracts
            raise RuntimeError("this worker does not run extraction")
        if pool is None:
            return [agents.extract(extractor_here, e) for e in events]
        loop = asyncio.get_running_loop()
        futures = [loop.run_in_executor(pool, agents.extract, extractor_here, e) for e in events]
        return list(await asyncio.gather(*futures))  # gather keeps input order: per-key order holds

    def _write_events(events: list[ConversationEvent]) -> None:
        oplog().write_events(events, mask=mask)
        metrics.inc("epistream_clickhouse_rows_total", len(events), table="raw_events")

    def _write_journals(results: list[ExtractionResult]) -> None:
        oplog().write_extractions(results)
        metrics.inc("epistream_clickhouse_rows_total", len(results), table="extraction_journal")

    async def extract(stream: Any) -> None:
        async for batch in stream.take_events(opts.batch, within=opts.extract_within_s):
            valid: list[tuple[ConversationEvent, Any]] = []
            metrics.inc("epistream_events_received_total", len(batch))
            for ev in batch:
                msg = ev.message
                admitted = agents.admit(
                    ev.value or b"",
                    source=msg.topic,
                    received_at=_received_at(msg.timestamp),
                    partition=msg.partition,
                    offset=msg.offset,
                    max_content_bytes=settings.max_content_bytes,
                )
                if isinstance(admitted, agents.Rejected):
                    await dead_letter(admitted.letter, msg.key, t_events_dlq, "extract")
                elif not agents.keyed_correctly(msg.key, admitted):
                    letter = _bad_record(ev.value or b"", msg, agents.KEY_MISMATCH, _KEY_MISMATCH_MESSAGE)
                    await dead_letter(letter, msg.key, t_events_dlq, "extract")
                else:
                    event = enrich(admitted, msg.timestamp)
                    valid.append((event, msg))
            events = [e for e, _ in valid]
            now = time.time()
            metrics.observe("epistream_event_age_seconds", (now - (m.timestamp or now) for _e, m in valid))
            results = await run_extraction(events)
            metrics.inc("epistream_events_admitted_total", len(events))
            metrics.count_each("epistream_extractions_total", "status", (r.status for r in results))
            metrics.inc("epistream_claims_total", sum(len(r.claims) for r in results), outcome="accepted")
            metrics.inc("epistream_claims_total", sum(len(r.rejected) for r in results), outcome="rejected")
            # One record per partition of the batch (see streams.extraction_records), in input order.
            by_partition: dict[int, list[ExtractionResult]] = {}
            for (_event, msg), result in zip(valid, results, strict=True):
                by_partition.setdefault(msg.partition, []).append(result)
            sent: list[Sent] = []
            for partition, group in by_partition.items():
                key = group[0].event.partition_key.encode()
                for record in split_to_fit(group, extraction_records.dumps):
                    sent.append(send(t_extractions, key=key, value=record, partition=partition))
            # The raw events and journals are written behind the stream, together with later
            # takes' (a repeated event is stored once, see _write_extracted); the batch's records
            # are acknowledged only once they are durable.
            extract_writes.add((events, results, sent), batch, size=len(events) + len(results))
            await extract_writes.room()

    # -------------------------------------------------------------- materialize
    async def materialize(stream: Any) -> None:
        async for taken in stream.take_events(opts.batch, within=opts.within_s):
            generation = states.generation
            batch = _current_generation(taken, app.consumer_generation_id)
            # (partition, key, batches) of every input record of this take, in order
            outputs: list[tuple[int, bytes | None, list[OpBatch]]] = []
            sent: list[Sent] = []  # dead letters and node snapshots: on the broker before the log record
            stale = urgent = False
            for ev in batch:
                msg = ev.message
                raw: bytes = ev.value or b""
                is_command = msg.topic == topics.commands
                urgent = urgent or is_command
                items: list[ExtractionResult] | list[Command]
                try:
                    items = [parse_command(raw)] if is_command else extraction_records.loads(raw)
                except ValueError as exc:  # pydantic ValidationError / JSON errors
                    target = t_commands_dlq if is_command else t_events_dlq
                    code = "invalid_command" if is_command else "invalid_extraction"
                    await dead_letter(_bad_record(raw, msg, code, type(exc).__name__), msg.key, target, "materialize")
                    continue
                first = items[0] if items else None
                if isinstance(first, CommandBase) and not agents.keyed_correctly(msg.key, first):
                    letter = _bad_record(raw, msg, agents.KEY_MISMATCH, _KEY_MISMATCH_MESSAGE)
                    await dead_letter(letter, msg.key, t_commands_dlq, "materialize")
                    continue
                store = await states.get(msg.partition)
                if states.generation != generation or not states.owns(msg.partition):
                    stale = True  # a rebalance ran while we waited: see below
                    break
                # From the ownership check to the last enqueue nothing yields: the revocation handler
                # (which waits for the records already sent) cannot run in between, so no write lands after a
                # new owner has loaded this partition's state.
                produced: list[OpBatch] = []
                for item in items:
                    try:
                        result = agents.materialize(store, reducer, item)
                    except EpistreamError as exc:  # the reducer journals rule breaks; this is a broken invariant
                        target = t_commands_dlq if is_command else t_events_dlq
                        one = raw if is_command else item.model_dump_json().encode()
                        letter = counted(_bad_record(one, msg, exc.code, exc.message), "materialize")
                        sent.append(send(target, key=msg.key, value=one, headers=_headers(letter)))
                        continue
                    if result.status != "duplicate":
                        metrics.inc("epistream_inputs_reduced_total", kind="command" if is_command else "extraction")
                    if result.operations:
                        produced.append(OpBatch(item.input_id, tuple(result.operations)))
                if produced:
                    outputs.append((msg.partition, msg.key, produced))
            if stale:
                # Nothing of this take reaches the log. Its records must come back: a rebalance
                # (eager: every partition revoked) makes the consumer fetch from the committed
                # offsets again, and they are left out of the commit. Stores that took the
                # unpublished inputs are reloaded from the log. Re-delivered inputs that were
                # published already are duplicates; the rest yield the same operations again.
                log.info("materialize: a rebalance overlapped a batch of %d records; left for redelivery", len(batch))
                metrics.inc("epistream_rebalance_redeliveries_total")
                _leave_uncommitted(batch)
                states.invalidate(partition for partition, _key, _batches in outputs)
                continue
            sent.extend(_send_nodes(outputs))
            n_ops = sum(len(b.operations) for _p, _k, batches in outputs for b in batches)
            # A command's caller may be waiting for its outcome on memory.operations (the API's
            # ?wait=true): its take is written at once rather than after clickhouse_within_s.
            op_writes.add((generation, outputs, sent), batch, size=max(1, n_ops), urgent=urgent)
            await op_writes.room()

    def _send_nodes(outputs: list[tuple[int, bytes | None, list[OpBatch]]]) -> list[Sent]:
        """Node snapshots go out with the take: the index, and so retrieval, does not wait for ClickHouse.

        A snapshot ahead of its log record is harmless: if the log record never comes (crash,
        rebalance), the input is redelivered and yields the byte-identical snapshot, which the
        index refuses as a version it has.
        """
        return [
            send(
                t_nodes,
                key=f"{node.partition_key}/{node.node_id}".encode(),
                value=model_bytes(node),  # its canonical text, built when the operation was sealed
                partition=partition,
            )
            for partition, _key, batches in outputs
            for node in agents.latest_nodes(op for b in batches for op in b.operations)
        ]

    async def _publish_outputs(items: list[Reduced]) -> list[bool]:
        """ClickHouse and memory.nodes first, the log record last: the log never gets ahead of them.

        An input whose record is in ``memory.operations`` is "seen" and never processed again, so
        everything derived from its operations must be durable before that record is: the
        operations and snapshots in ClickHouse (idempotent inserts) and the node snapshots on
        memory.nodes (the index refuses a version it has). A crash before the log record leaves
        the input unseen: it is redelivered and yields byte-identical operations, so the second
        copies change nothing. This is why no sink re-reads ``memory.operations``: the stage that
        holds the operations, with their canonical texts already built, writes them.

        ``items`` are takes in order, each with the generation it was reduced under. A take from
        before a rebalance is not published: the partitions were revoked (eager protocol) and
        their state dropped, and a new owner may already have loaded it without these inputs.
        Its records are left for redelivery.
        """
        live = [item for item in items if item[0] == states.generation]
        ops = [op for _g, outputs, _s in live for _p, _k, batches in outputs for b in batches for op in b.operations]
        if ops:
            await in_clickhouse(_write_operations, ops)
        await delivered(f for _g, _o, sent in live for f in sent)  # node snapshots and dead letters
        # From this check to the last enqueue nothing yields (see the revocation handler).
        current = states.generation
        done: list[bool] = []
        logged: list[Sent] = []
        for generation, outputs, _sent in items:
            if generation != current:
                done.append(False)
                continue
            for partition, key, batches in outputs:
                # Each input's operations stay in one record (split_to_fit cuts between inputs only).
                for record in split_to_fit(batches, OpBatch.dumps_record):
                    logged.append(send(t_operations, key=key, value=record, partition=partition))
            done.append(True)
        metrics.count_each(
            "epistream_operations_total",
            "op_type",
            (
                op.op_type.value
                for (generation, outputs, _s), ok in zip(items, done, strict=True)
                if ok
                for _p, _k, batches in outputs
                for b in batches
                for op in b.operations
            ),
        )
        if not all(done):
            log.info("materialize: a rebalance overlapped %d takes; left for redelivery", done.count(False))
            metrics.inc("epistream_rebalance_redeliveries_total", done.count(False))
        await delivered(logged)  # the inputs are committable once their log records are on the broker
        return done

    op_writes: WriteBehind[Reduced] = behind(_publish_outputs)

    def _forget_unpublished() -> None:
        """After a rebalance no store may keep inputs whose log records will not be published."""
        # Takes still being written and queued ones: their generation is gone, so none is published.
        unwritten = op_writes.unwritten
        op_writes.abandon_pending()  # would be abandoned at the write anyway
        states.invalidate({partition for _generation, outputs, _sent in unwritten for partition, _key, _b in outputs})

    async def _on_revoked(sender: Any, revoked: Any = None, **kwargs: Any) -> None:
        # faust has committed the acknowledged records before this signal; ours are acknowledged
        # only once written and delivered. Takes still waiting were not, so they were not committed.
        parts = sorted({tp.partition for tp in (revoked or ()) if tp.topic in (topics.extractions, topics.commands)})
        states.drop(parts)
        _forget_unpublished()
        # The next owner loads these partitions' state from memory.operations: every log record
        # already sent must be there first (faust's flush does not wait for its whole buffer).
        await outbox.drain(timeout_s=max(5.0, opts.session_timeout_s))
        await app.producer.flush()

    async def _on_assigned(sender: Any, assigned: Any = None, **kwargs: Any) -> None:
        parts = {tp.partition for tp in (assigned or ()) if tp.topic in (topics.extractions, topics.commands)}
        states.assign(parts)
        _forget_unpublished()
        states.preload_soon(parts)

    async def write_behind() -> None:
        await asyncio.gather(extract_writes.run(), op_writes.run())

    # ------------------------------------------------- operations and node snapshots
    def _write_dead_letters(letters: list[DeadLetter]) -> None:
        oplog().write_dead_letters(letters)
        metrics.inc("epistream_clickhouse_rows_total", len(letters), table="dead_letters")

    def _write_operations(ops: list[Operation]) -> None:
        log_ = oplog()
        log_.write_operations(ops)
        snapshots = [op.after for op in ops if op.after is not None]
        log_.write_node_snapshots(snapshots)
        metrics.inc("epistream_clickhouse_rows_total", len(ops), table="operations")
        metrics.inc("epistream_clickhouse_rows_total", len(snapshots), table="node_snapshots")

    async def oplog_dead_letters(stream: Any) -> None:
        async for batch in stream.take_events(opts.sink_batch, within=opts.sink_within_s):
            letters = [letter_from_record(ev.value or b"", ev.message.headers) for ev in batch]
            if letters:
                await in_clickhouse(_write_dead_letters, letters)

    async def index_sink(stream: Any) -> None:
        async for batch in stream.take_events(opts.index_batch, within=opts.index_within_s):
            latest: dict[str, tuple[MemoryNode, Any]] = {}  # node id -> newest snapshot and its record
            broken: list[DeadLetter] = []
            for ev in batch:
                if not ev.value:
                    continue
                try:
                    node = MemoryNode.model_validate_json(ev.value)
                except ValueError as exc:  # only materialize writes here: a bug or a foreign producer
                    broken.append(_bad_record(ev.value, ev.message, "invalid_node_snapshot", type(exc).__name__))
                    continue
                held = latest.get(node.node_id)
                if held is None or node.version > held[0].version:
                    latest[node.node_id] = (node, ev)
            if latest:
                report = await _index_until_written([node for node, _ev in latest.values()])
                rejected = len(report.rejected)
                metrics.inc("epistream_index_documents_total", len(latest) - rejected, outcome="written")
                metrics.inc("epistream_index_documents_total", rejected, outcome="rejected")
                # Refused for good (e.g. a mapping conflict): dead-lettered, not retried forever, so one
                # document cannot stall the index. ClickHouse keeps the snapshot; rebuild-index re-feeds it.
                for node_id, error_type in report.rejected:
                    ev = latest[node_id][1]
                    broken.append(
                        _bad_record(ev.value, ev.message, "index_rejected", f"OpenSearch refused it: {error_type}")
                    )
                if report.rejected:
                    log.warning("index sink: OpenSearch refused %d node documents; dead-lettered", len(report.rejected))
            if broken:  # kept with their bytes in the dead-letter table (ClickHouse keeps the true snapshots)
                await in_clickhouse(_write_dead_letters, [counted(letter, "index") for letter in broken])

    async def _index_until_written(nodes: list[MemoryNode]) -> Any:
        # Opening the index (first use, or again after a failure) is blocking HTTP too.
        return await until_written(
            "index sink: OpenSearch",
            lambda: asyncio.to_thread(lambda: index().upsert_report(nodes)),
            label="opensearch",
        )

    if runs_core:
        app.agent(t_events, name="extract")(fail_stop(extract))
        app.agent(t_materialize_in, name="materialize")(fail_stop(materialize))
        app.agent(t_dlqs, name="oplog_dead_letters")(fail_stop(oplog_dead_letters))
        app.task(fail_stop(write_behind))
        # faust calls a receiver as (sender, partitions, signal=...); its stub asks for *args instead.
        app.on_partitions_revoked.connect(_on_revoked)  # type: ignore[arg-type]
        app.on_partitions_assigned.connect(_on_assigned)  # type: ignore[arg-type]
    if runs_index:
        app.agent(t_nodes, name="index_sink")(fail_stop(index_sink))

    # Record delivery without four asyncio tasks per record (−13% of the loop's CPU at 500 events/s).
    eager_delivery.install(app.consumer)

    if procs is not None:

        async def _start_extraction_processes() -> None:
            await asyncio.to_thread(procs.warm_up)  # spawn now, not on the first batch

        app.task(_start_extraction_processes)

    async def _open_sinks() -> None:
        """Open the ClickHouse log and the node index at start instead of on the first batch.

        Opening loads chDB (or connects to the server), runs pending migrations and creates or
        checks the node index: seconds that would otherwise fall on the first events after every
        start or restart. A sink that cannot be opened now is reported at once (a wrong URL shows
        in the log before traffic does, not after) and is opened again, with retries, by the first
        write, as before.
        """
        loop = asyncio.get_running_loop()
        opening: dict[str, Awaitable[Any]] = {"ClickHouse": loop.run_in_executor(ch_pool, oplog)}
        if os_url and runs_index:
            opening["OpenSearch"] = asyncio.to_thread(index)
        results = await asyncio.gather(*opening.values(), return_exceptions=True)
        for sink, result in zip(opening, results, strict=True):
            if isinstance(result, BaseException):
                detail = result.message if isinstance(result, EpistreamError) else type(result).__name__
                log.warning("%s could not be opened at start: %s; the first write retries", sink, detail)
            else:
                log.info("%s sink open", sink)

    app.task(_open_sinks)

    if settings.metrics_port:

        async def _serve_metrics() -> None:
            """The counters on ``/metrics`` for Prometheus; a port in use stops the worker (fail-stop)."""
            server = await serve_metrics(metrics, settings.metrics_host, settings.metrics_port)
            sinks["metrics_server"] = server

        app.task(fail_stop(_serve_metrics))

    @app.on_before_shutdown.connect  # type: ignore[arg-type]  # (sender, signal=...): see the partition signals
    def _close_sinks(sender: Any, **kwargs: Any) -> None:
        server = sinks.pop("metrics_server", None)
        if server is not None:
            server.close()
        if procs is not None:
            procs.close()
        ch_pool.submit(_close_log).result()  # after any write or start-up open queued before it
        ch_pool.shutdown(wait=True)

    def _close_log() -> None:
        log_ = sinks.pop("oplog", None)
        if log_ is not None:
            log_.close()

    return app


# ---------------------------------------------------------------------- running


def prepare(settings: Settings, options: WorkerOptions | None = None) -> list[str]:
    """Create the deployment's topics (faust would create them without the compaction of memory.nodes).

    A worker often starts beside a broker that is still starting (a compose stack, a rolling
    restart): it retries with backoff for ``kafka_startup_wait_s`` before giving up with
    ``backend_unavailable``, instead of crashing on the first refused connection.
    """
    opts = options or WorkerOptions()
    topics = tn.Topics(prefix=opts.topic_prefix, partitions=settings.partitions)
    deadline = time.monotonic() + settings.kafka_startup_wait_s
    delay = 0.5
    while True:
        try:
            return tn.ensure_topics(settings.kafka_bootstrap, topics)
        except BackendUnavailable as exc:
            left = deadline - time.monotonic()
            if left <= 0:
                raise
            pause = min(delay, left)
            log.warning("Kafka is not answering yet (%s); retrying in %.1f s", exc.details.get("reason"), pause)
            time.sleep(pause)
            delay = min(delay * 2, 10.0)


def run_worker(
    settings: Settings,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    opensearch_url: str | None = None,
    options: WorkerOptions | None = None,
    loglevel: str = "warning",
) -> None:
    """Run one worker until SIGTERM/SIGINT (what ``epistream worker`` calls)."""
    import faust

    from streams.runtime import tune_gc_for_throughput

    tune_gc_for_throughput()
    prepare(settings, options)
    app = create_app(settings, data_dir=data_dir, opensearch_url=opensearch_url, options=options)
    worker = faust.Worker(app, loglevel=loglevel, quiet=True, redirect_stdouts=False)
    # faust's progress spinner sets the root logger to DEBUG, so aiokafka built a log record for
    # every produce request and response (~8% of a worker's CPU); a daemon needs no spinner.
    worker.spinner = None
    profile_to = os.environ.get("EPISTREAM_PROFILE")
    if not profile_to:
        worker.execute_from_commandline()
        return
    # Opt-in profiling of the whole worker (py-spy is not available here): the stats land in
    # ``EPISTREAM_PROFILE`` when the worker stops on SIGTERM.
    import cProfile

    prof = cProfile.Profile(time.thread_time)  # CPU of the event loop thread, not wall time
    prof.enable()
    try:
        worker.execute_from_commandline()
    finally:
        prof.disable()
        prof.dump_stats(profile_to)


# ------------------------------------------------------------------ operations


def consumer_lag(bootstrap: str, group: str, topic_names: Sequence[str]) -> dict[str, int]:
    """Uncommitted records per topic for a consumer group (what to monitor; tests wait for zero)."""
    return asyncio.run(topic_lag(bootstrap, group, topic_names))


@dataclass(frozen=True)
class DlqRecord:
    topic: str
    partition: int
    offset: int
    letter: DeadLetter


async def dlq_list_async(bootstrap: str, topics: tn.Topics, *, limit: int = 1000) -> list[DlqRecord]:
    """Dead letters on the DLQ topics, oldest first per partition (for ``epistream dlq list``)."""
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    out: list[DlqRecord] = []
    async with kafka_client(consumer, "reading the dead-letter topics"):
        tps: list[Any] = []
        for name in topics.dlqs:
            await consumer._client.force_metadata_update()
            tps.extend(TopicPartition(name, p) for p in sorted(consumer.partitions_for_topic(name) or ()))
        if not tps:
            return out
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        ends = await consumer.end_offsets(tps)
        remaining = {tp for tp in tps if ends[tp] > 0}
        while remaining and len(out) < limit:
            got = await consumer.getmany(*remaining, timeout_ms=1000)
            if not got:
                remaining = {tp for tp in remaining if await consumer.position(tp) < ends[tp]}
                continue
            for tp, msgs in got.items():
                for m in msgs:
                    if m.offset < ends[tp]:
                        out.append(DlqRecord(tp.topic, tp.partition, m.offset, letter_from_record(m.value, m.headers)))
                if await consumer.position(tp) >= ends[tp]:
                    remaining.discard(tp)
        return out[:limit]


def dlq_list(bootstrap: str, topics: tn.Topics, *, limit: int = 1000) -> list[DlqRecord]:
    return asyncio.run(dlq_list_async(bootstrap, topics, limit=limit))


def dlq_replay(lines: Iterable[bytes | str], bootstrap: str, topics: tn.Topics) -> Any:
    """Re-drive fixed events (e.g. edited from ``dlq list``) through the validating publisher.

    Events are validated first, so a still-broken line is reported, not looped
    back into the dead-letter queue; re-driving an already processed event id is
    a no-op downstream.
    """
    from streams.publisher import publish_lines

    return publish_lines(lines, bootstrap, topics.events)


def dump_state(data_dir: str | os.PathLike[str], database: str = "epistream") -> dict[str, Any]:
    """Operations, latest node snapshots and dead letters stored by a worker (run after it stopped)."""
    with OperationLog.connect(None, path=data_dir, database=database) as log_:
        ops = list(log_.iter_operations())
        nodes = log_.latest_node_snapshots()
        letters = log_.list_dead_letters(limit=100_000)
        counts = {t: log_.count(t) for t in ("operations", "raw_events", "extraction_journal", "dead_letters")}
        raw_counts = {t: log_.count(t, final=False) for t in ("operations",)}
    return {
        "operations": [[op.op_id, op.checksum] for op in ops],
        "nodes": {n.node_id: n.model_dump(mode="json") for n in nodes},
        "dead_letters": [
            {
                "source": d.source,
                "partition": d.partition,
                "offset": d.offset,
                "reason_code": d.reason_code,
                "original": d.original_bytes.decode("utf-8", "replace"),
            }
            for d in letters
        ],
        "counts": counts,
        "raw_counts": raw_counts,
    }


def numeric_options(pairs: Sequence[str]) -> dict[str, float | int]:
    """``NAME=VALUE`` pairs for the numeric :class:`WorkerOptions` fields, typed like the field."""
    fields = {f.name: f.type for f in dataclasses.fields(WorkerOptions)}
    out: dict[str, float | int] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        kind = fields.get(name.strip())
        if not sep or kind not in ("float", "int"):
            numeric = sorted(n for n, t in fields.items() if t in ("float", "int"))
            raise SystemExit(f"--option {pair!r}: expected NAME=VALUE with NAME one of {', '.join(numeric)}")
        try:
            out[name.strip()] = float(value) if kind == "float" else int(value)
        except ValueError:
            raise SystemExit(f"--option {pair!r}: {value!r} is not a number") from None
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m streams.faust_app")
    sub = parser.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("worker", help="run one worker until SIGTERM")
    w.add_argument("--app-id", default="epistream")
    w.add_argument("--prefix", default="")
    w.add_argument("--partitions", type=int)
    w.add_argument("--bootstrap")
    w.add_argument("--data-dir")
    w.add_argument("--opensearch-url")
    w.add_argument("--index")
    w.add_argument("--embedder")
    w.add_argument("--loglevel", default="warning")
    w.add_argument("--session-timeout", type=float, default=30.0)
    w.add_argument("--role", choices=ROLES, default="all", help="agents to run (see WorkerOptions.role)")
    w.add_argument("--metrics-port", type=int, help="serve the worker's counters on this port (EPISTREAM_METRICS_PORT)")
    w.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=SECONDS_OR_COUNT",
        help="override a numeric WorkerOptions field (batch windows, sizes), e.g. within_s=0.1; for experiments",
    )
    d = sub.add_parser("dump", help="print what a stopped worker stored in chDB (JSON)")
    d.add_argument("--data-dir", required=True)
    args = parser.parse_args(argv)
    if args.cmd == "dump":
        json.dump(dump_state(args.data_dir), sys.stdout)
        return
    overrides: dict[str, Any] = {}
    if args.partitions:
        overrides["partitions"] = args.partitions
    if args.bootstrap:
        overrides["kafka_bootstrap"] = args.bootstrap
    if args.embedder:
        overrides["embedder"] = args.embedder
    if args.metrics_port is not None:
        overrides["metrics_port"] = args.metrics_port
    settings = Settings(**overrides)
    options = WorkerOptions(
        app_id=args.app_id,
        topic_prefix=args.prefix,
        index_alias=args.index,
        role=args.role,
        **{"session_timeout_s": args.session_timeout, **numeric_options(args.option)},
    )
    run_worker(
        settings,
        data_dir=args.data_dir,
        opensearch_url=args.opensearch_url,
        options=options,
        loglevel=args.loglevel,
    )


if __name__ == "__main__":
    main()
