"""The index stage: memory.nodes -> OpenSearch (``_id`` = node id, external version = node version).

Source excerpts arrive on the same topic (documents of the node shape, ``metadata.kind`` =
``excerpt``) and go to the deployment's excerpt collection (``<alias>-excerpts``).

OpenSearch refuses a node version it already has (external versioning), so a redelivered or
repeated snapshot changes nothing; only the newest snapshot of a node in a batch is written. The
records reach this stage through a Kafka consumer of its own (:mod:`streams.worker.index_consumer`),
which commits a batch only after :meth:`IndexSink.write` returned.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from schemas.errors import BackendUnavailable, NotConfigured
from schemas.nodes import MemoryNode
from schemas.records import DeadLetter
from sinks.documents import excerpt_alias, is_excerpt
from streams.worker.context import WorkerContext
from streams.worker.dead_letters import DeadLetters, bad_record

if TYPE_CHECKING:
    from sinks.opensearch_index import OpenSearchIndex, UpsertReport

log = logging.getLogger("epistream.worker")

#: What OpenSearch answers for a write to an alias that does not exist (``require_alias``).
MISSING_INDEX = "index_not_found_exception"


@dataclass(frozen=True)
class NodeRecord:
    """One consumed memory.nodes record: its value and where it came from (for a dead letter)."""

    value: bytes | None
    topic: str
    partition: int
    offset: int
    #: The record's timestamp in seconds.
    timestamp: float | None


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
        #: Whether a missing index may be created: only while this deployment has indexed nothing yet
        #: (the index group has committed no offsets; set by the index consumer at its start). A missing
        #: index after that was lost with OpenSearch's data, and creating an empty one would leave
        #: every document written before silently absent: the stage waits for ``epistream repair``.
        self.may_create = True

    def index(self, *, excerpts: bool = False) -> OpenSearchIndex:
        sinks = self.ctx.sinks
        name = "excerpts" if excerpts else "index"
        with self._lock:
            if name not in sinks:
                from sinks.embedding import embedder_from_settings
                from sinks.opensearch_index import OpenSearchIndex
                from sinks.opensearch_mapping import current_index

                if not self.url:
                    raise NotConfigured(
                        "the index stage needs EPISTREAM_OPENSEARCH_URL", setting="EPISTREAM_OPENSEARCH_URL"
                    )
                settings = self.ctx.settings
                emb = self.embedder if self.embedder is not None else embedder_from_settings(settings)
                alias = excerpt_alias(self.alias) if excerpts else self.alias
                if not self.may_create:
                    with _client(self.url) as client:
                        if current_index(client, alias) is None:
                            raise _missing(alias)
                sinks[name] = OpenSearchIndex.from_settings(settings, emb, url=self.url, alias=alias)
            return sinks[name]  # type: ignore[no-any-return]

    async def write(self, records: Sequence[NodeRecord]) -> None:
        """Index one batch; returns only once OpenSearch has taken it (or refused documents for good).

        Waits, retrying, while OpenSearch is down: the caller commits the batch after this returns,
        and not at all if it is cancelled meanwhile (a stopping worker), so nothing is committed
        unwritten.
        """
        metrics = self.ctx.metrics
        latest: dict[str, tuple[MemoryNode, NodeRecord]] = {}  # node id -> newest snapshot and its record
        broken: list[DeadLetter] = []
        for rec in records:
            if not rec.value:  # a tombstone: compaction's business, nothing to index
                continue
            try:
                node = MemoryNode.model_validate_json(rec.value)
            except ValueError as exc:  # only materialize writes here: a bug or a foreign producer
                broken.append(bad_record(rec.value, rec, "invalid_node_snapshot", type(exc).__name__))
                continue
            held = latest.get(node.node_id)
            if held is None or node.version > held[0].version:
                latest[node.node_id] = (node, rec)
        if latest:
            report = await self._index_until_written([node for node, _rec in latest.values()])
            await self._index_until_written([n for n, _rec in latest.values() if is_excerpt(n)], excerpts=True)
            rejected = len(report.rejected)
            metrics.inc("epistream_index_documents_total", len(latest) - rejected, outcome="written")
            metrics.inc("epistream_index_documents_total", rejected, outcome="rejected")
            # Refused for good (e.g. a mapping conflict): dead-lettered, not retried forever, so one
            # document cannot stall the index. ClickHouse keeps the snapshot; rebuild-index re-feeds it.
            for node_id, error_type in report.rejected:
                rec = latest[node_id][1]
                value = rec.value or b""
                broken.append(bad_record(value, rec, "index_rejected", f"OpenSearch refused it: {error_type}"))
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
            lambda: asyncio.to_thread(self._upsert, chosen, excerpts),
            label="opensearch",
        )

    def _upsert(self, nodes: list[MemoryNode], excerpts: bool) -> UpsertReport:
        try:
            return self.index(excerpts=excerpts).upsert_report(nodes)
        except BackendUnavailable as exc:
            if MISSING_INDEX in exc.details.get("error_types", ()) or exc.details.get("error_type") == MISSING_INDEX:
                raise _missing(excerpt_alias(self.alias) if excerpts else self.alias) from None
            raise


@contextmanager
def _client(url: str) -> Iterator[Any]:
    from sinks.opensearch_client import as_client

    client = as_client(url)
    try:
        yield client
    finally:
        client.close()


def _missing(alias: str) -> BackendUnavailable:
    return BackendUnavailable(
        f"OpenSearch has no index behind the alias {alias} although this deployment indexed into it (OpenSearch "
        "lost its data, or the index was deleted): run `epistream repair` to recreate and re-feed it; the index "
        "stage waits until then",
        reason="index_missing",
        alias=alias,
    )
