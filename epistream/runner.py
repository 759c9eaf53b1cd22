"""The embedded runner: the whole pipeline in one process over a data directory.

It drives the same agent steps as the Kafka app (``streams.agents``):
admit -> extract -> materialize -> sinks, in micro-batches, with chDB (the
ClickHouse engine in-process) as the operation log and the embedded search
index for retrieval. Only one process may own a data directory at a time.

With ``settings.opensearch_url`` set (or a ``search_index`` passed in) the node
documents go to OpenSearch instead of the embedded index; retrieval then
searches there and still resolves candidates from the in-memory store.

State on start: node snapshots from ClickHouse, then the bookkeeping the
reducer needs (seen inputs, edges, request outcomes, event scopes) from the
operation log. ``verify_replay`` rebuilds everything from the log alone and
reports any difference.

The operation log is ``settings.clickhouse_url`` when set (a ClickHouse
server), else chDB in the data directory. In distributed mode
(``settings.api_mode``) the stream workers are the writers and this runner only
reads: it loads no state at start (the shared log can be a whole deployment's,
and a copy taken at start would only grow stale), and answers per-owner views
(world context, assertion state) from that owner's node snapshots and edges in
the log, node lookups and retrieval from the index the workers fill.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, cast

from engine.assertion_state import DEFAULT_NODE_TYPES, AssertionState, assertion_state
from engine.config import EngineConfig
from engine.promotion import due_promotions
from engine.provenance import NodeProvenance, get_provenance
from engine.reducer import Reducer
from engine.replay import verify_replay
from engine.results import ApplyResult
from engine.store import InMemoryStateStore
from engine.visibility import readable_operations, readable_view
from epistream.clock import clock_for
from epistream.config import load_settings
from extractors.base import Extractor, engine_config_for, get_extractor
from retrieval.continuation import with_continuation
from retrieval.resolved import ResolvedBackend
from retrieval.service import Retriever
from retrieval.world import world_context
from schemas.claims import ExtractionResult
from schemas.commands import CommandBase
from schemas.common import ScopeRef
from schemas.enums import EdgeType, NodeType
from schemas.erasure import ErasureReceipt, ErasureScope
from schemas.errors import (
    EpistreamError,
    IntegrityError,
    InvalidEvent,
    NotConfigured,
    ReadOnlyRunner,
    StorageFull,
)
from schemas.events import ConversationEvent
from schemas.nodes import Edge, MemoryNode
from schemas.operations import Operation
from schemas.records import DeadLetter
from schemas.retrieval import RetrievalRequest, RetrievalResponse, WorldContext
from schemas.search import SearchBackend
from schemas.settings import Settings
from schemas.visibility import is_visible
from sinks.clickhouse import OperationLog
from sinks.data_dir import DataDirLock
from sinks.documents import excerpt_alias, excerpt_document
from sinks.embedded_index import EmbeddedIndex
from sinks.embedding import Embedder, embedder_from_settings, uses_all_cores
from streams import agents
from streams.agents import excerpt_documents
from streams.extract_pool import ExtractionPool
from streams.extract_pool import results as extraction_results

_logger = logging.getLogger("epistream.runner")


class RunnerIndex(SearchBackend, Protocol):
    """A search backend the runner can also flush (make searchable) and release."""

    def commit(self, durable: bool = True) -> None: ...

    def close(self) -> None: ...


class Unconfigured:
    """Stands in for a backend this process was not given: every use raises ``not_configured``.

    Releasing it (``commit``, ``close``) does nothing, so the runner's lifecycle is unchanged.
    """

    def __init__(self, what: str, setting: str, remedy: str) -> None:
        self._error = (f"{what}: {setting} is not set; {remedy}", setting)

    def commit(self) -> None:
        return None

    def close(self) -> None:
        return None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        message, setting = self._error
        raise NotConfigured(message, setting=setting)




@dataclass
class IngestReport:
    """What one ingestion run did, for the CLI summary and ``--json``."""

    received: int = 0
    events: int = 0
    duplicates: int = 0
    dead_letters: int = 0
    claims: int = 0
    rejected_claims: int = 0
    failed_extractions: int = 0
    operations: int = 0
    nodes_changed: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    op_counts: dict[str, int] = field(default_factory=dict)
    #: Operations per input id (``Operation.caused_by``): the API splits a combined write's report.
    by_input: dict[str, int] = field(default_factory=dict, repr=False)

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "by_input"}


@dataclass
class BatchResult:
    extractions: list[ExtractionResult]
    operations: list[Operation]
    dead_letters: list[DeadLetter]


def _count(operations: Sequence[Operation], report: IngestReport) -> list[MemoryNode]:
    """Tally a batch's operations in the report; returns the nodes it changed (latest versions)."""
    nodes = agents.latest_nodes(operations)
    report.operations += len(operations)
    report.nodes_changed += len(nodes)
    for op in operations:
        report.op_counts[op.op_type.value] = report.op_counts.get(op.op_type.value, 0) + 1
        report.by_input[op.caused_by] = report.by_input.get(op.caused_by, 0) + 1
    return nodes


@dataclass(frozen=True)
class _Gathered:
    """A reduced micro-batch whose log rows wait to be written with the ones after it."""

    fresh: Sequence[ConversationEvent]
    extractions: Sequence[ExtractionResult]
    letters: Sequence[DeadLetter]
    operations: Sequence[Operation]
    nodes: Sequence[MemoryNode]
    ahead: Future[int] | None


