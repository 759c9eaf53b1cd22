"""What the worker's stages share: one explicit object, built once by :func:`streams.worker.app.create_app`.

Each stage (extract, materialize, the sinks, the partition handlers) receives this context and
whatever other stage it calls, so what a stage touches shows in its constructor.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from schemas.errors import EpistreamError
from schemas.settings import Settings
from streams import topics as tn
from streams.delivery import Outbox
from streams.kafka_store import PartitionStates
from streams.metrics import WorkerMetrics
from streams.worker import acks
from streams.worker.options import WorkerOptions

if TYPE_CHECKING:  # faust is imported only where a worker is built
    from faust.types import AppT, TopicT

log = logging.getLogger("epistream.worker")

T = TypeVar("T")

#: A record handed to faust's producer: resolves when the broker has acknowledged it.
Sent = asyncio.Future[Any]


@dataclass(frozen=True)
class Channels:
    """The deployment's faust topics; every record is raw bytes, key and value."""

    events: TopicT
    extractions: TopicT
    operations: TopicT
    nodes: TopicT
    events_dlq: TopicT
    commands_dlq: TopicT
    #: memory.extractions and memory.commands (co-partitioned): materialize's input.
    materialize_in: TopicT
    #: Every dead-letter topic: the dead-letter sink's input.
    dlqs: TopicT

    @classmethod
    def of(cls, app: AppT, topics: tn.Topics, partitions: int) -> Channels:
        def raw_topic(*names: str) -> TopicT:
            return app.topic(
                *names,
                key_type=bytes,
                value_type=bytes,
                key_serializer="raw",
                value_serializer="raw",
                partitions=partitions,
            )

        return cls(
            events=raw_topic(topics.events),
            extractions=raw_topic(topics.extractions),
            operations=raw_topic(topics.operations),
            nodes=raw_topic(topics.nodes),
            events_dlq=raw_topic(topics.events_dlq),
            commands_dlq=raw_topic(topics.commands_dlq),
            materialize_in=raw_topic(topics.extractions, topics.commands),
            dlqs=raw_topic(*topics.dlqs),
        )


@dataclass(frozen=True)
class WorkerContext:
    """Settings, options, topics and the shared machinery of one worker process (see the module docstring)."""

    settings: Settings
    options: WorkerOptions
    topics: tn.Topics
    app: AppT
    channels: Channels
    metrics: WorkerMetrics
    #: Materialize's reducer states, per partition this worker owns (the fold of memory.operations).
    states: PartitionStates
    #: Every record this worker produces through faust's buffer, until the broker has it (see
    #: streams.delivery: faust's own flush before a commit gives up after 0.1 s).
    outbox: Outbox
    #: Where the embedded ClickHouse (chDB) keeps its files, beside faust's.
    data_path: Path
    #: The open sinks by name (``oplog``, ``index``, ``metrics_server``), opened lazily; shown on
    #: ``app.epistream["sinks"]``.
    sinks: dict[str, Any]

    def send(self, topic: TopicT, *, key: bytes | None, value: bytes, partition: int | None = None, **kw: Any) -> Sent:
        return self.outbox.track(topic.send_soon(key=key, value=value, partition=partition, **kw))

    def release(self, event: Any) -> None:
        acks.release(event, self.app.consumer)  # the last reference: the offset becomes committable

    async def until_written(self, sink: str, write: Callable[[], Awaitable[T]], *, label: str) -> T:
        """Await ``write()`` until it succeeds, with backoff; the batch is acked only afterwards.

        Letting a failed sink write crash the agent is not an option: faust restarts a crashed
        agent and acknowledges the batch it held, so those records would never be written (an
        OpenSearch outage lost every node document that way). Every sink write here is
        idempotent (ClickHouse rows collapse by their derived keys, OpenSearch external versions), so a retry
        adds nothing. While a sink is down its agent waits and its lag grows, which is what
        operators watch; nothing is lost.
        """
        delay = self.options.sink_retry_initial_s
        attempt = 0
        while True:
            try:
                return await write()
            except Exception as exc:  # driver and backend errors alike; the type is logged, never the rows
                attempt += 1
                self.metrics.inc("epistream_sink_retries_total", sink=label)
                detail = exc.message if isinstance(exc, EpistreamError) else type(exc).__name__
                log.warning("%s write failed: %s (attempt %d); retrying in %.1f s", sink, detail, attempt, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.options.sink_retry_max_s)
