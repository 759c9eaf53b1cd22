"""Partition assignment and revocation: what materialize's states and pending writes do in a rebalance.

faust runs the eager protocol: every partition is revoked, then the new assignment given. A
revoked partition's state is dropped and every take not yet published is forgotten (its records
left for redelivery); the log records already sent reach the broker before the partition goes to
its next owner, which loads its state from memory.operations.
"""

from __future__ import annotations

from typing import Any

from streams.worker.context import WorkerContext
from streams.worker.materialize import MaterializeStage


class PartitionHandlers:
    """The receivers of faust's ``on_partitions_revoked`` and ``on_partitions_assigned`` signals."""

    def __init__(self, ctx: WorkerContext, materialize: MaterializeStage) -> None:
        self.ctx = ctx
        self.materialize = materialize

    def _materialized(self, tps: Any) -> list[int]:
        """The partitions of materialize's inputs among these topic-partitions (in faust's order)."""
        topics = self.ctx.topics
        return [tp.partition for tp in (tps or ()) if tp.topic in (topics.extractions, topics.commands)]

    async def on_revoked(self, sender: Any, revoked: Any = None, **kwargs: Any) -> None:
        # faust has committed the acknowledged records before this signal; ours are acknowledged
        # only once written and delivered. Takes still waiting were not, so they were not committed.
        ctx = self.ctx
        parts = sorted(set(self._materialized(revoked)))
        ctx.states.drop(parts)
        self.materialize.forget_unpublished()
        # The next owner loads these partitions' state from memory.operations: every log record
        # already sent must be there first (faust's flush does not wait for its whole buffer).
        await ctx.outbox.drain(timeout_s=max(5.0, ctx.options.session_timeout_s))
        await ctx.app.producer.flush()

    async def on_assigned(self, sender: Any, assigned: Any = None, **kwargs: Any) -> None:
        parts = set(self._materialized(assigned))
        self.ctx.states.assign(parts)
        self.materialize.forget_unpublished()
        self.ctx.states.preload_soon(parts)