#: A context manager factory held around the parts of an ingest that change what readers see.
Section = Callable[[], AbstractContextManager[Any]]

#: Results of a batch whose extraction was started ahead (in input order when called).
Extracting = Callable[[], list[ExtractionResult]]
#: An admitted micro-batch: its events, its dead letters, its extraction if started ahead, lines read.
Admitted = tuple[list[ConversationEvent], list[DeadLetter], Extracting | None, int]


#: Micro-batches the reducer may run ahead of the store thread. One gathered log write (five
#: chDB inserts, a few hundred ms, mostly outside the GIL) used to stop the reducer until it was
#: done: with a single batch in flight the main thread waited ~30% of a no-op ingest.
STORE_QUEUE = 3


@dataclass(frozen=True)
class PreparedEvents:
    """Events admitted and extracted ahead of their ingest (:meth:`EmbeddedRunner.prepare_events`)."""

    received: int
    events: list[ConversationEvent]
    late: list[DeadLetter]
    extractions: list[ExtractionResult]
    origins: list[int]  # each kept event's position in the events given

    def with_letters(self, letters: Sequence[DeadLetter]) -> PreparedEvents:
        """These events with dead letters of the caller's to keep beside them (the API's refusals)."""
        return PreparedEvents(self.received, self.events, [*self.late, *letters], self.extractions, self.origins)

    def joined(self, other: PreparedEvents) -> PreparedEvents:
        """These events followed by ``other``'s, as one ingest (origins stay per part)."""
        return PreparedEvents(
            self.received + other.received,
            [*self.events, *other.events],
            [*self.late, *other.late],
            [*self.extractions, *other.extractions],
            [*self.origins, *other.origins],
        )

    def only(self, positions: set[int]) -> PreparedEvents:
        """The events given at ``positions`` (those the caller found new), with the late ones."""
        keep = [i for i, origin in enumerate(self.origins) if origin in positions]
        return PreparedEvents(
            len(positions),
            [self.events[i] for i in keep],
            self.late,
            [self.extractions[i] for i in keep],
            [self.origins[i] for i in keep],
        )


class _BatchWriter:
    """Stores reduced micro-batches on a second thread, in order, while later ones are reduced.

    Storing is mostly GIL-free work (chDB inserts, the embedding model, tantivy), extraction and
    the reducer are Python: overlapping them uses the second core, so ingestion runs at about the
    slower of the two instead of their sum. At most ``depth`` batches are queued or being stored
    (memory stays bounded) and they are stored in submission order. After a store fails, every
    batch behind it is dropped unwritten, so the log on disk is always a prefix of what was
    reduced; that first failure is raised from a later ``submit`` or from leaving the ``with``
    block. Only the store thread writes chDB and the index during an ingest; the ``helper``
    thread embeds each batch's new texts ahead of it (reading the index under its lock), so the
    model never waits for a store.
    """

    def __init__(self, depth: int = STORE_QUEUE, section: Section = nullcontext) -> None:
        if depth < 1:
            raise ValueError("the store queue holds at least one batch")
        self.depth = depth
        #: Held while this ingest changes what readers see (see ``EmbeddedRunner.ingest_events``).
        self.section = section
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="epistream-store")
        #: Embeds each batch's new texts, in order, while the store thread writes earlier batches.
        self.helper = ThreadPoolExecutor(max_workers=1, thread_name_prefix="epistream-embed")
        self._pending: deque[Future[None]] = deque()
        self._failed = False  # set on the store thread; read there only, so no lock is needed

    def submit(self, fn: Callable[..., None], *args: Any) -> None:
        self._settle(keep=self.depth - 1)
        self._pending.append(self._pool.submit(self._store, fn, *args))

    def _store(self, fn: Callable[..., None], *args: Any) -> None:
        if self._failed:
            return  # a batch before this one was not stored: writing it would leave a gap
        try:
            fn(*args)
        except BaseException:
            self._failed = True
            raise

    def _settle(self, keep: int) -> None:
        """Collect finished stores in order (raising the first failure); wait while more than ``keep`` remain."""
        pending = self._pending
        while pending and (len(pending) > keep or pending[0].done()):
            pending.popleft().result()

    def wait(self) -> None:
        self._settle(keep=0)

    def __enter__(self) -> _BatchWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.wait()
        finally:
            self._pool.shutdown(wait=True)
            self.helper.shutdown(wait=True)


#: Size of an ingest's first micro-batch. Nothing is embedded or stored until a batch has been
#: extracted and reduced, so a full first batch (512 messages: ~0.5 s) leaves the model and the
#: store thread idle that long; a small one starts them after a few dozen milliseconds.
FIRST_BATCH = 64


def _refused_by_reducer(result: ExtractionResult, exc: EpistreamError, now: datetime) -> DeadLetter:
    return agents.dead_letter(
        result.model_dump_json().encode("utf-8"),
        source="reducer",
        reason_code=exc.code,
        message=exc.message,
        received_at=now,
    )


def _chunks(items: Iterable[Any], size: int, first: int | None = None) -> Iterator[list[Any]]:
    """Batches of ``size`` items; the first holds ``first`` (when smaller) so the pipeline fills sooner."""
    batch: list[Any] = []
    limit = min(size, first) if first is not None else size
    for item in items:
        batch.append(item)
        if len(batch) >= limit:
            yield batch
            batch, limit = [], size
    if batch:
        yield batch


