"""The index stage's own Kafka consumer: memory.nodes -> OpenSearch, committed only once written.

Why not a faust agent beside extract and materialize (as before):

* **Isolation.** One faust consumer fetches for every agent of a process and hands each record to
  its agent's queue. While OpenSearch was down the index agent's queue filled, the fetcher waited
  for room in it, and so extraction and the ClickHouse writes of the same worker stopped too
  (extract lag frozen ~40 s during a 30 s outage). This consumer fetches memory.nodes alone, in
  its own group (``<prefix><app id>-index``), so an OpenSearch outage delays the index stage only,
  whatever the role split.
* **Stops commit nothing unwritten.** faust's ``take_events`` acknowledges the batch an agent
  holds when the agent is cancelled, so a SIGTERM during an outage committed node documents that
  were never written (and the index missed them until ``rebuild-index``). Here a batch's offsets
  are committed only after :meth:`IndexSink.write` returned; a stop commits nothing, and the
  restarted worker reads the batch again (OpenSearch refuses the versions it has).

A rebalance while a batch is being written makes its commit fail: the batch is read again by the
partitions' next owner and written again, which the external versions make harmless.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from schemas.errors import EpistreamError
from streams.kafka_errors import kafka_client
from streams.worker.context import WorkerContext
from streams.worker.index_sink import IndexSink, NodeRecord

log = logging.getLogger("epistream.worker")

#: How long the consumer may go without polling while a batch waits for OpenSearch before the group
#: drops it: an outage must not turn into a rebalance storm (the batch retries until written).
MAX_POLL_INTERVAL_MS = 24 * 3600 * 1000


class IndexConsumer:
    def __init__(self, ctx: WorkerContext, sink: IndexSink) -> None:
        self.ctx = ctx
        self.sink = sink
        self.group = ctx.options.index_group_id
        self.consumer: Any = None
        #: Batches written and committed (for tests and diagnostics).
        self.batches = 0
        self.records = 0

    def _consumer(self) -> Any:
        from aiokafka import AIOKafkaConsumer

        opts, settings = self.ctx.options, self.ctx.settings
        session_ms = int(opts.session_timeout_s * 1000)
        return AIOKafkaConsumer(
            self.ctx.topics.nodes,
            bootstrap_servers=settings.kafka_bootstrap,
            group_id=self.group,
            client_id=f"epistream-{self.group}",
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            session_timeout_ms=session_ms,
            heartbeat_interval_ms=max(1000, session_ms // 3),
            max_poll_interval_ms=MAX_POLL_INTERVAL_MS,
            rebalance_timeout_ms=max(session_ms, 60_000),
            isolation_level="read_committed" if opts.processing_guarantee == "exactly_once" else "read_uncommitted",
        )

    async def run(self) -> None:
        """Until cancelled: take a batch, write it (waiting while OpenSearch is down), commit it."""
        consumer = self._consumer()
        self.consumer = consumer
        async with kafka_client(consumer, "joining the index consumer group"):
            self.sink.may_create = not await self._has_committed(consumer)
            await self._open_index()
            while True:
                records = await self._take(consumer)
                if not records:
                    continue
                await self.sink.write(records)
                await self._commit(consumer, records)

    async def _open_index(self) -> None:
        """Open (or create) the index now rather than on the first batch; a failure is only reported here,
        the first write retries it."""
        try:
            await asyncio.to_thread(self.sink.index)
        except Exception as exc:
            detail = exc.message if isinstance(exc, EpistreamError) else type(exc).__name__
            log.warning("OpenSearch could not be opened at start: %s; the first write retries", detail)
        else:
            log.info("OpenSearch sink open")

    async def _has_committed(self, consumer: Any) -> bool:
        """Whether this group has indexed anything before (see ``IndexSink.may_create``)."""
        from aiokafka import TopicPartition

        topic = self.ctx.topics.nodes
        for p in range(self.ctx.topics.partitions):  # every per-owner topic has this count (ensure_topics)
            if (await consumer.committed(TopicPartition(topic, p))) is not None:
                return True
        return False

    async def _take(self, consumer: Any) -> list[NodeRecord]:
        """Up to ``index_batch`` records: whatever arrives within ``index_within_s`` of the first."""
        opts = self.ctx.options
        got = await consumer.getmany(timeout_ms=1000, max_records=opts.index_batch)
        records = _records(got)
        if not records:
            return records
        deadline = time.monotonic() + opts.index_within_s
        while len(records) < opts.index_batch:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            wait_ms = max(1, int(left * 1000))
            more = await consumer.getmany(timeout_ms=wait_ms, max_records=opts.index_batch - len(records))
            records.extend(_records(more))
        return records

    async def _commit(self, consumer: Any, records: list[NodeRecord]) -> None:
        from aiokafka import TopicPartition
        from aiokafka.errors import CommitFailedError, IllegalStateError, KafkaError

        offsets: dict[Any, int] = {}
        for rec in records:
            tp = TopicPartition(rec.topic, rec.partition)
            offsets[tp] = max(offsets.get(tp, 0), rec.offset + 1)
        owned = consumer.assignment()
        mine = {tp: offset for tp, offset in offsets.items() if tp in owned}
        self.batches += 1
        self.records += len(records)
        if not mine:
            return
        try:
            await consumer.commit(mine)
        except (CommitFailedError, IllegalStateError, KafkaError) as exc:
            # A rebalance overlapped the write: the next owner reads these records again (harmless).
            log.info("index consumer: commit after a rebalance failed (%s); the batch is read again",
                     type(exc).__name__)


def _records(got: dict[Any, list[Any]]) -> list[NodeRecord]:
    return [
        NodeRecord(
            value=m.value,
            topic=m.topic,
            partition=m.partition,
            offset=m.offset,
            timestamp=None if m.timestamp is None else m.timestamp / 1000.0,
        )
        for messages in got.values()
        for m in messages
    ]
