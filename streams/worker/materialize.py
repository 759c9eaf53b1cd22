"""The ``materialize`` agent and the publishing of what it reduced.

memory.extractions + memory.commands (co-partitioned) -> reducer -> operations and node snapshots
to ClickHouse, latest snapshots to memory.nodes (compacted), and last memory.operations (records of
whole inputs: the :class:`~streams.kafka_store.OpBatch` of each input). ``memory.operations`` is the
changelog of materialize's state (and what the API follows for command outcomes); it is written
*after* ClickHouse and memory.nodes, so an input the log calls done has everything derived from it
durable (see :meth:`MaterializeStage._publish_outputs`).
"""

from __future__ import annotations

import logging
from typing import Any

from engine.canonical_fast import model_bytes
from engine.reducer import Reducer
from extractors.base import engine_config_for
from schemas.claims import ExtractionResult
from schemas.commands import Command, CommandBase, parse_command
from schemas.errors import EpistreamError
from streams import agents, extraction_records
from streams.delivery import delivered
from streams.kafka_store import OpBatch
from streams.record_size import split_to_fit
from streams.worker import acks
from streams.worker.clickhouse_log import ClickHouseLog, write_behind
from streams.worker.context import Sent, WorkerContext
from streams.worker.dead_letters import KEY_MISMATCH_MESSAGE, DeadLetters, bad_record, letter_headers, unroutable
from streams.write_behind import WriteBehind

log = logging.getLogger("epistream.worker")

#: (partition, key, batches) of one input record of a take.
Output = tuple[int, bytes | None, list[OpBatch]]
#: A materialize take: the generation it was reduced under, (partition, key, batches) per input
#: record, and the records (node snapshots, dead letters) that must be on the broker before its log.
Reduced = tuple[int, list[Output], list[Sent]]


class MaterializeStage:
    def __init__(self, ctx: WorkerContext, clickhouse: ClickHouseLog, dead_letters: DeadLetters) -> None:
        self.ctx = ctx
        self.clickhouse = clickhouse
        self.dead_letters = dead_letters
        self.reducer = Reducer(engine_config_for(ctx.settings))
        self.writes: WriteBehind[Reduced] = write_behind(ctx, self._publish_outputs)

    async def materialize(self, stream: Any) -> None:
        ctx = self.ctx
        async for taken in stream.take_events(ctx.options.batch, within=ctx.options.within_s):
            with acks.unless_done(taken):
                await self._take(taken)

    async def _take(self, taken: list[Any]) -> None:
        ctx, states, metrics = self.ctx, self.ctx.states, self.ctx.metrics
        t_events_dlq, t_commands_dlq = ctx.channels.events_dlq, ctx.channels.commands_dlq
        generation = states.generation
        batch = acks.current_generation(taken, ctx.app.consumer_generation_id)
        # (partition, key, batches) of every input record of this take, in order
        outputs: list[Output] = []
        sent: list[Sent] = []  # dead letters and node snapshots: on the broker before the log record
        stale = urgent = False
        for ev in batch:
            msg = ev.message
            is_command = msg.topic == ctx.topics.commands
            refused = unroutable(ev.value, msg)
            if refused is not None:
                target = t_commands_dlq if is_command else t_events_dlq
                await self.dead_letters.send(refused, msg.key, target, "materialize")
                continue
            raw: bytes = ev.value or b""
            urgent = urgent or is_command
            items: list[ExtractionResult] | list[Command]
            try:
                items = [parse_command(raw)] if is_command else extraction_records.loads(raw)
            except ValueError as exc:  # pydantic ValidationError / JSON errors
                target = t_commands_dlq if is_command else t_events_dlq
                code = "invalid_command" if is_command else "invalid_extraction"
                letter = bad_record(raw, msg, code, type(exc).__name__)
                await self.dead_letters.send(letter, msg.key, target, "materialize")
                continue
            first = items[0] if items else None
            if isinstance(first, CommandBase) and not agents.keyed_correctly(msg.key, first):
                letter = bad_record(raw, msg, agents.KEY_MISMATCH, KEY_MISMATCH_MESSAGE)
                await self.dead_letters.send(letter, msg.key, t_commands_dlq, "materialize")
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
                    result = agents.materialize(store, self.reducer, item)
                except EpistreamError as exc:  # the reducer journals rule breaks; this is a broken invariant
                    target = t_commands_dlq if is_command else t_events_dlq
                    one = raw if is_command else item.model_dump_json().encode()
                    letter = self.dead_letters.counted(bad_record(one, msg, exc.code, exc.message), "materialize")
                    sent.append(ctx.send(target, key=msg.key, value=one, headers=letter_headers(letter)))
                    continue
                if result.status == "rejected" and not is_command:
                    # A reused event id with other content: the first event stays, this one is kept.
                    one = item.model_dump_json().encode()
                    outcome = result.outcome
                    letter = self.dead_letters.counted(
                        bad_record(one, msg, outcome.error_code or "rejected", outcome.error_message or ""),
                        "materialize",
                    )
                    sent.append(ctx.send(t_events_dlq, key=msg.key, value=one, headers=letter_headers(letter)))
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
            acks.leave_uncommitted(batch)
            states.invalidate(partition for partition, _key, _batches in outputs)
            return
        sent.extend(self._send_nodes(outputs))
        n_ops = sum(len(b.operations) for _p, _k, batches in outputs for b in batches)
        # A command's caller may be waiting for its outcome on memory.operations (the API's
        # ?wait=true): its take is written at once rather than after clickhouse_within_s.
        self.writes.add((generation, outputs, sent), batch, size=max(1, n_ops), urgent=urgent)
        await self.writes.room()

    def _send_nodes(self, outputs: list[Output]) -> list[Sent]:
        """Node snapshots go out with the take: the index, and so retrieval, does not wait for ClickHouse.

        A snapshot ahead of its log record is harmless: if the log record never comes (crash,
        rebalance), the input is redelivered and yields the byte-identical snapshot, which the
        index refuses as a version it has.
        """
        return [
            self.ctx.send(
                self.ctx.channels.nodes,
                key=f"{node.partition_key}/{node.node_id}".encode(),
                value=model_bytes(node),  # its canonical text, built when the operation was sealed
                partition=partition,
            )
            for partition, _key, batches in outputs
            for node in agents.latest_nodes(op for b in batches for op in b.operations)
        ]

    async def _publish_outputs(self, items: list[Reduced]) -> list[bool]:
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
        ctx, states = self.ctx, self.ctx.states
        live = [item for item in items if item[0] == states.generation]
        ops = [op for _g, outputs, _s in live for _p, _k, batches in outputs for b in batches for op in b.operations]
        if ops:
            await self.clickhouse.write(self.clickhouse.write_operations, ops)
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
                    logged.append(ctx.send(ctx.channels.operations, key=key, value=record, partition=partition))
            done.append(True)
        ctx.metrics.count_each(
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
            ctx.metrics.inc("epistream_rebalance_redeliveries_total", done.count(False))
        await delivered(logged)  # the inputs are committable once their log records are on the broker
        return done

    def forget_unpublished(self) -> None:
        """After a rebalance no store may keep inputs whose log records will not be published."""
        # Takes still being written and queued ones: their generation is gone, so none is published.
        unwritten = self.writes.unwritten
        self.writes.abandon_pending()  # would be abandoned at the write anyway
        self.ctx.states.invalidate({partition for _g, outputs, _sent in unwritten for partition, _key, _b in outputs})
