"""The ``index_sink`` agent: memory.nodes -> OpenSearch (``_id`` = node id, external version = node version).

Source excerpts arrive on the same topic (documents of the node shape, ``metadata.kind`` =
``excerpt``) and go to the deployment's excerpt collection (``<alias>-excerpts``).

OpenSearch refuses a node version it already has (external versioning), so a redelivered or
repeated snapshot changes nothing; only the newest snapshot of a node in a batch is written.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import TYPE_CHECKING, Any

from schemas.errors import EpistreamError
from schemas.nodes import MemoryNode
from schemas.records import DeadLetter
from sinks.documents import excerpt_alias, is_excerpt
from streams.worker.context import WorkerContext
from streams.worker.dead_letters import DeadLetters, bad_record

if TYPE_CHECKING:
    from sinks.opensearch_index import OpenSearchIndex, UpsertReport

log = logging.getLogger("epistream.worker")


class IndexSink:
    def __init__(
        self,
        ctx: WorkerContext,
        dead_letters: DeadLetters,
        *,
        url: str | None,
        alias: str,
        embedder: Any = None,
    ) -> None:
        self.ctx = ctx
        self.dead_letters = dead_letters
        self.url = url
        self.alias = alias
        self.embedder = embedder
        self._lock = threading.Lock()  # opened from the index sink's thread and from the start-up task

    def index(self, *, excerpts: bool = False) -> OpenSearchIndex:
        sinks = self.ctx.sinks
        name = "excerpts" if excerpts else "index"
        with self._lock:
            if name not in sinks:
                from sinks.embedding import embedder_from_settings
                from sinks.opensearch_index import OpenSearchIndex

                if not self.url:
                    raise EpistreamError("the index sink needs an OpenSearch URL", code="no_opensearch")
                settings = self.ctx.settings
                emb = self.embedder if self.embedder is not None else embedder_from_settings(settings)
                alias = excerpt_alias(self.alias) if excerpts else self.alias
                sinks[name] = OpenSearchIndex.from_settings(settings, emb, url=self.url, alias=alias)
            return sinks[name]  # type: ignore[no-any-return]

    async def index_sink(self, stream: Any) -> None:
        opts, metrics = self.ctx.options, self.ctx.metrics
        async for batch in stream.take_events(opts.index_batch, within=opts.index_within_s):
            latest: dict[str, tuple[MemoryNode, Any]] = {}  # node id -> newest snapshot and its record
            broken: list[DeadLetter] = []
            for ev in batch:
                if not ev.value:
                    continue
                try:
                    node = MemoryNode.model_validate_json(ev.value)
                except ValueError as exc:  # only materialize writes here: a bug or a foreign producer
                    broken.append(bad_record(ev.value, ev.message, "invalid_node_snapshot", type(exc).__name__))
                    continue
                held = latest.get(node.node_id)
                if held is None or node.version > held[0].version:
                    latest[node.node_id] = (node, ev)
            if latest:
                report = await self._index_until_written([node for node, _ev in latest.values()])
                await self._index_until_written([n for n, _ev in latest.values() if is_excerpt(n)], excerpts=True)
                rejected = len(report.rejected)
                metrics.inc("epistream_index_documents_total", len(latest) - rejected, outcome="written")
                metrics.inc("epistream_index_documents_total", rejected, outcome="rejected")
                # Refused for good (e.g. a mapping conflict): dead-lettered, not retried forever, so one
                # document cannot stall the index. ClickHouse keeps the snapshot; rebuild-index re-feeds it.
                for node_id, error_type in report.rejected:
                    ev = latest[node_id][1]
                    broken.append(
                        bad_record(ev.value, ev.message, "index_rejected", f"OpenSearch refused it: {error_type}")
                    )
                if report.rejected:
                    log.warning("index sink: OpenSearch refused %d node documents; dead-lettered", len(report.rejected))
            if broken:  # kept with their bytes in the dead-letter table (ClickHouse keeps the true snapshots)
                await self.dead_letters.store([self.dead_letters.counted(letter, "index") for letter in broken])

    async def _index_until_written(self, nodes: list[MemoryNode], *, excerpts: bool = False) -> UpsertReport:
        """Claims (``excerpts=False``: every document that is not an excerpt) or excerpts, until written."""
        chosen = [n for n in nodes if is_excerpt(n) == excerpts]
        if not chosen and excerpts:
            from sinks.opensearch_index import UpsertReport

            return UpsertReport()
        # Opening the index (first use, or again after a failure) is blocking HTTP too.
        return await self.ctx.until_written(
            "index sink: OpenSearch",
            lambda: asyncio.to_thread(lambda: self.index(excerpts=excerpts).upsert_report(chosen)),
            label="opensearch",
        )
