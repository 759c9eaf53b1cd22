"""The worker's ClickHouse log: lazily opened, written on one thread, retried until written, behind the stream.

The stage that already holds the parsed value writes it here, instead of a separate sink agent
re-reading its topic (every consumption costs faust/aiokafka machinery and a parse). Extract's raw
events and journals and materialize's operations and snapshots are written *behind* the stream
(:func:`write_behind`, :mod:`streams.write_behind`): the rows of the takes of up to
``clickhouse_within_s`` go in one insert per table, because a chDB insert costs ~30 ms of CPU
whatever its size, and the takes' input records stay unacknowledged (so uncommitted) until that
insert returned. ClickHouse writes carry insert-dedup tokens over derived ids and the tables are
ReplacingMergeTree on those ids, so a retried or redelivered write adds nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from schemas.claims import ExtractionResult
from schemas.events import ConversationEvent
from schemas.operations import Operation
from schemas.records import DeadLetter
from sinks.clickhouse import OperationLog
from streams.worker import acks
from streams.worker.context import WorkerContext
from streams.write_behind import Write, WriteBehind

T = TypeVar("T")


class ClickHouseLog:
    def __init__(self, ctx: WorkerContext) -> None:
        self.ctx = ctx
        # Every ClickHouse call runs on this one thread: chDB releases the GIL, so inserts overlap with
        # the event loop instead of stalling every agent, and one thread keeps the session single-user.
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clickhouse")

    def oplog(self) -> OperationLog:
        sinks = self.ctx.sinks
        if "oplog" not in sinks:
            sinks["oplog"] = OperationLog.connect(
                self.ctx.settings.clickhouse_url, path=self.ctx.data_path, database=self.ctx.options.clickhouse_database
            )
        return sinks["oplog"]  # type: ignore[no-any-return]

    def open_soon(self) -> asyncio.Future[OperationLog]:
        """Open the log on the ClickHouse thread (at start, so the first batch does not wait for it)."""
        return asyncio.get_running_loop().run_in_executor(self.pool, self.oplog)

    async def write(self, fn: Callable[..., None], *args: Any) -> None:
        # Awaited inside the agent: the batch is acked (and its offsets committed) only after the write.
        loop = asyncio.get_running_loop()
        await self.ctx.until_written(
            "ClickHouse", lambda: loop.run_in_executor(self.pool, fn, *args), label="clickhouse"
        )

    # The writes themselves, run on the ClickHouse thread through :meth:`write`.

    def write_events(self, events: list[ConversationEvent]) -> None:
        self.oplog().write_events(events)
        self.ctx.metrics.inc("epistream_clickhouse_rows_total", len(events), table="raw_events")

    def write_journals(self, results: list[ExtractionResult]) -> None:
        self.oplog().write_extractions(results)
        self.ctx.metrics.inc("epistream_clickhouse_rows_total", len(results), table="extraction_journal")

    def write_dead_letters(self, letters: list[DeadLetter]) -> None:
        self.oplog().write_dead_letters(letters)
        self.ctx.metrics.inc("epistream_clickhouse_rows_total", len(letters), table="dead_letters")

    def write_operations(self, ops: list[Operation]) -> None:
        log_ = self.oplog()
        log_.write_operations(ops)
        snapshots = [op.after for op in ops if op.after is not None]
        log_.write_node_snapshots(snapshots)
        self.ctx.metrics.inc("epistream_clickhouse_rows_total", len(ops), table="operations")
        self.ctx.metrics.inc("epistream_clickhouse_rows_total", len(snapshots), table="node_snapshots")

    def close(self) -> None:
        """Close the log and stop the thread, after any write or start-up open queued before."""
        self.pool.submit(self._close_log).result()
        self.pool.shutdown(wait=True)

    def _close_log(self) -> None:
        log_ = self.ctx.sinks.pop("oplog", None)
        if log_ is not None:
            log_.close()


def write_behind(ctx: WorkerContext, write: Write[T]) -> WriteBehind[T]:
    """A ClickHouse write-behind whose records are this app's faust events (see streams.write_behind)."""
    return WriteBehind(
        write,
        max_delay_s=ctx.options.clickhouse_within_s,
        max_items=ctx.options.clickhouse_batch,
        hold=acks.hold,
        release=ctx.release,
        abandon=acks.abandon,
    )
