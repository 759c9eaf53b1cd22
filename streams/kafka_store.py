"""Materialize's per-partition state, changelogged in ``memory.operations`` itself.

Why not one faust table per index (nodes, edges, seen ids, claim index, ...)?
A reducer step changes several of them at once, and without transactions each
table write is its own changelog record: a crash between them leaves a state
that no sequence of inputs produces (a node written but its input not marked
seen, or the reverse), and a redelivered input then yields *different*
operations. Exactness under at-least-once needs the state change of one input
to be a single atomic record.

The operation log already is that record: ``StateStore.apply_operation`` is the
only way state changes, so state == fold(operations). The materialize agent
therefore publishes all operations of one input in **one** message to
``memory.operations`` (an :class:`OpBatch`; the batches of several inputs of one
extraction record share a message, split between inputs only, see
``streams.record_size``), on the same partition number as the input, and this
module rebuilds a partition's :class:`InMemoryStateStore` by folding that
partition from offset 0 when the partition is (re)assigned. It is
the faust-table changelog pattern with the operation log as the changelog:

* a record is either fully in the log or absent, so after a crash an input is
  either "seen" with all its operations durable, or unseen and processed again
  from the same state (deterministic reducer -> byte-identical operations);
* there is no second copy of state to drift from the log ClickHouse stores.

The cost is recovery time proportional to the partition's operation history
(no compaction); ``epistream rebuild`` style snapshots would bound it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel, ConfigDict

from engine.canonical_fast import operation_bytes, verify_fast
from engine.store import InMemoryStateStore
from schemas.operations import Operation
from streams.record_size import BATCH_RECORD_PREFIX, BATCH_RECORD_VERSION

log = logging.getLogger("epistream.worker")

BATCH_VERSION: Final = 1


class _Batch(BaseModel):
    """One input's operations as they appear inside a record; pydantic-core parses it directly.

    Going through ``json`` + ``model_validate(dict)`` per operation cost ~5x more and was the
    largest CPU item of a worker.
    """

    model_config = ConfigDict(frozen=True)

    input_id: str
    ops: tuple[Operation, ...]


class _Envelope(_Batch):
    """A single-input record: ``{"v":1,"input_id":..,"ops":[..]}`` (commands, older workers)."""

    v: int = BATCH_VERSION


class _ManyEnvelope(BaseModel):
    """Several inputs' batches in one record: ``{"v":2,"batches":[{"input_id":..,"ops":[..]},..]}``.

    Still atomic (a record is in the log entirely or not at all), so the recovery argument
    of this module holds per record; it only saves the per-record cost of Kafka and faust.
    """

    model_config = ConfigDict(frozen=True)

    v: int = BATCH_RECORD_VERSION
    batches: tuple[_Batch, ...]


@dataclass(frozen=True)
class OpBatch:
    """All operations one input produced: the atomic unit of state change."""

    input_id: str
    operations: tuple[Operation, ...]

    def dumps(self) -> bytes:
        """``{"v":1,"input_id":..,"ops":[..]}`` with each operation in its canonical text.

        The engine built that text when it sealed the operation (the checksum is over it), so
        splicing it is far cheaper than a second pydantic dump; any JSON reader, and
        :meth:`loads`, reads it like the pydantic form.
        """
        return b'{"v":1,' + self._members() + b"}"

    def _members(self) -> bytes:
        """``"input_id":..,"ops":[..]``: the members both record forms give a batch."""
        return b'"input_id":' + json.dumps(self.input_id).encode("ascii") + b',"ops":' + _ops_array(self.operations)

    @classmethod
    def loads(cls, raw: bytes | str) -> OpBatch:
        """One batch from a single-input record (v1)."""
        body = _Envelope.model_validate_json(raw)
        return cls(input_id=body.input_id, operations=_verified(body.ops))

    @staticmethod
    def dumps_record(batches: Sequence[OpBatch]) -> bytes:
        """One record for the batches of one input record: v1 for a single batch, v2 for several."""
        if len(batches) == 1:
            return batches[0].dumps()
        inner = b",".join(b"{" + b._members() + b"}" for b in batches)
        return BATCH_RECORD_PREFIX + b'"batches":[' + inner + b"]}"

    @classmethod
    def loads_record(cls, raw: bytes | str) -> list[OpBatch]:
        """Every batch of a ``memory.operations`` record (v1 or v2), each operation verified."""
        data = raw.encode("utf-8") if isinstance(raw, str) else raw
        if data.startswith(BATCH_RECORD_PREFIX):
            body = _ManyEnvelope.model_validate_json(data)
            return [cls(input_id=b.input_id, operations=_verified(b.ops)) for b in body.batches]
        return [cls.loads(data)]


def _ops_array(ops: Sequence[Operation]) -> bytes:
    return b"[" + b",".join(operation_bytes(op) for op in ops) + b"]"


def _verified(ops: tuple[Operation, ...]) -> tuple[Operation, ...]:
    for op in ops:  # every checksum, on every read
        verify_fast(op)
    return ops


def fold(batches: Sequence[OpBatch], store: InMemoryStateStore | None = None) -> InMemoryStateStore:
    store = store if store is not None else InMemoryStateStore()
    for batch in batches:
        store.apply_all(batch.operations)
    return store


class PartitionStates:
    """One state store per assigned partition, rebuilt from ``memory.operations``.

    Stores are loaded for every assigned partition at once when the assignment
    arrives (:meth:`preload`): one seek and one end-offset request for all of
    them instead of one round trip per partition on its first input, which kept
    the first events of a fresh worker waiting for seconds. A partition that is
    used before its preload finished waits for it (one load at a time, under a
    lock); one that was never preloaded (standalone use) loads on first use.
    """

    def __init__(self, bootstrap: str, operations_topic: str, *, read_committed: bool = False) -> None:
        self.bootstrap = bootstrap
        self.topic = operations_topic
        self.read_committed = read_committed
        self._stores: dict[int, InMemoryStateStore] = {}
        self._owned: set[int] = set()
        self._all_owned = True  # until the first assignment is known (standalone use)
        self._consumer: Any = None
        self._lock: asyncio.Lock | None = None
        #: Bumped by every assignment change: a load that overlapped one is not kept.
        self._generation = 0
        self._preloads: set[asyncio.Task[None]] = set()
        #: Partitions a background preload will load: their first input waits for it.
        self._queued: set[int] = set()
        self.loads = 0
        self.loaded_batches = 0

    async def _reader(self) -> Any:
        if self._consumer is None:
            from aiokafka import AIOKafkaConsumer

            self._consumer = AIOKafkaConsumer(
                bootstrap_servers=self.bootstrap,
                enable_auto_commit=False,
                isolation_level="read_committed" if self.read_committed else "read_uncommitted",
                max_partition_fetch_bytes=8 * 1024 * 1024,
            )
            await self._consumer.start()
        return self._consumer

    def _loading(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def get(self, partition: int) -> InMemoryStateStore:
        store = self._stores.get(partition)
        if store is not None:
            return store
        if partition in self._queued:
            await asyncio.wait(list(self._preloads))
        async with self._loading():
            store = self._stores.get(partition)
            if store is None:
                generation = self._generation
                store = (await self._load([partition]))[partition]
                if self.owns(partition) and generation == self._generation:  # not revoked while loading
                    self._stores[partition] = store
        return store

    async def preload(self, partitions: Iterable[int]) -> None:
        """Load the stores of ``partitions`` that are owned and not loaded yet, in one pass."""
        async with self._loading():
            todo = sorted(p for p in set(partitions) if p not in self._stores and self.owns(p))
            if not todo:
                return
            generation = self._generation
            stores = await self._load(todo)
            if generation != self._generation:
                return  # the assignment changed meanwhile: later inputs load what they need
            for partition, store in stores.items():
                if self.owns(partition):
                    self._stores.setdefault(partition, store)

    def preload_soon(self, partitions: Iterable[int]) -> None:
        """Start :meth:`preload` in the background (from a rebalance callback, which must not block)."""
        parts = list(partitions)
        self._queued.update(parts)
        task = asyncio.ensure_future(self._preload_queued(parts))
        self._preloads.add(task)
        task.add_done_callback(self._preload_done)

    async def _preload_queued(self, partitions: list[int]) -> None:
        try:
            await self.preload(partitions)
        finally:
            self._queued.difference_update(partitions)

    def _preload_done(self, task: asyncio.Task[None]) -> None:
        self._preloads.discard(task)
        if not task.cancelled() and task.exception() is not None:
            # Not fatal: the partitions load on first use instead.
            log.warning("state preload failed: %s", type(task.exception()).__name__)

    async def _load(self, partitions: Sequence[int]) -> dict[int, InMemoryStateStore]:
        from aiokafka import TopicPartition

        consumer = await self._reader()
        tps = [TopicPartition(self.topic, p) for p in partitions]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        ends = await consumer.end_offsets(tps)
        stores = {p: InMemoryStateStore() for p in partitions}
        self.loads += len(partitions)
        pending = [tp for tp in tps if await consumer.position(tp) < ends[tp]]
        while pending:
            records = await consumer.getmany(*pending, timeout_ms=1000, max_records=2000)
            for tp, messages in records.items():
                store = stores[tp.partition]
                for msg in messages:
                    if msg.offset >= ends[tp]:
                        break
                    for batch in OpBatch.loads_record(msg.value):
                        store.apply_all(batch.operations)
                        self.loaded_batches += 1
            pending = [tp for tp in pending if await consumer.position(tp) < ends[tp]]
        return stores

    def assign(self, partitions: set[int]) -> None:
        """Partitions this worker may write for (from the consumer group assignment)."""
        self._all_owned = False
        self._owned |= set(partitions)
        self._generation += 1

    @property
    def generation(self) -> int:
        """Changes with every assignment change: work started under another generation is stale."""
        return self._generation

    def owns(self, partition: int) -> bool:
        return self._all_owned or partition in self._owned

    def invalidate(self, partitions: Iterable[int]) -> None:
        """Forget the stores (not the ownership) of ``partitions``: they hold inputs the log does not.

        Used when applied operations could not be published: the next input reloads the
        partition from the log, so its state is again exactly fold(log).
        """
        for p in partitions:
            self._stores.pop(p, None)

    def drop(self, partitions: Sequence[int] | None = None) -> None:
        """Forget state of revoked partitions (all when None); it is reloaded on next use."""
        self._generation += 1
        if partitions is None:
            self._stores.clear()
            self._owned.clear()
        else:
            for p in partitions:
                self._stores.pop(p, None)
                self._owned.discard(p)

    async def close(self) -> None:
        for task in list(self._preloads):
            task.cancel()
        if self._consumer is not None:
            await self._consumer.stop()
            self._consumer = None
