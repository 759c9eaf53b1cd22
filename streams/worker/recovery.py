"""Kafka or OpenSearch coming back empty: how a deployment notices, and how ``epistream repair`` restores it.

Both are projections a deployment cannot silently lose:

* **Kafka.** A worker rebuilds each partition's state by folding ``memory.operations`` from offset
  0. A broker that lost its data (a wiped volume, a local ``services up --wipe``) comes back
  without the topics; the workers would create them empty and reduce new input against an empty
  state: duplicate claims, contradictions against nothing. A core worker therefore refuses to start
  (``kafka_state_lost``) when ``memory.operations`` holds no record while the operation log holds
  operations of events the broker no longer has (:func:`state_lost`); :func:`restore_kafka` writes
  the log's operations back (one record per input, on the input's partition, in an order that
  respects every node's versions: :mod:`engine.chains`) and the latest node snapshots and excerpts
  to ``memory.nodes``.
* **OpenSearch.** An index that disappears after the deployment indexed into it is not recreated by
  the index stage (an empty index would silently miss every document written before); the stage
  waits and says so. :func:`repair_index` recreates the alias and re-feeds it from ``memory.nodes``
  (compacted: the latest snapshot of every node and excerpt), or from the log's snapshots when Kafka
  holds none.

External versions (OpenSearch) and the reducer's seen inputs (Kafka) make both safe to run again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from engine.canonical_fast import model_bytes
from engine.chains import input_batches, verify_chains
from schemas.errors import EpistreamError
from schemas.nodes import MemoryNode
from schemas.settings import Settings
from sinks.documents import excerpt_alias, is_excerpt
from streams import topics as tn
from streams.agents import excerpt_documents
from streams.kafka_errors import kafka_client
from streams.kafka_store import OpBatch
from streams.publisher import idempotent_producer
from streams.record_size import split_to_fit

if TYPE_CHECKING:
    from sinks.clickhouse import OperationLog
    from sinks.embedding import Embedder

log = logging.getLogger("epistream.repair")

#: Records read from memory.nodes per upsert while re-feeding an index.
_REFEED_BATCH = 2000


class KafkaStateLost(EpistreamError):
    """memory.operations holds nothing while the operation log holds operations: Kafka lost its data."""

    code = "kafka_state_lost"
    http_status = 503


async def topic_records(bootstrap: str, topic: str) -> int | None:
    """Records ever written to ``topic`` (the sum of its end offsets); None when it does not exist."""
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    async with kafka_client(consumer, "reading topic offsets"):
        await consumer._client.force_metadata_update()
        partitions = consumer.partitions_for_topic(topic)
        if not partitions:
            return None
        ends = await consumer.end_offsets([TopicPartition(topic, p) for p in sorted(partitions)])
    return int(sum(ends.values()))


async def missing_topics(bootstrap: str, topics: tn.Topics) -> list[str]:
    """The deployment's topics the broker does not have."""
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    async with kafka_client(admin, "listing topics", stop=admin.close):
        existing = set(await admin.list_topics())
    return sorted(name for name in topics.all() if name not in existing)


def state_lost(*, operation_records: int, event_records: int, stored_operations: int, stored_events: int) -> bool:
    """Whether an empty memory.operations means Kafka lost the deployment's state.

    The log runs ahead of memory.operations by design: materialize writes a take's operations to
    ClickHouse while their records may still wait in the producer, and a worker killed then leaves
    operations in the log that the topic never received. Their inputs were not committed, so they
    are redelivered and reduce to the same operations; starting is right. A broker that lost its data
    lost ``memory.events`` with it: the events topic then holds fewer records (end offsets count every
    record ever written, so retention does not lower them) than the events the log stored.
    """
    if operation_records or not stored_operations:
        return False
    return event_records < stored_events


