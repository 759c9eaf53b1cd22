"""A stage's ClickHouse writes gathered across takes; its input records acknowledged only afterwards.

Why: a chDB insert costs ~30 ms of CPU whatever its size (two inserts of 50 operations took 63 ms,
of 500 operations 79 ms; a bare one-row insert into a plain MergeTree ~10 ms). Writing once per take
(every 50-200 ms, two inserts per stage) made chDB's own threads a third of a worker's CPU at
340 events/s, and put the insert on the path of every event to the index. Records that need the
write to be durable first (the log records of ``memory.operations``) wait for it here; records that
do not (extraction records, node snapshots) go out at once, so the publish-to-retrievable path no
longer contains a ClickHouse insert.

The input records of a take stay unacknowledged until the write that holds their rows returned:
``hold`` keeps a record out of the offsets the consumer commits (faust: one more reference on the
message), ``release`` acknowledges it, ``abandon`` leaves it uncommitted for redelivery (a write
whose work became stale, e.g. after a rebalance). A crash before the write loses nothing: the
records come back and yield the same rows, which the idempotent inserts absorb.

Memory is bounded: past ``max_items`` pending rows the stage waits (:meth:`room`) for the write in
progress, so a ClickHouse outage stops intake instead of growing the buffer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import suppress
from typing import Any, Generic, TypeVar

T = TypeVar("T")

#: Writes the items (in the order added) and says, per item, whether its records may be acknowledged.
Write = Callable[[list[T]], Awaitable[Sequence[bool]]]


class WriteBehind(Generic[T]):
    def __init__(
        self,
        write: Write[T],
        *,
        max_delay_s: float,
        max_items: int,
        hold: Callable[[Any], None],
        release: Callable[[Any], None],
        abandon: Callable[[Any], None],
    ) -> None:
        if max_delay_s <= 0 or max_items <= 0:
            raise ValueError("max_delay_s and max_items must be positive")
        self._write = write
        self.max_delay_s = max_delay_s
        self.max_items = max_items
        self._hold, self._release, self._abandon = hold, release, abandon
        self._pending: list[tuple[T, list[Any]]] = []
        self._writing: list[T] = []
        self._size = 0
        self._first_at: float | None = None
        self._urgent = False
        self._kick = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()
        self._idle = asyncio.Event()
        self._idle.set()
        #: Writes done and items written, for logs and tests.
        self.writes = 0
        self.items_written = 0

    @property
    def pending(self) -> int:
        """Rows added and not yet handed to a write."""
        return self._size

    @property
    def unwritten(self) -> list[T]:
        """Items whose write has not returned: the one in progress, then the queued ones, in order."""
        return [*self._writing, *(item for item, _records in self._pending)]

    def add(self, item: T, records: Sequence[Any], size: int = 1, *, urgent: bool = False) -> None:
        """Queue ``item`` (``size`` rows) for the next write; ``records`` stay unacknowledged until it returns.

        ``urgent``: someone waits for this item's outcome (an API call waiting for its command), so
        the write starts now with whatever is queued instead of after ``max_delay_s``.
        """
        for record in records:
            self._hold(record)
        self._pending.append((item, list(records)))
        self._size += size
        if self._first_at is None:
            self._first_at = time.monotonic()
        self._urgent = self._urgent or urgent
        if self._size >= self.max_items:
            self._room.clear()
        self._kick.set()

    async def room(self) -> None:
        """Wait while a full buffer waits for its write (back-pressure on the stage's intake)."""
        await self._room.wait()

    def abandon_pending(self) -> list[T]:
        """Leave every queued item's records for redelivery and drop the items (their work went stale)."""
        dropped, self._pending = self._pending, []
        self._size, self._first_at, self._urgent = 0, None, False
        self._room.set()
        for _item, records in dropped:
            for record in records:
                self._abandon(record)
        return [item for item, _records in dropped]

    async def flush(self) -> None:
        """Write whatever is queued now (and wait for a write already running)."""
        await self._idle.wait()
        await self._write_pending()

    async def run(self) -> None:
        """Background loop: write when the oldest queued item is ``max_delay_s`` old or the buffer is full."""
        while True:
            if not self._pending:
                self._kick.clear()
                await self._kick.wait()
                continue
            assert self._first_at is not None
            wait = self._first_at + self.max_delay_s - time.monotonic()
            if wait > 0 and self._size < self.max_items and not self._urgent:
                self._kick.clear()
                with suppress(TimeoutError):
                    await asyncio.wait_for(self._kick.wait(), wait)
                continue
            await self._write_pending()

    async def _write_pending(self) -> None:
        if not self._pending:
            return
        batch, self._pending = self._pending, []
        self._size, self._first_at, self._urgent = 0, None, False
        self._idle.clear()
        self._writing = [item for item, _records in batch]
        try:
            outcome = await self._write(list(self._writing))
            if len(outcome) != len(batch):
                raise RuntimeError("a write must say, per item, whether its records may be acknowledged")
            for (_item, records), done in zip(batch, outcome, strict=True):
                settle = self._release if done else self._abandon
                for record in records:
                    settle(record)
            self.writes += 1
            self.items_written += len(batch)
        finally:
            self._writing = []
            self._idle.set()
            if self._size < self.max_items:
                self._room.set()