def _in_scope(nodes: list[MemoryNode], scope: ScopeRef | None) -> list[MemoryNode]:
    if scope is None:
        return nodes
    return [n for n in nodes if n.scope == scope.scope and n.scope_id == scope.scope_id]


class EmbeddedRunner:
    """extract -> materialize -> sinks in-process; also the read side for CLI and API."""

    def __init__(
        self,
        data_dir: str | os.PathLike[str] | None = None,
        settings: Settings | None = None,
        *,
        embedder: Embedder | None = None,
        extractor: Extractor | None = None,
        engine_config: EngineConfig | None = None,
        log: OperationLog | None = None,
        clock: Callable[[], datetime] | None = None,
        search_index: RunnerIndex | None = None,
        excerpt_index: RunnerIndex | None = None,
        repair_projections: bool = True,
    ) -> None:
        self.settings = settings or load_settings()
        self.data_dir = Path(data_dir if data_dir is not None else self.settings.data_dir).resolve()
        #: Distributed: the workers write, this runner reads the log and index they share. It keeps
        #: nothing of its own, so it takes no data directory: any number of API processes run beside
        #: the workers (and beside a worker's own chDB store) on one machine.
        self.reads_shared = self.settings.api_mode == "distributed"
        self._lock = DataDirLock(self.data_dir)
        if not self.reads_shared:
            self._lock.acquire()
        self._clock = clock or clock_for(self.settings)
        self._save_interval_s = 0.0
        self._saved_at = time.monotonic()
        self._time_bounds = self.settings.time_bounds()
        try:
            self.log = log or self._open_log()
            self._owns_log = log is None
            #: Whether reads that need the operation log can be answered here (see ``_open_log``).
            self.keeps_log = not isinstance(self.log, Unconfigured)
            self.embedder = embedder or embedder_from_settings(self.settings)
            self._rebuild: set[str] = set()
            #: The last turns of each session, for the excerpts' context (see ``agents.ConversationContext``).
            self._conversations = agents.ConversationContext(self.settings.excerpt_context_turns)
            self.index: RunnerIndex = search_index or self._open_index()
            #: Source excerpts (what was said), a collection of their own beside the claims.
            self.excerpts: RunnerIndex = excerpt_index or self._open_index(excerpts=True, beside=search_index)
            self.extractor = extractor or get_extractor(self.settings.extractor, self.settings)
            #: The configured rule extractor may run in processes of its own (see _extraction_pool);
            #: an extractor passed in (or set later) always runs here.
            self._default_extractor = self.extractor if extractor is None else None
            self._pool: ExtractionPool | None = None
            # the engine's numbers, with the deployment's attribute registry extensions (EPISTREAM_ATTRIBUTES_FILE)
            if engine_config is None:
                engine_config = engine_config_for(self.settings)
            self.reducer = Reducer(engine_config)
            self.engine_config = engine_config
            self.store = InMemoryStateStore()
            #: Reduced micro-batches whose log rows are not written yet (only during an ingest).
            self._gathered: list[_Gathered] = []
            self._gathered_rows = 0
            if not self.reads_shared:
                self._load_state()
                self._repair_projections(repair_projections)
            self.retriever = Retriever(
                ResolvedBackend(self.index, self.store.get_node), clock=self._clock, excerpts=self.excerpts
            )
        except BaseException:
            self._lock.release()
            raise

    # ---------------------------------------------------------------- lifecycle
    def _open_log(self) -> OperationLog:
        """The configured ClickHouse server, or chDB in the data directory.

        Distributed without a server there is no log to read: a chDB store of this process holds
        nothing the workers wrote, and a worker's own store can be opened by that worker alone. Reads
        that need the log then say so (``not_configured``) instead of answering from an empty one (a
        404 for a node the index returns, an "exhaustive" unknown for a value the workers know).
        """
        url = self.settings.clickhouse_url
        if self.reads_shared and not url:
            return cast(OperationLog, Unconfigured(
                "provenance, assertion state, world-view conflicts and retrieval receipts of a distributed "
                "deployment are read from the operation log the workers write",
                "EPISTREAM_CLICKHOUSE_URL",
                "set it to the ClickHouse server the workers write (a worker's own chDB store cannot be read "
                "by another process)",
            ))  # fmt: skip
        return OperationLog.connect(url, path=self.data_dir)

    def _open_index(self, *, excerpts: bool = False, beside: RunnerIndex | None = None) -> RunnerIndex:
        """The claims' index, or (``excerpts``) the excerpts' collection beside it: the same backend, the
        alias ``<alias>-excerpts`` beside an OpenSearch alias, ``excerpts/`` beside ``index/``."""
        alias_of = getattr(beside, "alias", None)
        if excerpts and isinstance(alias_of, str):
            from sinks.opensearch_index import OpenSearchIndex

            assert isinstance(beside, OpenSearchIndex)
            return OpenSearchIndex(beside.client, excerpt_alias(alias_of), self.embedder,
                                   refresh_interval=self.settings.opensearch_refresh_interval)  # fmt: skip
        url = self.settings.opensearch_url
        if not url and self.reads_shared:
            return cast(RunnerIndex, Unconfigured(
                "nodes and retrieval of a distributed deployment are read from the index the workers write",
                "EPISTREAM_OPENSEARCH_URL",
                "set it (and EPISTREAM_OPENSEARCH_INDEX) to the OpenSearch index the workers write",
            ))  # fmt: skip
        if not url:
            path = self.data_dir / ("excerpts" if excerpts else "index")
            try:
                return EmbeddedIndex(path, self.embedder)
            except IntegrityError as exc:
                if exc.code != "index_format":
                    raise
                # an index written by another version of this code: a projection, rebuilt from the log
                shutil.rmtree(path)
                self._rebuild.add("excerpts" if excerpts else "claims")
                return EmbeddedIndex(path, self.embedder)
        from sinks.opensearch_index import OpenSearchIndex  # the embedded default needs no client

        alias = excerpt_alias(self.settings.opensearch_index) if excerpts else None
        return OpenSearchIndex.from_settings(self.settings, self.embedder, url=url, alias=alias)

    def _repair_projections(self, catch_up: bool = True) -> None:
        """Bring the indexes level with the log before anything is read or written.

        The log is written before the indexes, so a crash (a kill, a full disk) can leave them behind:
        the events already reduced are duplicates on the next run and would never be indexed. Opening
        therefore rebuilds an index another version's format made unreadable, and catches up the rest.
        """
        if "claims" in self._rebuild:
            self._upsert_in_chunks(self.index, list(self.store.iter_nodes()))
        if "excerpts" in self._rebuild:
            self.rebuild_excerpts()
        self._rebuild.clear()
        repaired = self.verify_projections(repair=True) if catch_up else []
        if repaired:
            _logger.warning("the search indexes were behind the operation log; caught up: %s", "; ".join(repaired[:5]))

    def verify_projections(self, *, repair: bool = False, limit: int = 100) -> list[str]:
        """Differences between the indexes and the log: a live node missing or at another version than the
        log gives it, a document of a node the log does not hold, missing excerpts. ``repair`` writes what is
        missing and stale (a document the log does not hold is reported, never written)."""
        found: list[str] = []
        versions = getattr(self.index, "versions", None)
        if versions is not None:
            held: dict[str, int] = versions()
            behind = [n for n in self.store.iter_nodes() if held.get(n.node_id) != n.version]
            for n in behind[:limit]:
                state = f"at version {held[n.node_id]}" if n.node_id in held else "missing"
                found.append(f"index: node {n.node_id} {state} (log: version {n.version})")
            unknown = sorted(set(held) - {n.node_id for n in self.store.iter_nodes()})
            found += [f"index: node {i} is not in the log" for i in unknown[: max(0, limit - len(found))]]
            if repair and behind:
                # A version the log does not hold (the log is the truth) is written back down where the
                # index can (embedded); OpenSearch's external versions refuse that: ``rebuild-index``.
                restore = getattr(self.index, "restore", None)
                ahead = [n for n in behind if held.get(n.node_id, 0) > n.version]
                if ahead and restore is not None:
                    restore(ahead)
                    self.index.commit()
                elif ahead:
                    found.append(f"index: {len(ahead)} nodes ahead of the log; run `epistream rebuild-index`")
                self._upsert_in_chunks(self.index, [n for n in behind if held.get(n.node_id, 0) <= n.version])
        said = getattr(self.excerpts, "versions", None)
        if said is not None:
            have, expected = len(said()), self.log.event_count()
            if have < expected:
                found.append(f"excerpts: {have} of {expected} stored events indexed")
                if repair:
                    self.rebuild_excerpts()  # what is indexed already is kept (same version)
        return found

    def rebuild_excerpts(self) -> int:
        """Index the excerpt of every stored event again (from ``raw_events``); returns how many."""
        count = 0
        batch: list[MemoryNode] = []
        for doc in excerpt_documents(self.log, self.settings.excerpt_context_turns):
            batch.append(doc)
            if len(batch) >= 1024:
                count += self._upsert_in_chunks(self.excerpts, batch)
                batch = []
        count += self._upsert_in_chunks(self.excerpts, batch)
        self.excerpts.commit()
        return count

    def rebuild_indexes(self) -> dict[str, int]:
        """Empty both embedded indexes and fill them again from the state and the raw events.

        The indexes are projections of the log; this is what repairs one that is damaged or behind,
        and what applies an indexing change (another embedder, another context length) to all.
        """
        self._require_writer()
        for name, index in (("index", self.index), ("excerpts", self.excerpts)):
            if not isinstance(index, EmbeddedIndex):
                raise EpistreamError("rebuild-index of a shared OpenSearch index goes through its own command",
                                     code="not_embedded")  # fmt: skip
            index.close()
            shutil.rmtree(self.data_dir / name, ignore_errors=True)
        self.index = EmbeddedIndex(self.data_dir / "index", self.embedder)
        self.excerpts = EmbeddedIndex(self.data_dir / "excerpts", self.embedder)
        self.retriever = Retriever(
            ResolvedBackend(self.index, self.store.get_node), clock=self._clock, excerpts=self.excerpts
        )
        claims = self._upsert_in_chunks(self.index, list(self.store.iter_nodes()))
        return {"claims": claims, "excerpts": self.rebuild_excerpts()}

    @staticmethod
    def _upsert_in_chunks(index: RunnerIndex, nodes: Sequence[MemoryNode], size: int = 1024) -> int:
        for start in range(0, len(nodes), size):
            index.upsert(nodes[start : start + size])
        index.commit()
        return len(nodes)

    def _load_state(self) -> None:
        """Fold the log: the same ``apply_operation`` the reducer uses, so start-up state is exact."""
        apply = self.store.apply_operation
        for op in self.log.stream_operations():
            apply(op)

    def now(self) -> datetime:
        """This runner's "now" (``EPISTREAM_CLOCK`` when set, see :mod:`epistream.clock`)."""
        return self._clock()

    def close(self) -> None:
        """Flush and release everything; a second call does nothing."""
        if getattr(self, "_closed", False):
            return
        self._closed = True
        try:
            if self._pool is not None:
                self._pool.close()
            for index in (self.index, self.excerpts):
                try:
                    index.commit()
                except StorageFull:  # already reported by the command that hit it; the next open catches up
                    _logger.warning("an index could not be flushed at close: no space left")
                index.close()
            if self._owns_log:
                self.log.close()
        finally:
            self._lock.release()

    def __enter__(self) -> EmbeddedRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- writes
    def ingest_lines(
        self,
        lines: Iterable[bytes | str],
        *,
        source: str = "ingest",
        progress: Callable[[int], None] | None = None,
    ) -> IngestReport:
        """Admit raw JSON lines (bad ones become dead letters), then process in micro-batches."""
        self._require_writer()
        report = IngestReport()
        try:
            with _BatchWriter() as writer:
                try:
                    self._ingest_lines(lines, source, progress, report, writer)
                finally:  # what was reduced reaches the log, even when a later batch failed
                    writer.submit(self._write_gathered)
            self.index.commit()
            self.excerpts.commit()
        except EpistreamError as exc:  # e.g. a full disk: say what was done; the next run does the rest
            exc.details.setdefault("report", report.as_dict())
            raise
        return report

    def _ingest_lines(
        self,
        lines: Iterable[bytes | str],
        source: str,
        progress: Callable[[int], None] | None,
        report: IngestReport,
        writer: _BatchWriter,
    ) -> None:
        # Batch N+1 is admitted and its extraction started (in the extraction process, when there
        # is one) before batch N is reduced: the rule extractor and the reducer then use both cores.
        previous: Admitted | None = None
        for batch in _chunks(lines, self.settings.batch_size, FIRST_BATCH):
            events: list[ConversationEvent] = []
            letters: list[DeadLetter] = []
            now = self._clock()
            for raw in batch:
                report.received += 1
                data = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogateescape")
                if not data.strip():
                    continue
                admitted = agents.admit(
                    data,
                    source=source,
                    received_at=now,
                    offset=report.received,
                    max_content_bytes=self.settings.max_content_bytes,
                    bounds=self._time_bounds,
                )
                if isinstance(admitted, agents.Rejected):
                    letters.append(admitted.letter)
                    letter = admitted.letter
                    report.errors.append(
                        {"line": report.received, "code": letter.reason_code, "message": letter.message}
                    )
                else:
                    events.append(admitted)
            extracting = self._extract_soon(events)
            if previous is not None:
                self._process_admitted(previous, report, writer, progress)
            previous = (events, letters, extracting, len(batch))
        if previous is not None:
            self._process_admitted(previous, report, writer, progress)

    def _process_admitted(
        self,
        admitted: Admitted,
        report: IngestReport,
        writer: _BatchWriter,
        progress: Callable[[int], None] | None,
    ) -> None:
        events, letters, extracting, lines_read = admitted
        self._process(events, letters, report, writer, extracting)
        if progress is not None:
            progress(lines_read)

    def _extraction_pool(self) -> ExtractionPool | None:
        """The rule extractor's processes, once they are up (started on the first batch of an ingest).

        Only the configured rule extractor goes there (the LLM one is I/O-bound, and an extractor
        passed in may not be importable in another process), and only beside a light embedder:
        with a model that keeps every core busy, the model is the bottleneck and the process would
        only take CPU from it (:func:`sinks.embedding.uses_all_cores`). Until the processes have
        started (a second or two), batches are extracted here, so a small ingest never waits.
        """
        if (
            self._default_extractor is None
            or self.extractor is not self._default_extractor
            or self.settings.extractor != "rules"
            or self.settings.extract_processes < 1
            or uses_all_cores(self.embedder)
        ):
            return None
        if self._pool is None:
            self._pool = ExtractionPool(self.settings.extractor, self.settings, self.settings.extract_processes)
            self._pool.start()
        return self._pool if self._pool.ready() else None

    def _extract_soon(self, events: Sequence[ConversationEvent]) -> Extracting | None:
        pool = self._extraction_pool() if events else None
        if pool is None:
            return None
        futures = pool.submit(events)
        return lambda: extraction_results(futures)

    def prepare_events(self, events: Sequence[ConversationEvent]) -> PreparedEvents:
        """Admission and extraction of ``events``: the part of an ingest that reads no shared state.

        The API runs this beside reads and only then takes the exclusive lock for
        :meth:`ingest_events`, so a write excludes readers for its state change and storage only.
        """
        kept: list[ConversationEvent] = []
        late: list[DeadLetter] = []
        origins: list[int] = []
        for position, event in enumerate(events):
            within, letters = self._within_bounds([agents.admit_event(event)])  # admission's masking pass
            kept.extend(within)
            late.extend(letters)
            origins.extend(position for _ in within)
        extractions = [agents.extract(self.extractor, e) for e in kept]
        return PreparedEvents(len(events), kept, late, extractions, origins)

    def ingest_events(
        self, events: Sequence[ConversationEvent] | PreparedEvents, *, section: Section = nullcontext
    ) -> IngestReport:
        """Reduce, log and index ``events``.

        ``section`` is held only while the ingest changes what readers see: reducing each batch
        into the state store, and writing and committing the indexes. The log's inserts (most of a
        small write's time) run outside it, so a server's readers go on beside them; the index is
        still written only after the log holds what it indexes. The caller must be the only writer.
        """
        self._require_writer()
        prepared = events if isinstance(events, PreparedEvents) else None
        if prepared is None:
            assert not isinstance(events, PreparedEvents)
            report = IngestReport(received=len(events))
            admitted = [agents.admit_event(e) for e in events]  # the masking pass of admission
            kept, late = self._within_bounds(admitted)
        else:
            report = IngestReport(received=prepared.received)
            kept, late = prepared.events, prepared.late
        start = 0
        with _BatchWriter(section=section) as writer:
            try:
                for number, batch in enumerate(_chunks(kept, self.settings.batch_size, FIRST_BATCH)):
                    extracting: Extracting | None = None
                    if prepared is not None:
                        done = prepared.extractions[start : start + len(batch)]
                        extracting = lambda done=done: done  # noqa: E731
                    start += len(batch)
                    self._process(batch, late if number == 0 else [], report, writer, extracting)
                if not kept and late:
                    self._process([], late, report, writer)
            finally:
                writer.submit(self._write_gathered, section)
        self._commit_indexes(section)
        return report

    def _commit_indexes(self, section: Section = nullcontext) -> None:
        """Make the writes searchable; save the indexes unless saves are deferred (:meth:`defer_saves`).

        Only making them searchable changes what readers see; a save writes the indexes' node maps
        and vectors whole (~0.2 s at 10k nodes) and runs outside ``section``, beside reads.
        """
        durable = self._save_interval_s <= 0 or time.monotonic() - self._saved_at >= self._save_interval_s
        with section():
            self.index.commit(durable=False)
            self.excerpts.commit(durable=False)
        if durable:
            self.index.commit()
            self.excerpts.commit()
            self._saved_at = time.monotonic()

    def defer_saves(self, interval_s: float) -> None:
        """Save the indexes at most every ``interval_s`` (the API's many small writes); 0 saves every commit."""
        self._save_interval_s = interval_s

    def save_indexes(self) -> None:
        """Save what deferred commits left unsaved (the API calls this when idle and at shutdown)."""
        if any(getattr(i, "unsaved", False) for i in (self.index, self.excerpts)):
            self.index.commit()
            self.excerpts.commit()
        self._saved_at = time.monotonic()

    def _within_bounds(self, events: Sequence[ConversationEvent]) -> tuple[list[ConversationEvent], list[DeadLetter]]:
        """Events whose ``occurred_at`` is within the time bounds, and dead letters of the rest."""
        kept: list[ConversationEvent] = []
        letters: list[DeadLetter] = []
        now = self._clock()
        for event in events:
            try:
                self._time_bounds.check(event, now)
            except InvalidEvent as exc:
                raw = event.model_dump_json().encode("utf-8")
                letters.append(
                    agents.dead_letter(
                        raw, source="admission", reason_code=exc.code, message=exc.message, received_at=now
                    )
                )
                continue
            kept.append(event)
        return kept, letters

    def _process(
        self,
        events: Sequence[ConversationEvent],
        letters: list[DeadLetter],
        report: IngestReport,
        writer: _BatchWriter,
        extracting: Extracting | None = None,
    ) -> None:
        # Extracted ahead (before the batch before it was reduced): awaited before readers are held up.
        ahead_results = None if extracting is None else extracting()
        operations: list[Operation] = []
        with writer.section():  # the store changes: readers wait (never across writer.submit below)
            sorted_ = agents.sort_events(events, self.store)
            fresh = sorted_.fresh
            report.duplicates += sorted_.duplicates
            report.events += len(fresh)
            if sorted_.conflicts:
                now = self._clock()
                letters.extend(agents.conflict_letter(e, now) for e in sorted_.conflicts)
            if ahead_results is None:
                extractions = [agents.extract(self.extractor, e) for e in fresh]
            else:  # keep the fresh events' results
                keep = {id(e) for e in fresh}
                extractions = [r for e, r in zip(events, ahead_results, strict=True) if id(e) in keep]
            for result in extractions:
                report.claims += len(result.claims)
                report.rejected_claims += len(result.rejected)
                report.failed_extractions += result.status == "failed"
                try:
                    operations.extend(agents.materialize(self.store, self.reducer, result).operations)
                except EpistreamError as exc:
                    # A broken invariant in the reducer (rule breaks are journaled, not raised): the input
                    # left no trace in the store (Reducer.apply is a transaction) and is kept as a dead
                    # letter, as the stream's materialize does, so the rest of the batch is stored.
                    letters.append(_refused_by_reducer(result, exc, self._clock()))
        report.dead_letters += len(letters)
        nodes = _count(operations, report)
        # The model starts on this batch's new texts now, while the previous batch is still being
        # stored (see EmbeddedIndex.prepare_vectors); batches are embedded in order on one thread.
        prepare = getattr(self.index, "prepare_vectors", None)
        ahead = writer.helper.submit(prepare, nodes) if prepare is not None and nodes else None
        writer.submit(self._store_batch, fresh, extractions, letters, operations, nodes, ahead, writer.section)

    def _store_batch(
        self,
        fresh: Sequence[ConversationEvent],
        extractions: Sequence[ExtractionResult],
        letters: Sequence[DeadLetter],
        operations: Sequence[Operation],
        nodes: Sequence[MemoryNode],
        ahead: Future[int] | None = None,
        section: Section = nullcontext,
    ) -> None:
        """Gather a reduced batch's rows; write them with the batches before it once there are enough.

        A chDB insert costs ~10-30 ms of CPU whatever its size, five tables per write: writing per
        micro-batch made the inserts a large share of an ingest (batches of 2,048 ran 20-30% less
        CPU per message than 512). Micro-batches stay small, so the embedding model starts early
        and works beside the rest; only the log writes are gathered (``log_batch_rows``), and the
        end of every ingest writes what is left.
        """
        self._gathered.append(_Gathered(fresh, extractions, letters, operations, nodes, ahead))
        self._gathered_rows += len(fresh) + len(operations)
        if self._gathered_rows >= self.settings.log_batch_rows:
            self._write_gathered(section)

    def _write_gathered(self, section: Section = nullcontext) -> None:
        # Each batch's ``ahead`` embeds its new texts (started when it was reduced) while the log rows
        # are written here. The index is written only after the log, batch by batch in order, so the
        # index never holds a node the log lacks; the rows are the ones per-batch writes would store.
        gathered, self._gathered, self._gathered_rows = self._gathered, [], 0
        if not gathered:
            return
        aheads = [g.ahead for g in gathered if g.ahead is not None]
        try:
            fresh = [e for g in gathered for e in g.fresh]
            if fresh:
                self.log.write_events(fresh)
                self.log.write_extractions([x for g in gathered for x in g.extractions])
            letters = [d for g in gathered for d in g.letters]
            if letters:
                self.log.write_dead_letters(letters)
            self._write_log([op for g in gathered for op in g.operations], [n for g in gathered for n in g.nodes])
        except BaseException:
            wait(aheads)  # not left running unobserved; the write's error is the one to report
            raise
        for ahead in aheads:
            ahead.result()
        with section():
            for g in gathered:
                if g.operations:
                    self.index.upsert(g.nodes)
            if fresh:
                said = [self._conversations.excerpt(e) for e in fresh]
                self.excerpts.upsert([excerpt_document(x) for x in said])

    def _write_log(self, operations: Sequence[Operation], nodes: Sequence[MemoryNode]) -> None:
        if operations:
            self.log.write_operations(operations)
            self.log.write_node_snapshots(nodes)

    def _store(self, operations: Sequence[Operation], nodes: Sequence[MemoryNode]) -> None:
        if not operations:
            return
        self._write_log(operations, nodes)
        self.index.upsert(nodes)

    def _sink(self, operations: Sequence[Operation], report: IngestReport) -> None:
        self._store(operations, _count(operations, report))

    def submit(self, command: CommandBase) -> ApplyResult:
        """Apply one command; its operations are stored and indexed before returning."""
        self._require_writer()
        result = agents.materialize(self.store, self.reducer, command)
        self._sink(result.operations, IngestReport())
        self._commit_indexes()
        return result

    def erase(
        self, scope: ErasureScope, *, requested_by: str, request_id: str | None = None
    ) -> ErasureReceipt:
        """Forget ``scope`` for good (log shredded, projections purged, receipt stored); see ``epistream.erasure``."""
        self._require_writer()
        from epistream.erasure import erase

        self._write_gathered()
        try:
            return erase(self, scope, requested_by=requested_by, request_id=request_id, now=self._clock())
        finally:
            # the last turns of each session (the next excerpts' context) may quote what was erased
            self._conversations = agents.ConversationContext(self.settings.excerpt_context_turns)

    def promote_due(self, as_of: datetime) -> list[Operation]:
        """Journal automatic TENTATIVE -> STABLE promotions due at ``as_of``."""
        self._require_writer()
        ops = due_promotions(self.store, as_of, self.engine_config)
        for op in ops:
            self.store.apply_operation(op)
        self._sink(ops, IngestReport())
        self.index.commit()
        return ops

    def _require_writer(self) -> None:
        """Distributed, the workers are the single writer per key, and this runner holds no state:
        reducing here would start from nothing and write a second history into their log."""
        if self.reads_shared:
            raise ReadOnlyRunner(
                "this runner reads a distributed deployment; publish events and commands to Kafka instead",
                api_mode="distributed",
            )

    # ---------------------------------------------------------------- reads
    def retrieve(self, request: RetrievalRequest) -> RetrievalResponse:
        return self.retriever.retrieve(request)

    def nodes_of(self, scope: ScopeRef | None = None, *, tenant_id: str, owner_id: str) -> list[MemoryNode]:
        """One owner's nodes as the deployment knows them now.

        Embedded, this process is the single writer and its store is current. Distributed, the
        workers write, and the answer comes from the log they write to: each node's newest snapshot.
        """
        if self.reads_shared:
            nodes = self.log.latest_node_snapshots(tenant=tenant_id, owner=owner_id)
        else:
            nodes = self.store.owner_nodes(tenant_id, owner_id)
        return _in_scope(nodes, scope)

    def edges_of_owner(self, *, tenant_id: str, owner_id: str) -> list[Edge]:
        """One owner's edges; distributed, each in the newest state the log's operations gave it.

        Edges are not in the index, and this is what folding the owner's operations would hold,
        without parsing them all.
        """
        if self.reads_shared:
            return self.log.owner_edges(tenant_id, owner_id)
        return self.store.owner_edges(tenant_id, owner_id)

    def world(
        self, *, tenant_id: str, owner_id: str, scope: ScopeRef | None = None, at: datetime | None = None,
        task_id: str | None = None, readable: frozenset[str] | None = None,
    ) -> WorldContext:
        """The world view of one owner, with its continuation (and ``task_id``'s context when selected).

        ``readable`` (a reader not allowed for the owner, ``schemas.visibility``) keeps only the nodes it
        may read, and the edges between them."""
        nodes = self.nodes_of(scope, tenant_id=tenant_id, owner_id=owner_id)
        edges = self.edges_of_owner(tenant_id=tenant_id, owner_id=owner_id)
        # Without an index (a distributed reader given only the log) the log's nodes are the answer.
        shared = None if isinstance(self.index, Unconfigured) else getattr(self.index, "owner_nodes", None)
        if shared is not None and self.reads_shared:
            # The stream workers fill this index. It also holds their nodes when this process's log
            # does not (chDB in its own data directory instead of the workers' ClickHouse server);
            # of two copies of a node the newer version wins. Embedded, the store already holds
            # every node the index has, and the extra query is skipped.
            merged = {
                n.node_id: n
                for n in shared(
                    tenant_id=tenant_id,
                    owner_id=owner_id,
                    scope=scope.scope if scope is not None else None,
                    scope_id=scope.scope_id if scope is not None else None,
                )
            }
            for n in nodes:
                held = merged.get(n.node_id)
                if held is None or n.version > held.version:
                    merged[n.node_id] = n
            nodes = list(merged.values())
        nodes, edges = readable_view(nodes, edges, readable)
        view = world_context(
            nodes,
            edges,
            tenant_id=tenant_id,
            owner_id=owner_id,
            reference_time=at or self._clock(),
            scope=scope.scope if scope is not None else None,
            scope_id=scope.scope_id if scope is not None else None,
            config=self.engine_config,
        )
        return with_continuation(view, nodes, task_id=task_id)

    def node(self, node_id: str, *, tenant_id: str, owner_id: str | None = None) -> MemoryNode | None:
        """The node in this tenant (and owner, if given), or None.

        Distributed, the local store does not see what the workers write, but an index shared
        with them (``EPISTREAM_OPENSEARCH_URL`` + ``EPISTREAM_OPENSEARCH_INDEX``) does: a command's
        owner and scope (its Kafka key and the key's grants) come from the node, so a node found in
        neither is not found rather than a command published blind.
        """
        node = self.store.get_node(node_id)
        if node is None and self.reads_shared:
            node = next((n for n in self.index.get([node_id]) if n.node_id == node_id), None)
        if node is None or node.tenant_id != tenant_id or (owner_id is not None and node.owner_id != owner_id):
            return None
        return node

    def provenance(
        self,
        node_id: str,
        *,
        tenant_id: str,
        owner_id: str,
        cursor: str | None = None,
        limit: int = 100,
        readable: frozenset[str] | None = None,
    ) -> NodeProvenance | None:
        """From raw events and the operation log only, never from derived tables.

        Only the owner's operations that name the node are read. They are all that
        ``get_provenance`` uses: the node's own operations and those carrying its edges name it,
        and so does the snapshot that shows an edge's other end belongs to the same owner (both
        ends of a contradiction list each other in ``contradicts``). Parsing the owner's whole log
        instead costs ~1.3 s for an owner with 8,000 operations.
        """
        ops = self.log.operations_naming(tenant_id, owner_id, [node_id])
        node = next((op.after for op in reversed(ops) if op.after is not None and op.after.node_id == node_id), None)
        if node is None or not is_visible(node.visibility, readable):
            return None
        ops = readable_operations(ops, readable)
        events = [e.model_dump(mode="json") for e in self.log.get_events(list(node.evidence_refs), tenant_id, owner_id)
                  if is_visible(e.visibility, readable)]  # fmt: skip
        return get_provenance(
            node_id,
            owner_id,
            events,
            ops,
            tenant_id=tenant_id,
            operation_cursor=cursor,
            operation_limit=limit,
        )

    def assertion(
        self,
        *,
        tenant_id: str,
        owner_id: str,
        subject: str,
        predicate: str,
        valid_at: datetime,
        knowledge_at: datetime | None = None,
        scope: ScopeRef | None = None,
        node_types: Iterable[NodeType] = DEFAULT_NODE_TYPES,
        limit: int = 1000,
        readable: frozenset[str] | None = None,
    ) -> AssertionState:
        nodes = self.nodes_of(scope, tenant_id=tenant_id, owner_id=owner_id)
        nodes, owned = readable_view(nodes, self.edges_of_owner(tenant_id=tenant_id, owner_id=owner_id), readable)
        edges = [e for e in owned if e.edge_type is EdgeType.CONTRADICTS]
        return assertion_state(
            nodes,
            edges,
            subject=subject,
            predicate=predicate,
            valid_at=valid_at,
            knowledge_at=knowledge_at,
            scope=scope,
            node_types=node_types,
            limit=limit,
            config=self.engine_config,
        )

    def verify_replay(self, limit: int = 100) -> list[str]:
        """Differences between live state and a rebuild from the operation log alone."""
        return verify_replay(self.store, self.log.stream_operations(), limit=limit)

    def stats(self, tenant_id: str | None = None, owner_id: str | None = None) -> dict[str, Any]:
        return self.log.stats(tenant=tenant_id, owner=owner_id)