def check_kafka_state(settings: Settings, topics: tn.Topics, oplog: Callable[[], OperationLog]) -> None:
    """Refuse to start a core worker on a broker that lost this deployment's state (see the module docstring)."""
    records = asyncio.run(topic_records(settings.kafka_bootstrap, topics.operations))
    if records:
        return
    log_ = oplog()
    try:
        stored = log_.count("operations", final=False)
        stored_events = log_.count("raw_events", final=True) if stored else 0
    finally:
        log_.close()
    events = 0
    if stored:
        events = asyncio.run(topic_records(settings.kafka_bootstrap, topics.events)) or 0
    if state_lost(
        operation_records=records or 0, event_records=events, stored_operations=stored, stored_events=stored_events
    ):
        raise KafkaStateLost(
            f"{topics.operations} holds no record but the operation log holds {stored} operations: Kafka lost this "
            "deployment's data (or its topics were deleted). Workers rebuild their state from that topic, so "
            "starting now would reduce new input against an empty state. Run `epistream repair` (it restores "
            f"{topics.operations} and {topics.nodes} from the log), then start the workers.",
            topic=topics.operations,
            operations=stored,
        )
    if stored:
        log.info(
            "%s holds no record yet; the log's %d operations belong to inputs Kafka still holds (%d events): starting",
            topics.operations,
            stored,
            events,
        )


def partition_for(key: bytes, partitions: int) -> int:
    """The partition Kafka's default partitioner gives ``key`` (what ``epistream publish`` and the API use)."""
    from aiokafka.partitioner import DefaultPartitioner

    return int(DefaultPartitioner()(key, list(range(partitions)), list(range(partitions))))


@dataclass
class KafkaRestore:
    operations: int = 0
    inputs: int = 0
    records: int = 0
    nodes: int = 0
    excerpts: int = 0
    chains: dict[str, Any] = field(default_factory=dict)


async def restore_kafka(
    bootstrap: str, topics: tn.Topics, oplog: OperationLog, *, excerpt_turns: int
) -> KafkaRestore:
    """Write the log's operations back to an empty memory.operations, and its latest nodes to memory.nodes.

    Refuses (``kafka_state_not_empty``) when memory.operations already holds records: the workers'
    state would then be the fold of two copies.
    """
    if await topic_records(bootstrap, topics.operations):
        raise EpistreamError(
            f"{topics.operations} already holds records; nothing to restore",
            code="kafka_state_not_empty",
            topic=topics.operations,
        )
    ops = list(oplog.stream_operations())
    batches = input_batches(ops)
    report = KafkaRestore(operations=len(ops), inputs=len(batches), chains=verify_chains(ops).as_dict())
    by_partition: dict[int, list[tuple[bytes, OpBatch]]] = {}
    for batch in batches:
        first = batch.operations[0]
        key = first.partition_key.encode("utf-8")
        by_partition.setdefault(partition_for(key, topics.partitions), []).append(
            (key, OpBatch(batch.input_id, batch.operations))
        )
    producer = idempotent_producer(bootstrap, compression_type="zstd")
    async with kafka_client(producer, "restoring memory.operations"):
        pending: list[Any] = []
        for partition, items in sorted(by_partition.items()):
            for key, group in _same_key_runs(items):
                for record in split_to_fit(group, OpBatch.dumps_record):
                    pending.append(await producer.send(topics.operations, record, key=key, partition=partition))
                    report.records += 1
        for node in _latest_nodes(oplog, excerpt_turns):
            key = f"{node.partition_key}/{node.node_id}".encode()
            partition = partition_for(node.partition_key.encode("utf-8"), topics.partitions)
            pending.append(await producer.send(topics.nodes, model_bytes(node), key=key, partition=partition))
            if is_excerpt(node):
                report.excerpts += 1
            else:
                report.nodes += 1
        for fut in pending:
            await fut
    return report


def _same_key_runs(items: list[tuple[bytes, OpBatch]]) -> Iterator[tuple[bytes, list[OpBatch]]]:
    """Consecutive batches of one key, so a record never mixes owners (as materialize writes them)."""
    run: list[OpBatch] = []
    run_key: bytes | None = None
    for key, batch in items:
        if key != run_key and run:
            assert run_key is not None
            yield run_key, run
            run = []
        run_key = key
        run.append(batch)
    if run and run_key is not None:
        yield run_key, run


