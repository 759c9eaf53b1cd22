"""Distributed mode of the API: writes go to Kafka, the workers apply them.

In embedded mode a request becomes a call on the local runner. In distributed
mode the same validated event or command is published instead (events to
``conversation.events``, commands to ``memory.commands``, keyed by
``tenant/owner/scope`` so per-owner order holds) and the ``materialize`` worker
is the single writer. A caller that wants the result can wait: the worker
emits one :class:`~streams.kafka_store.OpBatch` per command (one record each) on
``memory.operations``, so the outcome of a command is derived from the batch
whose ``input_id`` equals ``command.input_id`` -- exactly what the embedded
reducer would have returned (:func:`engine.results.outcome_from_operations`).

One long-lived consumer per app reads every partition of ``memory.operations``
from the end (no consumer group: it commits nothing and never rebalances) and
routes batches to waiting futures; a bounded memory of recent command outcomes
answers an exact retry, which the worker acknowledges with no new batch.

Known limits (documented, by design):

* a retry whose original outcome was published before this process started is
  not in that memory: it is republished, the worker emits nothing for it, and
  the caller gets ``202 pending`` (the command is still applied at most once);
* reads come from what the workers write: nodes and retrieval from the index
  the runner is configured with (see ``EmbeddedRunner.node``), provenance, world
  context and assertion state from the operation log (a shared ClickHouse
  server; one owner's node snapshots and edges per request).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from pydantic import BaseModel

from engine.results import Outcome, outcome_from_operations
from schemas.commands import CommandBase
from schemas.errors import BackendUnavailable, EpistreamError
from schemas.events import ConversationEvent
from streams import topics as tn
from streams.kafka_store import OpBatch
from streams.publisher import EventPublisher, command_bytes, idempotent_producer

log = logging.getLogger("epistream.api.distributed")

#: Marker of a command batch in an OpBatch envelope (``{"v":1,"input_id":"command:...``): batches of
#: extractions are skipped without decoding and verifying every operation.
_COMMAND_MARK = b'"input_id":"command:'


class PendingCommand(BaseModel):
    """202 body: the command was published; its outcome was not seen within the wait."""

    command: str
    command_id: str
    input_id: str
    status: Literal["pending"] = "pending"
    code: Literal["pending"] = "pending"


class Dispatch(Protocol):
    """Where the API's writes go when they do not go to the local runner."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def publish_events(self, events: Sequence[ConversationEvent]) -> None: ...

    async def submit(self, command: CommandBase, *, wait_s: float | None) -> Outcome | None:
        """Publish ``command``; its outcome when seen within ``wait_s`` (None: do not wait / timed out)."""
        ...

    def healthy(self) -> bool: ...


