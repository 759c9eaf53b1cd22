"""OpenSearch as the distributed ``SearchBackend``: BM25 + Lucene HNSW k-NN over node documents.

Writes are idempotent projections of node snapshots: ``_id`` is the node id and
the node version is an *external* version, so OpenSearch itself refuses a write
that is not newer than what it holds (a redelivered snapshot, a stale replay).
Those refusals (HTTP 409) are the expected outcome of at-least-once delivery
and are counted, not raised.

Embedding is the expensive part of a write, so a vector is computed only when
the embedded text or the embedder changed (a reinforcement bumps the version but
keeps the content). The vectors this index object wrote last are kept in a
bounded cache by node id and content hash; only a node that is neither new
(version 1) nor in that cache costs a read of the stored content hash and vector
(one ``mget`` per batch). A stream worker writes every version of the nodes of
its partitions, so in steady state nothing is read back: new nodes are written
blind and a repeated or stale one is refused by the external version (409).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson
from opensearchpy import OpenSearch

from engine.filters import condition_state_of
from schemas.enums import EpistemicType, Scope
from schemas.errors import BackendUnavailable, DocumentRejected, ValidationFailed
from schemas.nodes import MemoryNode
from schemas.search import SearchFilter, SearchHit, competition_ranks
from schemas.visibility import visibility_of
from sinks.documents import TEXT_FIELDS, embedded_text, embedded_text_hash, lexical_texts
from sinks.embedding import Embedder
from sinks.opensearch_client import DEFAULT_TIMEOUT_S, as_client, guarded
from sinks.opensearch_mapping import (
    DEFAULT_ALIAS,
    DEFAULT_REFRESH_INTERVAL,
    VECTOR_FIELD,
    embedder_meta,
    ensure_index,
    read_meta,
    write_meta,
)
from sinks.opensearch_query import (
    filter_clauses,
    knn_body,
    lexical_body,
    query_words,
    split_common,
    term_stats_body,
)

if TYPE_CHECKING:
    from schemas.settings import Settings

#: Read back before a write: enough to decide "stale" and "vector reusable" without the vector itself.
_CHECK_FIELDS = ("content_hash", "embedding_model", "embedding_model_version")
#: Vectors kept per index object (float32: 1.5 KiB each at 384 dimensions, so ~30 MiB by default).
DEFAULT_VECTOR_CACHE = 20_000


@dataclass
class UpsertReport:
    """Counts of one or more upserts; ``failed`` and ``rejected`` hold (node_id, error type), never content.

    ``failed``: documents OpenSearch could not take now (back-pressure, a blocked or missing index,
    server errors); the write is worth retrying. ``rejected``: documents it refused for good (see
    ``PERMANENT_REJECTIONS``); retrying cannot help, the caller decides where they go.
    """

    received: int = 0
    written: int = 0
    stale: int = 0
    embedded: int = 0
    reused_vectors: int = 0
    vectors_omitted: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)

    def add(self, other: UpsertReport) -> None:
        self.received += other.received
        self.written += other.written
        self.stale += other.stale
        self.embedded += other.embedded
        self.reused_vectors += other.reused_vectors
        self.vectors_omitted += other.vectors_omitted
        self.failed.extend(other.failed)
        self.rejected.extend(other.rejected)

    @staticmethod
    def summary(entries: list[tuple[str, str]]) -> dict[str, Any]:
        """How many, the first ids and the error types of ``failed`` or ``rejected``: never content."""
        return {
            "count": len(entries),
            "node_ids": [node_id for node_id, _ in entries[:20]],
            "error_types": sorted({kind for _, kind in entries}),
        }


#: Bulk item statuses that say the document itself is unacceptable (mapping conflict, unparsable
#: field, too large): the same bytes will be refused again. Every other failure (429 back-pressure,
#: 403 read-only block on a full disk, 404 missing index, 5xx) is the cluster's state, which an
#: operator fixes; those writes are retried.
PERMANENT_REJECTIONS = frozenset({400, 413})


def is_permanent_rejection(status: int) -> bool:
    return status in PERMANENT_REJECTIONS


def _iso_or_none(value: Any) -> str | None:
    return None if value is None else value.isoformat()


def bulk_body(actions: Sequence[Mapping[str, Any]]) -> bytes:
    """The NDJSON body of a bulk request, encoded by orjson.

    The client's own encoder (stdlib json, with a fallback call per numpy value) spent more
    time on the 384 floats of each vector than on everything else in an index write.
    """
    option = orjson.OPT_SERIALIZE_NUMPY
    return b"".join(orjson.dumps(action, option=option) + b"\n" for action in actions)


def node_document(
    node: MemoryNode, vector: Sequence[float] | None, model_name: str | None, model_version: str | None
) -> dict[str, Any]:
    """The indexed projection of a node plus the node itself (unindexed) for ``get``."""
    # Only CONDITIONAL nodes are filtered on condition state; store their effective state
    # (field, else metadata, else UNKNOWN) so the filter needs no fallback logic.
    if node.epistemic_type is EpistemicType.CONDITIONAL:
        condition_state: str | None = condition_state_of(node).value
    else:
        condition_state = node.condition_state.value if node.condition_state is not None else None
    doc: dict[str, Any] = {
        "node_id": node.node_id,
        "tenant_id": node.tenant_id,
        "owner_id": node.owner_id,
        "scope": node.scope.value,
        "scope_id": node.scope_id,
        "visibility": visibility_of(node.visibility),
        "node_type": node.node_type.value,
        "epistemic_type": node.epistemic_type.value,
        "source_type": node.source_type.value,
        "lifecycle": node.lifecycle.value,
        "condition_state": condition_state,
        "polarity": node.polarity.value,
        "predicate": node.predicate,
        **dict.fromkeys(TEXT_FIELDS),
        **lexical_texts(node),
        "confidence": node.confidence,
        "salience": node.salience,
        "version": node.version,
        "valid_from": node.valid_from.isoformat(),
        "valid_to": _iso_or_none(node.valid_to),
        "recorded_at": node.recorded_at.isoformat(),
        "created_at": node.created_at.isoformat(),
        "updated_at": node.updated_at.isoformat(),
        "content_hash": embedded_text_hash(node),
        "evidence_refs": list(node.evidence_refs),
        "node": node.to_json_dict(),
    }
    if vector is not None:
        doc[VECTOR_FIELD] = list(vector)
        doc["embedding_model"] = model_name
        doc["embedding_model_version"] = model_version
    return doc


def _hits(raw_hits: list[dict[str, Any]], k: int, *, cosine: bool) -> list[SearchHit]:
    # Lucene's cosinesimil score is (1 + cos) / 2; report the cosine itself, rounded like the
    # embedded index does, so float32 noise does not split ties differently on the two backends.
    scores = {
        h["_id"]: round(2.0 * float(h["_score"]) - 1.0, 6) if cosine else float(h["_score"]) for h in raw_hits
    }
    ranks = competition_ranks(scores)
    order = sorted(scores, key=lambda i: (-scores[i], i))[:k]
    return [SearchHit(node_id=i, score=scores[i], rank=ranks[i]) for i in order]


class OpenSearchIndex:
    """``SearchBackend`` over an OpenSearch alias (see ``sinks.opensearch_mapping``)."""

    def __init__(
        self,
        client_or_url: OpenSearch | str,
        alias: str = DEFAULT_ALIAS,
        embedder: Embedder | None = None,
        *,
        create: bool = True,
        timeout: float = DEFAULT_TIMEOUT_S,
        bulk_timeout: float = 60.0,
        batch_size: int = 500,
        embed_batch: int = 64,
        tenant_id: str | None = None,
        shards: int = 1,
        replicas: int = 0,
        refresh_interval: str = DEFAULT_REFRESH_INTERVAL,
        knn_candidates: int = 100,
        vector_cache: int = DEFAULT_VECTOR_CACHE,
    ) -> None:
        if embedder is None:
            raise ValidationFailed("an embedder is required", field="embedder")
        self.client = as_client(client_or_url, timeout=timeout)
        self._owns_client = isinstance(client_or_url, str)
        self._unrefreshed = False  # written since the last refresh
        self.alias = alias
        self.embedder = embedder
        self.timeout = timeout
        self.bulk_timeout = bulk_timeout
        self.batch_size = max(1, batch_size)
        self.embed_batch = max(1, embed_batch)
        self.tenant_id = tenant_id
        self.stats = UpsertReport()
        self._model = (str(embedder.model_name), str(embedder.model_version), int(embedder.dimension))
        self._meta: dict[str, Any] | None = None
        self._writes_to_alias: bool | None = True if create else None
        self.knn_candidates = knn_candidates
        #: node id -> (content hash, vector) of the last version written from here; LRU order.
        self._vector_cache: OrderedDict[str, tuple[str, np.ndarray[Any, np.dtype[np.float32]]]] = OrderedDict()
        self._vector_cache_size = max(0, vector_cache)
        if create:
            ensure_index(
                self.client,
                alias,
                self._model[2],
                embedding_model=self._model[0],
                embedding_model_version=self._model[1],
                shards=shards,
                replicas=replicas,
                refresh_interval=refresh_interval,
                timeout=max(timeout, 30.0),
            )

    @classmethod
    def from_settings(
        cls, settings: Settings, embedder: Embedder, *, url: str | None = None, alias: str | None = None
    ) -> OpenSearchIndex:
        """The node index a deployment's settings describe: URL and alias (unless given), refresh
        interval and vector cache. Every process that writes the index opens it this way."""
        target = url if url is not None else settings.opensearch_url
        if not target:
            raise ValidationFailed("no OpenSearch URL is configured", field="opensearch_url")
        return cls(
            target,
            alias if alias is not None else settings.opensearch_index,
            embedder,
            refresh_interval=settings.opensearch_refresh_interval,
            vector_cache=settings.opensearch_vector_cache,
        )

    # ------------------------------------------------------------------ embedder bookkeeping

    def index_meta(self, *, reload: bool = False) -> dict[str, Any]:
        if self._meta is None or reload:
            meta = read_meta(self.client, self.alias, timeout=self.timeout)
            if "embedding_model" not in meta:
                # An index created without an embedder is claimed by the first one that writes to it.
                claim = embedder_meta(self._model[0], self._model[1])
                write_meta(self.client, self.alias, claim, timeout=self.timeout)
                meta = {**meta, **claim}
            self._meta = meta
        return self._meta

    @property
    def embedding_mismatch(self) -> bool:
        meta = self.index_meta()
        stored = (
            str(meta.get("embedding_model")),
            str(meta.get("embedding_model_version", "")),
            int(meta.get("embedding_dimension", -1)),
        )
        return stored != self._model

    # ------------------------------------------------------------------ writes

    def upsert(self, nodes: Sequence[MemoryNode], vectors: Mapping[str, Sequence[float]] | None = None) -> None:
        """Write newer node versions; a document OpenSearch refuses is an error here (see ``upsert_report``)."""
        report = self.upsert_report(nodes, vectors)
        if report.rejected:
            raise DocumentRejected("OpenSearch refused some node documents", **UpsertReport.summary(report.rejected))

    def upsert_report(
        self, nodes: Sequence[MemoryNode], vectors: Mapping[str, Sequence[float]] | None = None
    ) -> UpsertReport:
        """Write newer node versions and count what happened.

        Raises :class:`BackendUnavailable` when some documents could not be written *now* (the
        caller retries; documents already written are skipped as stale next time). Documents
        refused for good come back in ``rejected`` instead of raising: one bad document must not
        hold back the rest, and retrying it forever would stall the index sink.
        """
        report = UpsertReport()
        for start in range(0, len(nodes), self.batch_size):
            report.add(self._upsert_batch(nodes[start : start + self.batch_size], vectors or {}))
        self.stats.add(report)
        if report.failed:
            raise BackendUnavailable(
                "OpenSearch could not take some node documents", operation="bulk", **UpsertReport.summary(report.failed)
            )
        return report

    def _mget_sources(self, ids: list[str], fields: Sequence[str]) -> dict[str, dict[str, Any]]:
        if not ids:
            return {}
        with guarded("mget", index=self.alias):
            found = self.client.mget(
                index=self.alias,
                body={"ids": ids},
                params={"_source_includes": ",".join(fields), "realtime": "true"},
                request_timeout=self.timeout,
            )
        return {d["_id"]: d for d in found.get("docs", []) if d.get("found")}

    def _stored(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """Stored version and content hash per id (no vectors: a redelivery never needs them)."""
        return self._mget_sources(ids, _CHECK_FIELDS)

    def _upsert_batch(self, batch: Sequence[MemoryNode], given: Mapping[str, Sequence[float]]) -> UpsertReport:
        report = UpsertReport(received=len(batch))
        latest: dict[str, MemoryNode] = {}
        for node in batch:
            held = latest.get(node.node_id)
            if held is None or node.version > held.version:
                latest[node.node_id] = node
        report.stale += len(batch) - len(latest)
        cached = {
            node_id: reusable
            for node_id, node in latest.items()
            if node_id not in given and (reusable := self._cached_vector(node)) is not None
        }
        # A new node (version 1) has nothing stored unless this is a redelivery, which the external
        # version refuses anyway; a node whose vector is cached was last written from here.
        stored = self._stored(
            [i for i, n in latest.items() if n.version > 1 and i not in cached and i not in given]
        )
        fresh: list[MemoryNode] = []
        for node in latest.values():
            have = stored.get(node.node_id)
            if have is not None and int(have.get("_version", 0)) >= node.version:
                report.stale += 1
            else:
                fresh.append(node)
        vectors = self._vectors_for(fresh, stored, given, cached, report)
        if not fresh:
            return report
        actions: list[dict[str, Any]] = []
        model_name, model_version, _ = self._model
        for node in fresh:
            vec = vectors.get(node.node_id)
            meta = {"_index": self.alias, "_id": node.node_id, "version": node.version, "version_type": "external"}
            actions.append({"index": meta})
            actions.append(node_document(node, vec, model_name if vec else None, model_version if vec else None))
        params = {"filter_path": "errors,items.*._id,items.*.status,items.*.error.type"}
        if self._writes_to_alias is None:
            with guarded("exists_alias", alias=self.alias):
                found = self.client.indices.exists_alias(name=self.alias, request_timeout=self.timeout)
            self._writes_to_alias = bool(found)
        if self._writes_to_alias:
            # Never let a bulk write auto-create a concrete index named like the alias.
            params["require_alias"] = "true"
        with guarded("bulk", index=self.alias, docs=len(fresh)):
            result = self.client.bulk(
                body=bulk_body(actions),
                params=params,
                request_timeout=self.bulk_timeout,
            )
        self._unrefreshed = True
        for item in result.get("items", []):
            outcome = next(iter(item.values()))
            status = int(outcome.get("status", 0))
            node_id = str(outcome.get("_id"))
            if status in (200, 201):
                report.written += 1
                self._remember_vector(latest.get(node_id), vectors.get(node_id))
            elif status == 409:
                report.stale += 1
                self._vector_cache.pop(node_id, None)  # a newer version is stored: its text is unknown here
            else:
                entry = (node_id, str(outcome.get("error", {}).get("type", status)))
                (report.rejected if is_permanent_rejection(status) else report.failed).append(entry)
        return report

    def _cached_vector(self, node: MemoryNode) -> np.ndarray[Any, np.dtype[np.float32]] | None:
        held = self._vector_cache.get(node.node_id)
        if held is None or held[0] != embedded_text_hash(node):
            return None
        self._vector_cache.move_to_end(node.node_id)
        return held[1]

    def _remember_vector(self, node: MemoryNode | None, vec: Sequence[float] | None) -> None:
        if node is None or not self._vector_cache_size:
            return
        if not vec:  # written without a vector: nothing to reuse, and an old entry no longer applies
            self._vector_cache.pop(node.node_id, None)
            return
        self._vector_cache[node.node_id] = (embedded_text_hash(node), np.asarray(vec, dtype=np.float32))
        self._vector_cache.move_to_end(node.node_id)
        while len(self._vector_cache) > self._vector_cache_size:
            self._vector_cache.popitem(last=False)

    def _vectors_for(
        self,
        nodes: list[MemoryNode],
        stored: Mapping[str, dict[str, Any]],
        given: Mapping[str, Sequence[float]],
        cached: Mapping[str, np.ndarray[Any, np.dtype[np.float32]]],
        report: UpsertReport,
    ) -> dict[str, list[float]]:
        if self._model[2] == 0:
            return {}
        if self.embedding_mismatch:
            # Never mix vector spaces: keep lexical search current and leave vectors to a rebuild.
            report.vectors_omitted += len(nodes)
            return {}
        model_name, model_version, dimension = self._model
        out: dict[str, list[float]] = {}
        reusable: list[MemoryNode] = []
        todo: list[MemoryNode] = []
        for node in nodes:
            src = stored.get(node.node_id, {}).get("_source", {})
            if node.node_id in given:
                out[node.node_id] = [float(x) for x in given[node.node_id]]
            elif node.node_id in cached:
                out[node.node_id] = cached[node.node_id].tolist()
                report.reused_vectors += 1
            elif (
                src.get("content_hash") == embedded_text_hash(node)
                and src.get("embedding_model") == model_name
                and src.get("embedding_model_version") == model_version
            ):
                reusable.append(node)
            else:
                todo.append(node)
        held = self._mget_sources([n.node_id for n in reusable], (VECTOR_FIELD,))
        for node in reusable:
            vec = held.get(node.node_id, {}).get("_source", {}).get(VECTOR_FIELD)
            if isinstance(vec, list):
                out[node.node_id] = vec
                report.reused_vectors += 1
            else:  # replaced or removed between the two reads
                todo.append(node)
        for start in range(0, len(todo), self.embed_batch):
            chunk = todo[start : start + self.embed_batch]
            matrix = np.asarray(self.embedder.embed([embedded_text(n) for n in chunk]), dtype=np.float32)
            if matrix.shape != (len(chunk), dimension):
                raise ValidationFailed("embedder returned vectors of the wrong shape", field="embedding")
            for node, row in zip(chunk, matrix, strict=True):
                out[node.node_id] = row.tolist()
            report.embedded += len(chunk)
        for node_id, vec in list(out.items()):
            if len(vec) != dimension:
                raise ValidationFailed("precomputed vector has the wrong dimension", field="vectors", node_id=node_id)
            if not any(vec):
                # Cosine is undefined for a zero vector and Lucene rejects the whole document.
                del out[node_id]
                report.vectors_omitted += 1
        return out

    def refresh(self) -> None:
        with guarded("refresh", index=self.alias):
            self.client.indices.refresh(index=self.alias, request_timeout=self.timeout)
        self._unrefreshed = False

    def commit(self, durable: bool = True) -> None:
        """Make every upsert searchable now, as ``EmbeddedIndex.commit`` does (durability is OpenSearch's)."""
        if self._unrefreshed:
            self.refresh()

    def purge(self, node_ids: Sequence[str], *, chunk: int = 1000, wait_s: float = 120.0) -> tuple[int, int]:
        """Delete these documents for good (erasure); returns (documents deleted, deletes still in segments).

        A delete only marks a document (a soft delete): its source, terms and vector stay in the segment
        until a merge rewrites it, and OpenSearch keeps soft-deleted documents for its retention leases
        until the next lease sync (about 30 s). So after the deletes the shard is flushed and a forced
        merge that expunges deletes (from every segment holding one) repeated until no segment of the
        index holds a deleted document, or ``wait_s`` passed (the second number is then not 0). Other
        deletes (from updates) are expunged with them. A snapshot taken before is not reached.
        """
        ids = sorted(set(node_ids))
        deleted = 0
        for start in range(0, len(ids), chunk):
            with guarded("delete_by_query", index=self.alias):
                result = self.client.delete_by_query(
                    index=self.alias, body={"query": {"ids": {"values": ids[start : start + chunk]}}},
                    params={"refresh": "true", "conflicts": "proceed"}, request_timeout=self.bulk_timeout,
                )  # fmt: skip
            deleted += int(result.get("deleted", 0))
        for node_id in ids:
            self._vector_cache.pop(node_id, None)
        if not deleted:
            return 0, 0
        with guarded("put_settings", index=self.alias):
            self.client.indices.put_settings(index=self.alias, body={"index.merge.policy.expunge_deletes_allowed": 0},
                                             request_timeout=self.timeout)  # fmt: skip
        deadline = time.monotonic() + wait_s
        while True:
            with guarded("forcemerge", index=self.alias):
                self.client.indices.flush(index=self.alias, request_timeout=self.timeout)
                self.client.indices.forcemerge(index=self.alias, params={"only_expunge_deletes": "true"},
                                               request_timeout=max(self.bulk_timeout, 300.0))  # fmt: skip
                self.client.indices.refresh(index=self.alias, request_timeout=self.timeout)
                stats = self.client.indices.stats(index=self.alias, metric="docs", request_timeout=self.timeout)
            left = int(stats["_all"]["primaries"]["docs"]["deleted"])
            if left == 0 or time.monotonic() > deadline:
                return deleted, left
            time.sleep(1.0)

    def close(self) -> None:
        """Release the connection pool when this index created the client; a shared client stays open."""
        if self._owns_client:
            self.client.close()

    # ------------------------------------------------------------------ reads

    def _search(self, body: dict[str, Any], operation: str) -> list[dict[str, Any]]:
        with guarded(operation, index=self.alias):
            result = self.client.search(
                index=self.alias,
                body=body,
                params={"filter_path": "hits.hits._id,hits.hits._score,timed_out"},
                request_timeout=self.timeout,
            )
        if result.get("timed_out"):
            raise BackendUnavailable(f"OpenSearch {operation} timed out", operation=operation, error_type="timed_out")
        hits: list[dict[str, Any]] = result.get("hits", {}).get("hits", [])
        return hits

    def _server_timeout(self) -> str:
        return f"{max(1, int(self.timeout * 1000))}ms"

    def lexical(self, query: str, flt: SearchFilter, k: int) -> list[SearchHit]:
        if k < 1 or not query.strip():
            return []
        rare, common = self._split_common(query_words(query))
        body = lexical_body(query, flt, k, server_timeout=self._server_timeout(), rare=rare, common=common)
        hits = self._search(body, "lexical_search")
        return _hits(hits, k, cosine=False)

    def _split_common(self, words: list[str]) -> tuple[list[str], list[str]]:
        """Rare and common query words by document frequency over the whole alias (one extra request).

        Only a query of two or more words can have both kinds, so a one-word query skips the request.
        """
        if len(words) < 2:
            return [], []
        with guarded("term_stats", index=self.alias):
            stats = self.client.search(
                index=self.alias,
                body=term_stats_body(words),
                params={"filter_path": "hits.total.value,aggregations.df.buckets.*.doc_count"},
                request_timeout=self.timeout,
            )
        return split_common(words, stats)

    def vector(self, query: str, flt: SearchFilter, k: int) -> list[SearchHit]:
        if k < 1 or not query.strip() or self._model[2] == 0 or self.embedding_mismatch:
            return []
        vec = np.asarray(self.embedder.embed([query]), dtype=np.float32)[0].tolist()
        if not any(vec):  # no features (e.g. punctuation only): cosine undefined
            return []
        body = knn_body(vec, flt, k, server_timeout=self._server_timeout(), candidates=self.knn_candidates)
        hits = self._search(body, "vector_search")
        return _hits(hits, k, cosine=True)

    def get(self, node_ids: Sequence[str], *, tenant_id: str | None = None) -> list[MemoryNode]:
        """Nodes by id in request order, realtime (no refresh needed); other tenants' nodes are dropped."""
        wanted = list(dict.fromkeys(node_ids))
        if not wanted:
            return []
        tenant = tenant_id if tenant_id is not None else self.tenant_id
        with guarded("mget", index=self.alias):
            found = self.client.mget(
                index=self.alias,
                body={"ids": wanted},
                params={"_source_includes": "node,tenant_id", "realtime": "true"},
                request_timeout=self.timeout,
            )
        out: list[MemoryNode] = []
        for doc in found.get("docs", []):
            src = doc.get("_source") if doc.get("found") else None
            if src is None or (tenant is not None and src.get("tenant_id") != tenant):
                continue
            out.append(MemoryNode.model_validate(src["node"]))
        return out

    def cited(self, event_ids: Sequence[str], flt: SearchFilter, limit: int = 1000) -> list[MemoryNode]:
        """Documents within ``flt`` whose evidence names one of these events (the claims taken from them)."""
        wanted = sorted(set(event_ids))
        if not wanted:
            return []
        clauses = [*filter_clauses(flt), {"terms": {"evidence_refs": wanted}}]
        body = {"query": {"bool": {"filter": clauses}}, "size": limit, "sort": [{"node_id": "asc"}]}
        with guarded("cited", index=self.alias):
            result = self.client.search(
                index=self.alias,
                body=body,
                params={"filter_path": "hits.hits._source.node,timed_out", "_source_includes": "node"},
                request_timeout=self.timeout,
            )
        if result.get("timed_out"):
            raise BackendUnavailable("OpenSearch cited timed out", operation="cited", error_type="timed_out")
        return [MemoryNode.model_validate(h["_source"]["node"]) for h in result.get("hits", {}).get("hits", [])]

    def owner_nodes(
        self,
        *,
        tenant_id: str,
        owner_id: str,
        scope: Scope | None = None,
        scope_id: str | None = None,
        limit: int = 10_000,
    ) -> list[MemoryNode]:
        """One owner's nodes as the index holds them (written by any worker), at most ``limit``.

        What the world view of a distributed deployment is built from: the API process's own store
        only knows what that process ingested. Searches see refreshed documents (about a second).
        """
        flt = SearchFilter(tenant_id=tenant_id, owner_id=owner_id, scope=scope, scope_id=scope_id)
        body = {"query": {"bool": {"filter": filter_clauses(flt)}}, "size": limit, "sort": [{"node_id": "asc"}]}
        with guarded("owner_nodes", index=self.alias):
            result = self.client.search(
                index=self.alias,
                body=body,
                params={"filter_path": "hits.hits._source.node,timed_out", "_source_includes": "node"},
                request_timeout=self.timeout,
            )
        if result.get("timed_out"):
            raise BackendUnavailable(
                "OpenSearch owner_nodes timed out", operation="owner_nodes", error_type="timed_out"
            )
        return [MemoryNode.model_validate(h["_source"]["node"]) for h in result.get("hits", {}).get("hits", [])]

    def versions(self, page: int = 5000) -> dict[str, int]:
        """The version of every document under the alias, by id (a scan in id order): what a projection
        check compares with the log."""
        out: dict[str, int] = {}
        after: list[str] | None = None
        while True:
            body: dict[str, Any] = {"query": {"match_all": {}}, "size": page, "sort": [{"node_id": "asc"}],
                                    "_source": ["version"]}  # fmt: skip
            if after is not None:
                body["search_after"] = after
            with guarded("versions", index=self.alias):
                result = self.client.search(index=self.alias, body=body, request_timeout=self.timeout)
            hits = result.get("hits", {}).get("hits", [])
            for h in hits:
                out[h["_id"]] = int(h["_source"]["version"])
            if len(hits) < page:
                return out
            after = hits[-1]["sort"]

    def count(self, flt: SearchFilter | None = None) -> int:
        body: dict[str, Any] = {}
        if flt is not None:
            body = {"query": {"bool": {"filter": filter_clauses(flt)}}}
        with guarded("count", index=self.alias):
            result = self.client.count(index=self.alias, body=body or None, request_timeout=self.timeout)
        return int(result.get("count", 0))


def rebuild_from_snapshots(index: OpenSearchIndex, nodes: Iterable[MemoryNode], batch: int = 500) -> UpsertReport:
    """Feed node snapshots (e.g. ClickHouse's latest snapshot per node) into ``index``.

    Safe to run against a live index and to rerun: external versioning keeps
    whichever copy of a node is newer. For an embedder or mapping change, point
    ``index`` at a fresh ``<alias>-v<N>`` (``create_version``), rebuild, refresh,
    then ``swap_alias``.
    """
    total = UpsertReport()
    pending: list[MemoryNode] = []
    for node in nodes:
        pending.append(node)
        if len(pending) >= batch:
            total.add(index.upsert_report(pending))
            pending = []
    if pending:
        total.add(index.upsert_report(pending))
    index.refresh()
    return total