def _latest_nodes(oplog: OperationLog, excerpt_turns: int) -> Iterator[MemoryNode]:
    yield from oplog.latest_node_snapshots()
    yield from excerpt_documents(oplog, excerpt_turns)


@dataclass
class IndexRepair:
    alias: str
    #: Whether the alias (claims or excerpts) was missing and has been created.
    created: list[str] = field(default_factory=list)
    #: Where the documents came from: memory.nodes, the log, or nothing (index intact, no --reindex).
    source: str = "none"
    read: int = 0
    written: int = 0
    stale: int = 0
    rejected: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def missing_aliases(client: Any, alias: str) -> list[str]:
    from sinks.opensearch_mapping import current_index

    return [name for name in (alias, excerpt_alias(alias)) if current_index(client, name) is None]


async def _node_records(bootstrap: str, topic: str) -> Any:
    """Every record of memory.nodes up to its current end, in batches (values only)."""
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    async with kafka_client(consumer, "reading memory.nodes"):
        await consumer._client.force_metadata_update()
        tps = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or ())]
        if not tps:
            return
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        ends = await consumer.end_offsets(tps)
        pending = [tp for tp in tps if await consumer.position(tp) < ends[tp]]
        while pending:
            got = await consumer.getmany(*pending, timeout_ms=1000, max_records=_REFEED_BATCH)
            values = [m.value for tp, msgs in got.items() for m in msgs if m.offset < ends[tp] and m.value]
            if values:
                yield values
            pending = [tp for tp in pending if await consumer.position(tp) < ends[tp]]


def _node(value: bytes) -> MemoryNode | None:
    try:
        return MemoryNode.model_validate_json(value)
    except ValueError:  # the index stage dead-letters these (invalid_node_snapshot); nothing to index
        return None


def repair_index(
    settings: Settings,
    topics: tn.Topics,
    embedder: Embedder,
    *,
    oplog: Callable[[], AbstractContextManager[OperationLog]] | None,
    reindex: bool = False,
) -> IndexRepair:
    """Recreate a missing alias (claims or excerpts) and re-feed it; with ``reindex`` re-feed in any case."""
    from sinks.opensearch_client import as_client
    from sinks.opensearch_index import OpenSearchIndex

    assert settings.opensearch_url
    alias = settings.opensearch_index
    client = as_client(settings.opensearch_url)
    try:
        missing = missing_aliases(client, alias)
    finally:
        client.close()
    report = IndexRepair(alias=alias, created=missing)
    if not missing and not reindex:
        return report
    claims = OpenSearchIndex.from_settings(settings, embedder)  # creates what is missing
    said = OpenSearchIndex.from_settings(settings, embedder, alias=excerpt_alias(alias))

    def feed(nodes: Iterable[MemoryNode]) -> None:
        batch = list(nodes)
        report.read += len(batch)
        for target, chosen in ((claims, [n for n in batch if not is_excerpt(n)]),
                               (said, [n for n in batch if is_excerpt(n)])):  # fmt: skip
            if chosen:
                done = target.upsert_report(chosen)
                report.written += done.written
                report.stale += done.stale
                report.rejected += len(done.rejected)

    async def from_topic() -> int:
        n = 0
        async for values in _node_records(settings.kafka_bootstrap, topics.nodes):
            feed(node for v in values if (node := _node(v)) is not None)
            n += len(values)
        return n

    try:
        if asyncio.run(from_topic()):
            report.source = topics.nodes
        elif oplog is not None:
            with oplog() as log_:
                report.source = "operation log"
                snapshots = log_.latest_node_snapshots()
                for start in range(0, len(snapshots), _REFEED_BATCH):
                    feed(snapshots[start : start + _REFEED_BATCH])
                chunk: list[MemoryNode] = []
                for doc in excerpt_documents(log_, settings.excerpt_context_turns):
                    chunk.append(doc)
                    if len(chunk) >= _REFEED_BATCH:
                        feed(chunk)
                        chunk = []
                feed(chunk)
        claims.refresh()
        said.refresh()
    finally:
        claims.close()
        said.close()
    return report
