"""The ``extract`` agent: conversation.events -> admit -> extraction -> memory.extractions (or the DLQ).

Each admitted message's source excerpt (what was said, see ``schemas.excerpts``) goes to
``memory.nodes`` beside the claims' snapshots, as a document of the node shape keyed by its own
id: the index sink writes it to the deployment's excerpt collection.

Its raw events and extraction journals go to ClickHouse behind the stream; the extraction records
do not wait for that write (the path to the index holds no ClickHouse insert). A batch's input
records are acknowledged only once its rows are stored *and* its extraction records are on the
broker.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from extractors.base import Extractor, get_extractor
from schemas.claims import ExtractionResult
from schemas.events import ConversationEvent
from schemas.settings import Settings
from sinks.documents import excerpt_document
from streams import agents, extraction_records
from streams.delivery import delivered
from streams.extract_pool import ExtractionPool
from streams.record_size import split_to_fit
from streams.worker import acks
from streams.worker.clickhouse_log import ClickHouseLog, write_behind
from streams.worker.context import Sent, WorkerContext
from streams.worker.dead_letters import KEY_MISMATCH_MESSAGE, DeadLetters, bad_record, unroutable
from streams.worker.timestamps import enrich, received_at
from streams.write_behind import WriteBehind

#: An extract take on its way to ClickHouse: its events, their extraction results, the records sent.
Extracted = tuple[list[ConversationEvent], list[ExtractionResult], list[Sent]]


class ExtractionRunner:
    """Where extraction runs: a process pool, a thread pool (the I/O-bound LLM extractor), or the loop."""

    def __init__(self, settings: Settings, *, runs_core: bool, extractor: Extractor | None = None) -> None:
        # The rule extractor is pure CPU: in processes of its own it runs beside the event loop instead of
        # taking a quarter of its core (an extractor passed in, or the I/O-bound LLM one, stays here).
        self.procs = (
            ExtractionPool(settings.extractor, settings, settings.extract_processes)
            if runs_core and extractor is None and settings.extractor != "llm" and settings.extract_processes > 0
            else None
        )
        self.extractor = (
            None
            if self.procs is not None or not runs_core
            else extractor or get_extractor(settings.extractor, settings)
        )
        concurrency = settings.llm_concurrency if settings.extractor == "llm" else 1
        self.pool = (
            ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="extract") if concurrency > 1 else None
        )

    async def run(self, events: Sequence[ConversationEvent]) -> list[ExtractionResult]:
        if self.procs is not None:
            return await self.procs.extract(events)
        extractor_here = self.extractor
        if extractor_here is None:  # only a worker without the core agents has none, and it never extracts
            raise RuntimeError("this worker does not run extraction")
        if self.pool is None:
            return [agents.extract(extractor_here, e) for e in events]
        loop = asyncio.get_running_loop()
        futures = [loop.run_in_executor(self.pool, agents.extract, extractor_here, e) for e in events]
        return list(await asyncio.gather(*futures))  # gather keeps input order: per-key order holds


class ExtractStage:
    def __init__(
        self, ctx: WorkerContext, runner: ExtractionRunner, clickhouse: ClickHouseLog, dead_letters: DeadLetters
    ) -> None:
        self.ctx = ctx
        self.runner = runner
        self.clickhouse = clickhouse
        self.dead_letters = dead_letters
        self.time_bounds = ctx.settings.time_bounds()
        self.writes: WriteBehind[Extracted] = write_behind(ctx, self._write_extracted)
        self.conversations = agents.ConversationContext(ctx.settings.excerpt_context_turns)

    async def _write_extracted(self, items: list[Extracted]) -> list[bool]:
        first: dict[tuple[str, str], ConversationEvent] = {}  # a repeated event id keeps its first copy
        for evs, _results, _sent in items:
            for e in evs:
                first.setdefault((e.partition_key, e.event_id), e)
        events = list(first.values())
        results = [r for _e, rs, _s in items for r in rs]
        if events:
            await self.clickhouse.write(self.clickhouse.write_events, events)
        if results:
            await self.clickhouse.write(self.clickhouse.write_journals, results)
        # An event is done when its raw row is stored *and* its extraction records are on the
        # broker: committing it earlier would lose its memory with a crash of this worker.
        await delivered(f for _e, _r, sent in items for f in sent)
        return [True] * len(items)

    def _send_excerpts(self, valid: list[tuple[ConversationEvent, Any]]) -> list[Sent]:
        """Each message's excerpt, with the turns before it this worker has seen in its session.

        A worker remembers recent turns in memory: after a restart or a rebalance, the first message
        of a session it takes over is indexed without them until it has seen some
        (``epistream rebuild-index`` reads every session in order).
        """
        ctx = self.ctx
        sent: list[Sent] = []
        for event, msg in valid:
            doc = excerpt_document(self.conversations.excerpt(event))
            key = f"{event.partition_key}/{doc.node_id}".encode()
            sent.append(ctx.send(ctx.channels.nodes, key=key, value=doc.model_dump_json().encode(),
                                 partition=msg.partition))  # fmt: skip
        return sent

    async def extract(self, stream: Any) -> None:
        ctx = self.ctx
        async for batch in stream.take_events(ctx.options.batch, within=ctx.options.extract_within_s):
            with acks.unless_done(batch):
                await self._take(batch)

    async def _take(self, batch: list[Any]) -> None:
        ctx, metrics = self.ctx, self.ctx.metrics
        events_dlq = ctx.channels.events_dlq
        valid: list[tuple[ConversationEvent, Any]] = []
        metrics.inc("epistream_events_received_total", len(batch))
        for ev in batch:
            msg = ev.message
            refused = unroutable(ev.value, msg)
            if refused is not None:
                await self.dead_letters.send(refused, msg.key, events_dlq, "extract")
                continue
            admitted = agents.admit(
                ev.value or b"",
                source=msg.topic,
                received_at=received_at(msg.timestamp),
                partition=msg.partition,
                offset=msg.offset,
                max_content_bytes=ctx.settings.max_content_bytes,
                bounds=self.time_bounds,
                stamp=not ctx.settings.trust_received_at,
            )
            if isinstance(admitted, agents.Rejected):
                await self.dead_letters.send(admitted.letter, msg.key, events_dlq, "extract")
            elif not agents.keyed_correctly(msg.key, admitted):
                letter = bad_record(ev.value or b"", msg, agents.KEY_MISMATCH, KEY_MISMATCH_MESSAGE)
                await self.dead_letters.send(letter, msg.key, events_dlq, "extract")
            else:
                event = enrich(admitted, msg.timestamp)
                valid.append((event, msg))
        events = [e for e, _ in valid]
        now = time.time()
        metrics.observe("epistream_event_age_seconds", (now - (m.timestamp or now) for _e, m in valid))
        results = await self.runner.run(events)
        metrics.inc("epistream_events_admitted_total", len(events))
        metrics.count_each("epistream_extractions_total", "status", (r.status for r in results))
        metrics.inc("epistream_claims_total", sum(len(r.claims) for r in results), outcome="accepted")
        metrics.inc("epistream_claims_total", sum(len(r.rejected) for r in results), outcome="rejected")
        # One record per partition of the batch (see streams.extraction_records), in input order.
        by_partition: dict[int, list[ExtractionResult]] = {}
        for (_event, msg), result in zip(valid, results, strict=True):
            by_partition.setdefault(msg.partition, []).append(result)
        sent = self._send_excerpts(valid)
        for partition, group in by_partition.items():
            key = group[0].event.partition_key.encode()
            for record in split_to_fit(group, extraction_records.dumps):
                sent.append(ctx.send(ctx.channels.extractions, key=key, value=record, partition=partition))
        # The raw events and journals are written behind the stream, together with later
        # takes' (a repeated event is stored once, see _write_extracted); the batch's records
        # are acknowledged only once they are durable.
        self.writes.add((events, results, sent), batch, size=len(events) + len(results))
        await self.writes.room()