class KafkaDispatch:
    """Publishes to a deployment's topics and waits for command outcomes on ``memory.operations``."""

    def __init__(
        self,
        bootstrap: str,
        topics: tn.Topics,
        *,
        max_content_bytes: int | None = None,
        remember: int = 10_000,
    ) -> None:
        self.bootstrap = bootstrap
        self.topics = topics
        self._max_content: dict[str, Any] = {}
        if max_content_bytes is not None:
            self._max_content["max_content_bytes"] = max_content_bytes
        self._events: EventPublisher | None = None  # aiokafka clients bind to the loop they are made on
        self._commands: Any = None
        self._consumer: Any = None
        self._task: asyncio.Task[None] | None = None
        self._waiters: dict[str, list[asyncio.Future[Outcome]]] = {}
        self._seen: OrderedDict[str, Outcome] = OrderedDict()
        self._remember = remember

    # ------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        from aiokafka import AIOKafkaConsumer, TopicPartition

        self._events = EventPublisher(self.bootstrap, self.topics.events, **self._max_content)
        await self._events.start()
        self._commands = idempotent_producer(self.bootstrap)
        await self._commands.start()
        self._consumer = AIOKafkaConsumer(bootstrap_servers=self.bootstrap, enable_auto_commit=False)
        await self._consumer.start()
        await self._consumer._client.force_metadata_update()
        parts = self._consumer.partitions_for_topic(self.topics.operations) or set(range(self.topics.partitions))
        tps = [TopicPartition(self.topics.operations, p) for p in sorted(parts)]
        self._consumer.assign(tps)
        await self._consumer.seek_to_end(*tps)
        for tp in tps:  # resolve the end offsets now: a batch produced after start() is never missed
            await self._consumer.position(tp)
        self._task = asyncio.create_task(self._follow(), name="epistream-operations-follower")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for waiters in self._waiters.values():
            for fut in waiters:
                fut.cancel()
        self._waiters.clear()
        if self._consumer is not None:
            await self._consumer.stop()
            self._consumer = None
        if self._commands is not None:
            await self._commands.stop()
            self._commands = None
        if self._events is not None:
            await self._events.stop()
            self._events = None

    def healthy(self) -> bool:
        return self._task is not None and not self._task.done()

    # ------------------------------------------------------------ follower
    async def _follow(self) -> None:
        while True:
            try:
                got = await self._consumer.getmany(timeout_ms=500, max_records=1000)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a broker hiccup must not end the follower; aiokafka reconnects
                log.warning("operations follower: %s", type(exc).__name__)
                await asyncio.sleep(0.5)
                continue
            for records in got.values():
                for msg in records:
                    if msg.value and _COMMAND_MARK in msg.value[:200]:
                        self._observe(msg.value)

    def _observe(self, raw: bytes) -> None:
        try:
            batches = OpBatch.loads_record(raw)
        except (ValueError, EpistreamError):  # not JSON / not a batch / a checksum that does not match
            log.warning("operations follower: undecodable batch skipped")
            return
        for batch in batches:
            self._settle(batch)

    def _settle(self, batch: OpBatch) -> None:
        request_id = next((op.request_id for op in batch.operations if op.request_id is not None), None)
        outcome = outcome_from_operations(batch.input_id, request_id, batch.operations)
        self._seen[batch.input_id] = outcome
        self._seen.move_to_end(batch.input_id)
        while len(self._seen) > self._remember:
            self._seen.popitem(last=False)
        for fut in self._waiters.pop(batch.input_id, []):
            if not fut.done():
                fut.set_result(outcome)

    # ------------------------------------------------------------ writes
    async def publish_events(self, events: Sequence[ConversationEvent]) -> None:
        """Publish validated events and wait for every acknowledgement (acks=all)."""
        if self._events is None:
            raise BackendUnavailable("the Kafka dispatch is not started", reason="not_started")
        pending = [await self._events.send(event) for event in events]
        for fut in pending:
            await fut

    async def submit(self, command: CommandBase, *, wait_s: float | None) -> Outcome | None:
        input_id = command.input_id
        known = self._seen.get(input_id)
        if known is not None:
            # Same command id => same request id and body: the worker answers it from its request record
            # without a new batch; answer here the same way the reducer does.
            return known.model_copy(update={"retried": True}) if command.request_id is not None else known
        fut: asyncio.Future[Outcome] | None = None
        if wait_s:
            fut = asyncio.get_running_loop().create_future()
            self._waiters.setdefault(input_id, []).append(fut)
        try:
            if self._commands is None:
                raise BackendUnavailable("the Kafka dispatch is not started", reason="not_started")
            parsed, raw = command_bytes(command)
            await self._commands.send_and_wait(self.topics.commands, raw, key=parsed.partition_key.encode("utf-8"))
            if fut is None:
                return None
            try:
                return await asyncio.wait_for(asyncio.shield(fut), wait_s)
            except TimeoutError:
                return None
        finally:
            if fut is not None:
                waiters = self._waiters.get(input_id)
                if waiters is not None and fut in waiters:
                    waiters.remove(fut)
                    if not waiters:
                        del self._waiters[input_id]
