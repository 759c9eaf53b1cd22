"""The embedded search index: BM25 (tantivy) + cosine HNSW (usearch) in a directory.

Implements ``schemas.search.SearchBackend`` for one machine. Every filter
of ``SearchFilter`` is applied inside the search: as tantivy query clauses for
BM25, and as a vectorised predicate over compact per-node attribute arrays for
vectors (exact search over the filtered set when it is small, HNSW with
over-fetch otherwise), so a document of another owner is never a candidate.

A node is replaced only by a newer version, and its text is embedded again
only when the embedded text changed. The index is a derived store: the chDB
node snapshots are the durable copy and can rebuild it.

Layout under ``path``: ``tantivy/`` (documents, node JSON stored as bytes),
``vectors.npy`` (exact vectors, row = integer key), ``graphs/<tenant>-<owner>.usearch``
(one HNSW graph per owner large enough to need one), ``nodes.json`` + ``attrs.npz``
(node map and filter attributes), ``meta.json`` (format and embedder identity).

Why one graph per owner: every vector query is owner-filtered. A single graph
over all owners answers a filtered query by over-fetching ~1/selectivity
neighbours, which grows with the number of owners (at 4 owners of 25k nodes,
~260 neighbours per query and retries; at thousands of owners, a walk of most of
the graph). An owner's own graph keeps the over-fetch to the selectivity of the
remaining filters (epistemic type, lifecycle, ...), whatever the index holds.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import threading
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from enum import Enum
from pathlib import Path
from typing import Any, Final

# onnxruntime must be loaded before usearch's SIMD library (numkong): importing
# usearch first makes onnxruntime's import segfault the interpreter.
with contextlib.suppress(ImportError):
    import onnxruntime  # noqa: F401

import numpy as np
import numpy.typing as npt
import tantivy
from usearch.index import Index as HnswIndex

from engine.canonical_fast import model_bytes
from engine.filters import condition_state_of
from schemas.canonical import sha256_hex
from schemas.enums import ConditionState, EpistemicType, LifecycleState, NodeType, Scope, SourceType
from schemas.errors import IntegrityError, StorageFull
from schemas.nodes import MemoryNode
from schemas.search import SearchFilter, SearchHit, competition_ranks
from schemas.visibility import visibility_of
from sinks.documents import FIELD_BOOSTS, TEXT_FIELDS, embedded_text, lexical_texts
from sinks.embedding import Embedder, embedder_identity
from sinks.storage import out_of_space

log = logging.getLogger(__name__)

FORMAT_VERSION: Final = 3
#: Parsed documents kept by id (see ``_fetch``): ~3 KB each.
PARSED_CACHE: Final = 20_000
#: Filtered sets up to this size are searched exactly (brute force over the set).
EXACT_LIMIT: Final = 20_000
#: A query word in more documents than this (and than the fraction below) is "common": it scores but
#: does not by itself make a document a lexical candidate (see ``EmbeddedIndex._text_query``).
COMMON_TERM_MIN_DOCS: Final = 100
COMMON_TERM_FRACTION: Final = 0.01
#: Query embeddings kept (oldest dropped first).
QUERY_CACHE_SIZE: Final = 512
_WORD: Final = re.compile(r"\w+", re.UNICODE)
#: The analysis chain of tantivy's ``en_stem`` tokenizer, to look up the indexed form of a query word.
_ANALYZER: Final = (
    tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
    .filter(tantivy.Filter.remove_long(40))
    .filter(tantivy.Filter.lowercase())
    .filter(tantivy.Filter.stemmer("english"))
    .build()
)
_MAX_I64: Final = 2**63 - 1
_NO_CONDITION: Final = "NONE"
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


def _micros(value: datetime) -> int:
    """Exact integer microseconds since the epoch (no float rounding at the boundaries)."""
    return (value - _EPOCH) // timedelta(microseconds=1)


def _parse_iso(value: str) -> int:
    return _micros(datetime.fromisoformat(value.replace("Z", "+00:00")))


def _codes(enum: type[Enum]) -> dict[Any, int]:
    return {member: i for i, member in enumerate(enum)}


_NODE_TYPE = _codes(NodeType)
_SOURCE_TYPE = _codes(SourceType)
_EPISTEMIC = _codes(EpistemicType)
_LIFECYCLE = _codes(LifecycleState)
_CONDITION = _codes(ConditionState)
_SCOPE = _codes(Scope)

# Attribute arrays, one row per integer key.
_ATTRS: Final[dict[str, Any]] = {
    "alive": np.bool_,
    "has_vec": np.bool_,
    "version": np.int64,
    "tenant": np.int32,
    "owner": np.int32,
    "scope": np.int8,
    "scope_id": np.int32,
    "visibility": np.int32,
    "node_type": np.int8,
    "source_type": np.int8,
    "epistemic": np.int8,
    "lifecycle": np.int8,
    "condition": np.int8,
    "confidence": np.float64,
    "valid_from": np.int64,
    "valid_to": np.int64,
    "recorded_at": np.int64,
}


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("node_id", stored=True, tokenizer_name="raw")
    sb.add_text_field("evidence", stored=False, tokenizer_name="raw")
    sb.add_unsigned_field("key", stored=True, indexed=True, fast=True)
    for name in TEXT_FIELDS:
        sb.add_text_field(name, stored=False, tokenizer_name="en_stem")
    for name in (
        "tenant_id",
        "owner_id",
        "scope",
        "scope_id",
        "node_type",
        "source_type",
        "epistemic_type",
        "lifecycle",
        "condition_state",
        "visibility",
    ):
        sb.add_text_field(name, stored=False, tokenizer_name="raw", fast=True)
    sb.add_float_field("confidence", indexed=True, fast=True)
    for name in ("valid_from", "valid_to", "recorded_at"):
        sb.add_integer_field(name, indexed=True, fast=True)
    sb.add_bytes_field("node", stored=True)
    return sb.build()


#: Inserting from several threads makes the graph's shape depend on thread scheduling: the same data
#: gave 16 different graphs in 20 builds, so the same query could find a node in one run and miss it
#: in the next. One thread builds the same graph every time (an index rebuilt from the log answers as
#: the original did); graphs exist only for owners past ``EXACT_LIMIT``, so the build time is rare.
_GRAPH_THREADS: Final = 1


def _restore_graph(file: Path) -> HnswIndex | None:
    """A saved owner graph, or None when the file cannot be read (a crash while saving, a damaged
    disk): the graph is only an accelerator over the stored vectors, so it is rebuilt from them
    instead of making the whole index unopenable."""
    try:
        return HnswIndex.restore(str(file), view=False)
    except (ValueError, RuntimeError, OSError) as exc:
        log.warning("vector graph %s is unreadable (%s); rebuilding it from the stored vectors", file.name, exc)
        return None


def _new_hnsw(dim: int) -> HnswIndex:
    """int8 graph: it only proposes candidates, which are re-scored exactly from the float32 vectors."""
    return HnswIndex(ndim=dim, metric="cos", dtype="i8", connectivity=16, expansion_add=48, expansion_search=96)


class EmbeddedIndex:
    """``SearchBackend`` over a local directory; one writer process at a time."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        embedder: Embedder,
        *,
        exact_limit: int = EXACT_LIMIT,
        ann: bool = True,
        writer_heap_bytes: int = 64_000_000,
    ) -> None:
        """``ann=False`` keeps no HNSW graph: every vector query is exact over the filtered set."""
        self.path = Path(path)
        self.ann = ann
        self.path.mkdir(parents=True, exist_ok=True)
        self.embedder = embedder
        self.exact_limit = exact_limit
        self._schema = _schema()
        tdir = self.path / "tantivy"
        tdir.mkdir(exist_ok=True)
        self._tindex = tantivy.Index(self._schema, path=str(tdir), reuse=True)
        self._writer = self._tindex.writer(heap_size=writer_heap_bytes, num_threads=1)
        self._dirty = False  # tantivy has uncommitted writes
        self._unsaved = False  # map/attributes/vectors differ from disk

        self._ids: list[str] = []
        self._key: dict[str, int] = {}
        self._text_hash: list[str] = []
        self._strings: dict[str, int] = {"": 0}
        self._string_list: list[str] = [""]
        self._n = 0
        self._attrs: dict[str, npt.NDArray[Any]] = {name: np.zeros(0, dtype=dt) for name, dt in _ATTRS.items()}
        dim = max(embedder.dimension, 0)
        self._dim = dim
        self._vectors: npt.NDArray[np.float32] = np.zeros((0, dim), dtype=np.float32)
        #: One HNSW graph per (tenant code, owner code) whose vectors outnumber ``exact_limit``.
        self._graphs: dict[tuple[int, int], HnswIndex] = {}
        self._graphs_unsaved: set[tuple[int, int]] = set()
        self._index_embedder: dict[str, Any] = embedder_identity(embedder)
        # Keys per (tenant code, owner code): every search is owner-filtered, so the vector filter
        # only needs to look at that owner's rows instead of every row of the index.
        self._groups: dict[tuple[int, int], list[int]] = {}
        self._group_arrays: dict[tuple[int, int], npt.NDArray[np.int64]] = {}
        self._load()
        self._drop_unsaved_documents()
        self._mismatch = self._index_embedder != embedder_identity(embedder)
        if not ann or self._mismatch:
            self._graphs = {}
        else:
            self._build_missing_graphs()
        self._query_cache: dict[str, npt.NDArray[np.float32]] = {}
        #: Parsed stored documents by id, oldest first (see ``_fetch``).
        self._parsed: dict[str, MemoryNode] = {}
        #: text hash -> (vector embedded by ``prepare_vectors``, ids of the nodes waiting for it).
        self._prepared: dict[str, tuple[npt.NDArray[np.float32], set[str]]] = {}
        #: ``upsert`` (writes) against ``prepare_vectors`` choosing texts on another thread (reads).
        self._lock = threading.RLock()
        self._count_lock = threading.Lock()
        # Counters a benchmark or test can read.
        self.embedded_texts = 0
        self.reused_vectors = 0

    # -------------------------------------------------------------- persistence
    def _load(self) -> None:
        meta_file = self.path / "meta.json"
        if not meta_file.exists():
            return
        meta = json.loads(meta_file.read_text("utf-8"))
        if meta.get("format") != FORMAT_VERSION:
            raise IntegrityError("unsupported embedded index format", code="index_format")
        self._index_embedder = meta["embedder"]
        state = json.loads((self.path / "nodes.json").read_text("utf-8"))
        self._ids = state["ids"]
        self._text_hash = state["text_hash"]
        self._string_list = state["strings"]
        self._strings = {s: i for i, s in enumerate(self._string_list)}
        self._key = {node_id: key for key, node_id in enumerate(self._ids)}
        self._n = len(self._ids)
        with np.load(self.path / "attrs.npz") as attrs:
            self._attrs = {name: attrs[name].astype(dt) for name, dt in _ATTRS.items()}
        self._rebuild_groups()
        stored_dim = int(self._index_embedder.get("dimension", 0))
        vec_file = self.path / "vectors.npy"
        if stored_dim > 0 and vec_file.exists():
            self._vectors = np.load(vec_file)
            self._dim = stored_dim
            graphs = self.path / "graphs"
            if self.ann and self._index_embedder == embedder_identity(self.embedder) and graphs.is_dir():
                for file in graphs.glob("*.usearch"):
                    tenant, _, owner = file.stem.partition("-")
                    graph = _restore_graph(file)
                    if graph is not None:  # else rebuilt from the vectors (_build_missing_graphs)
                        self._graphs[(int(tenant), int(owner))] = graph

    def _drop_unsaved_documents(self) -> None:
        """Delete the documents of nodes the saved node map does not hold.

        Every commit makes tantivy's documents durable, but the node map is saved only by a durable
        commit, so a process killed in between leaves documents of new nodes behind whose keys the map
        never gave out (``key >= n``). Kept, they would duplicate the same nodes when the log catches
        the index up, and a fetch by id, limited to as many hits as ids, would miss nodes. A document
        of a known key is at worst an older or newer version, which the catch-up rewrites.
        """
        searcher = self._tindex.searcher()
        if searcher.num_docs == int(self._attrs["alive"][: self._n].sum()):
            return
        unsaved = tantivy.Query.range_query(
            self._schema, "key", tantivy.FieldType.Unsigned, self._n, 2**63, include_lower=True, include_upper=True
        )
        if searcher.search(unsaved, limit=1, count=False).hits:
            self._writer.delete_documents_by_query(unsaved)
            self._writer.commit()
            self._tindex.reload()

    def commit(self, durable: bool = True) -> None:
        """Make every upsert searchable, and with ``durable`` also saved (documents, vectors, node map).

        Saving writes the node map and vectors whole (~0.2 s at 10k nodes), so a server that commits
        after every small write saves at intervals instead: the index is a projection, and opening a
        data dir catches it up from the log (``EmbeddedRunner``), so an unsaved tail is never lost.
        """
        try:
            if durable:
                self._commit()
            else:
                self._soft_commit()
        except (OSError, ValueError) as exc:  # tantivy reports a full disk as a ValueError
            if out_of_space(exc):
                raise StorageFull("no space left for the search index", index=str(self.path)) from None
            raise

    def _commit(self) -> None:
        self._soft_commit()
        if not self._unsaved:
            return
        n = self._n
        tmp = self.path / ".tmp"
        tmp.mkdir(exist_ok=True)
        np.savez(tmp / "attrs.npz", **{name: arr[:n] for name, arr in self._attrs.items()})  # type: ignore[arg-type]
        (tmp / "nodes.json").write_text(
            json.dumps({"ids": self._ids, "text_hash": self._text_hash, "strings": self._string_list}), "utf-8"
        )
        if self._dim > 0:
            np.save(tmp / "vectors.npy", self._vectors[:n])
        graphs = self.path / "graphs"
        for group in sorted(self._graphs_unsaved):
            graphs.mkdir(exist_ok=True)
            name = f"{group[0]}-{group[1]}.usearch"
            graph = self._graphs.get(group)
            if graph is None:
                (graphs / name).unlink(missing_ok=True)
                continue
            graph.save(str(tmp / name))
            os.replace(tmp / name, graphs / name)  # only the owners that changed are written again
        self._graphs_unsaved.clear()
        meta = {"format": FORMAT_VERSION, "embedder": self._index_embedder, "nodes": n}
        (tmp / "meta.json").write_text(json.dumps(meta), "utf-8")
        for name in ("attrs.npz", "nodes.json", "vectors.npy", "meta.json"):
            if (tmp / name).exists():
                os.replace(tmp / name, self.path / name)
        (self.path / "vectors.usearch").unlink(missing_ok=True)  # the single graph of earlier versions
        self._unsaved = False

    def _soft_commit(self) -> None:
        if self._dirty:
            self._writer.commit()
            self._tindex.reload()
            self._dirty = False

    @property
    def unsaved(self) -> bool:
        """Searchable changes not yet saved (``commit(durable=False)`` since the last save)."""
        return self._unsaved or self._dirty

    def close(self) -> None:
        self.commit()
        self._writer.wait_merging_threads()

    def __enter__(self) -> EmbeddedIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ writes
    def _intern(self, value: str | None) -> int:
        text = value or ""
        code = self._strings.get(text)
        if code is None:
            code = len(self._string_list)
            self._strings[text] = code
            self._string_list.append(text)
        return code

    def _grow(self, needed: int) -> None:
        capacity = len(self._attrs["alive"])
        if needed <= capacity:
            return
        new_cap = max(needed, capacity * 2, 1024)
        for name, arr in self._attrs.items():
            grown = np.zeros(new_cap, dtype=arr.dtype)
            grown[:capacity] = arr
            self._attrs[name] = grown
        if self._dim > 0:
            grown_v = np.zeros((new_cap, self._dim), dtype=np.float32)
            grown_v[: len(self._vectors)] = self._vectors
            self._vectors = grown_v

    def _rebuild_groups(self) -> None:
        n = self._n
        alive = np.flatnonzero(self._attrs["alive"][:n])
        tenants = self._attrs["tenant"][alive]
        owners = self._attrs["owner"][alive]
        order = np.lexsort((alive, owners, tenants))
        self._groups = {}
        for key, tenant, owner in zip(alive[order].tolist(), tenants[order].tolist(), owners[order].tolist(),
                                      strict=True):
            self._groups.setdefault((tenant, owner), []).append(key)
        self._group_arrays = {}

    def _regroup(self, key: int, tenant: int, owner: int) -> None:
        a = self._attrs
        new = (tenant, owner)
        if a["alive"][key]:
            old = (int(a["tenant"][key]), int(a["owner"][key]))
            if old == new:
                return
            self._groups[old].remove(key)
            self._group_arrays.pop(old, None)
            self._move_vector(key, old, new)
        group = self._groups.setdefault(new, [])
        if group and group[-1] > key:
            group.append(key)
            group.sort()
        else:
            group.append(key)
        self._group_arrays.pop(new, None)

    def _move_vector(self, key: int, old: tuple[int, int], new: tuple[int, int]) -> None:
        """A node changed owner: its vector leaves the old owner's graph and joins the new one's."""
        if not self._attrs["has_vec"][key]:
            return
        graph = self._graphs.get(old)
        if graph is not None and graph.contains(key):
            graph.remove(key)
            self._graphs_unsaved.add(old)
        target = self._graphs.get(new)
        if target is not None:
            target.add(np.array([key], dtype=np.uint64), self._vectors[key : key + 1])
            self._graphs_unsaved.add(new)

    def _group_keys(self, tenant: int, owner: int) -> npt.NDArray[np.int64]:
        """Ascending keys of one owner's nodes (cached until that owner gains a node)."""
        group = (tenant, owner)
        arr = self._group_arrays.get(group)
        if arr is None:
            arr = np.asarray(self._groups.get(group, ()), dtype=np.int64)
            self._group_arrays[group] = arr
        return arr

    def _set_attrs(self, key: int, node: MemoryNode) -> None:
        a = self._attrs
        tenant = self._intern(node.tenant_id)
        owner = self._intern(node.owner_id)
        self._regroup(key, tenant, owner)
        a["alive"][key] = True
        a["version"][key] = node.version
        a["tenant"][key] = tenant
        a["owner"][key] = owner
        a["scope"][key] = _SCOPE[node.scope]
        a["scope_id"][key] = self._intern(node.scope_id)
        a["visibility"][key] = self._intern(visibility_of(node.visibility))
        a["node_type"][key] = _NODE_TYPE[node.node_type]
        a["source_type"][key] = _SOURCE_TYPE[node.source_type]
        a["epistemic"][key] = _EPISTEMIC[node.epistemic_type]
        a["lifecycle"][key] = _LIFECYCLE[node.lifecycle]
        a["condition"][key] = _CONDITION[condition_state_of(node)]
        a["confidence"][key] = node.confidence
        a["valid_from"][key] = _micros(node.valid_from)
        a["valid_to"][key] = _micros(node.valid_to) if node.valid_to is not None else _MAX_I64
        a["recorded_at"][key] = _micros(node.recorded_at)

    def _document(self, key: int, node: MemoryNode) -> tantivy.Document:
        doc = tantivy.Document()
        doc.add_text("node_id", node.node_id)
        doc.add_unsigned("key", key)
        for name, text in lexical_texts(node).items():
            doc.add_text(name, text)
        for ref in node.evidence_refs:
            doc.add_text("evidence", ref)
        doc.add_text("tenant_id", node.tenant_id)
        doc.add_text("owner_id", node.owner_id)
        doc.add_text("scope", node.scope.value)
        doc.add_text("scope_id", node.scope_id or "")
        doc.add_text("visibility", visibility_of(node.visibility))
        doc.add_text("node_type", node.node_type.value)
        doc.add_text("source_type", node.source_type.value)
        doc.add_text("epistemic_type", node.epistemic_type.value)
        doc.add_text("lifecycle", node.lifecycle.value)
        cond = condition_state_of(node).value if node.epistemic_type is EpistemicType.CONDITIONAL else _NO_CONDITION
        doc.add_text("condition_state", cond)
        doc.add_float("confidence", float(node.confidence))
        doc.add_integer("valid_from", _micros(node.valid_from))
        doc.add_integer("valid_to", _micros(node.valid_to) if node.valid_to is not None else _MAX_I64)
        doc.add_integer("recorded_at", _micros(node.recorded_at))
        # The reducer serialised this snapshot when it sealed the operation: reuse those bytes.
        doc.add_bytes("node", model_bytes(node))
        return doc

    def _accepted(self, nodes: Sequence[MemoryNode], *, restore: bool = False) -> list[tuple[int, MemoryNode, str]]:
        """(key or -1, node, text hash) of each node ``upsert`` (or ``restore``: every one) would write, in
        node-id order."""
        newest: dict[str, MemoryNode] = {}
        for node in nodes:
            seen = newest.get(node.node_id)
            if seen is None or node.version > seen.version:
                newest[node.node_id] = node
        accepted: list[tuple[int, MemoryNode, str]] = []
        for node_id in sorted(newest):
            node = newest[node_id]
            key = self._key.get(node_id)
            if (not restore and key is not None and self._attrs["alive"][key]
                    and self._attrs["version"][key] >= node.version):  # fmt: skip
                continue
            accepted.append((-1 if key is None else key, node, sha256_hex(embedded_text(node))))
        return accepted

    def prepare_vectors(self, nodes: Sequence[MemoryNode]) -> int:
        """Embed now the texts a later ``upsert(nodes)`` would embed; returns how many.

        The model is most of an ingest's CPU. The runner calls this on a helper thread as soon as a
        batch is reduced, so the model works on batch N+1 while batch N's log rows are written and
        its documents indexed, instead of waiting for both. ``upsert`` then takes the prepared
        vectors instead of calling the model again.

        Safe beside a running ``upsert``: the choice of texts is made under the index lock, and a
        node whose earlier version is still pending (prepared, not yet upserted) with the same
        text is skipped, as that vector is about to be stored. Each prepared vector is dropped when
        the node versions it was prepared for are upserted (used or not); if one is missing,
        ``upsert`` embeds the text itself.
        """
        if self._dim <= 0 or self._mismatch:
            return 0
        chosen: list[tuple[str, str]] = []  # (node id, text hash)
        texts: list[str] = []
        with self._lock:
            for key, node, text_hash in self._accepted(nodes):
                pending = self._prepared.get(text_hash)
                if pending is not None and node.node_id in pending[1]:
                    continue  # an earlier version's vector, about to be stored, is this one
                if key >= 0 and self._text_hash[key] == text_hash and bool(self._attrs["has_vec"][key]):
                    continue  # upsert reuses the stored vector
                chosen.append((node.node_id, text_hash))
                texts.append(embedded_text(node))  # one per node, as upsert itself would embed them
        if texts:
            vectors = self._embed(texts)
            with self._lock:
                for (node_id, text_hash), vector in zip(chosen, vectors, strict=True):
                    entry = self._prepared.setdefault(text_hash, (vector, set()))
                    entry[1].add(node_id)
        return len(texts)

    def _embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        vectors = np.asarray(self.embedder.embed(texts), dtype=np.float32)
        if vectors.shape != (len(texts), self._dim):
            raise IntegrityError("embedder returned vectors of the wrong shape", code="embedding_shape")
        with self._count_lock:
            self.embedded_texts += len(texts)
        return vectors

    def upsert(self, nodes: Sequence[MemoryNode]) -> None:
        """Insert or replace nodes; an older or equal version never replaces a stored one."""
        with self._lock:
            try:
                self._upsert(nodes)
            finally:
                if self._prepared:
                    self._release_prepared(nodes)

    def restore(self, nodes: Sequence[MemoryNode]) -> None:
        """Write these versions even over newer ones: a repair bringing the index back to the log,
        which is the truth when the index holds a version the log does not (see ``verify_projections``)."""
        with self._lock:
            self._upsert(nodes, restore=True)

    def _release_prepared(self, nodes: Sequence[MemoryNode]) -> None:
        """Drop the prepared vectors these node versions were waiting for."""
        for node in nodes:
            text_hash = sha256_hex(embedded_text(node))
            entry = self._prepared.get(text_hash)
            if entry is not None:
                entry[1].discard(node.node_id)
                if not entry[1]:
                    del self._prepared[text_hash]

    def _upsert(self, nodes: Sequence[MemoryNode], *, restore: bool = False) -> None:
        for node in nodes:
            self._parsed.pop(node.node_id, None)
        accepted = self._accepted(nodes, restore=restore)
        if not accepted:
            return
        prepared = self._prepared
        to_embed: list[int] = []
        rows: list[tuple[int, MemoryNode, str]] = []
        self._grow(self._n + sum(1 for k, _, _ in accepted if k < 0))
        for key, node, text_hash in accepted:
            if key < 0:
                key = self._n
                self._n += 1
                self._ids.append(node.node_id)
                self._text_hash.append("")
                self._key[node.node_id] = key
            else:
                self._writer.delete_documents_by_term("node_id", node.node_id)
            unchanged = self._text_hash[key] == text_hash and bool(self._attrs["has_vec"][key])
            self._set_attrs(key, node)
            if unchanged:
                self.reused_vectors += 1
            else:
                self._text_hash[key] = text_hash
                self._drop_vector(key)
                to_embed.append(len(rows))
            rows.append((key, node, text_hash))
            self._writer.add_document(self._document(key, node))
        if to_embed and self._dim > 0 and not self._mismatch:
            self._store_vectors(
                [rows[i][0] for i in to_embed],
                [embedded_text(rows[i][1]) for i in to_embed],
                [prepared[rows[i][2]][0] if rows[i][2] in prepared else None for i in to_embed],
            )
        self._dirty = True
        self._unsaved = True

    def _group_of(self, key: int) -> tuple[int, int]:
        return int(self._attrs["tenant"][key]), int(self._attrs["owner"][key])

    def _drop_vector(self, key: int) -> None:
        if self._attrs["has_vec"][key]:
            self._attrs["has_vec"][key] = False
            group = self._group_of(key)
            graph = self._graphs.get(group)
            if graph is not None and graph.contains(key):
                graph.remove(key)
                self._graphs_unsaved.add(group)

    def _build_graph(self, group: tuple[int, int]) -> None:
        keys = self._group_keys(*group)
        keys = keys[self._attrs["has_vec"][keys]]
        graph = _new_hnsw(self._dim)
        if keys.size:
            graph.add(keys.astype(np.uint64), self._vectors[keys], threads=_GRAPH_THREADS)
        self._graphs[group] = graph
        self._graphs_unsaved.add(group)

    def _build_missing_graphs(self, groups: Iterable[tuple[int, int]] | None = None) -> None:
        """Give every owner with more vectors than ``exact_limit`` its graph (others search exactly)."""
        if not self.ann or self._dim <= 0 or self._mismatch:
            return
        for group in list(self._groups) if groups is None else groups:
            if group in self._graphs:
                continue
            keys = self._group_keys(*group)
            if keys.size > self.exact_limit and int(np.count_nonzero(self._attrs["has_vec"][keys])) > self.exact_limit:
                self._build_graph(group)

    def _store_vectors(
        self, keys: list[int], texts: list[str], prepared: Sequence[npt.NDArray[np.float32] | None] = ()
    ) -> None:
        """Store the vectors of ``texts`` at ``keys``; a vector given in ``prepared`` is not embedded again."""
        missing = [i for i in range(len(texts)) if i >= len(prepared) or prepared[i] is None]
        if len(missing) == len(texts):
            vectors = self._embed(texts)
        else:
            vectors = np.empty((len(texts), self._dim), dtype=np.float32)
            for i, vector in enumerate(prepared):
                if vector is not None:
                    vectors[i] = vector
            if missing:
                vectors[missing] = self._embed([texts[i] for i in missing])
        norms = np.linalg.norm(vectors, axis=1)
        usable = [i for i in range(len(keys)) if norms[i] > 0]
        if not usable:
            return
        ks = np.array([keys[i] for i in usable], dtype=np.int64)
        vs = vectors[usable]
        self._vectors[ks] = vs
        self._attrs["has_vec"][ks] = True
        if not self.ann:
            return
        by_group: dict[tuple[int, int], list[int]] = {}
        for row, key in enumerate(ks.tolist()):
            by_group.setdefault(self._group_of(key), []).append(row)
        for group, rows in by_group.items():
            graph = self._graphs.get(group)
            if graph is not None:
                graph.add(ks[rows].astype(np.uint64), vs[rows], threads=_GRAPH_THREADS)
                self._graphs_unsaved.add(group)
        self._build_missing_graphs([g for g in by_group if g not in self._graphs])

    def reembed(self, batch_size: int = 256) -> int:
        """Rebuild every vector with the current embedder (after a model change); clears the mismatch."""
        self._soft_commit()
        self._index_embedder = embedder_identity(self.embedder)
        self._dim = max(self.embedder.dimension, 0)
        self._vectors = np.zeros((len(self._attrs["alive"]), self._dim), dtype=np.float32)
        self._attrs["has_vec"][:] = False
        self._graphs_unsaved.update(self._graphs)
        self._graphs = {}
        self._mismatch = False
        self._query_cache.clear()
        keys = [k for k in range(self._n) if self._attrs["alive"][k]]
        for start in range(0, len(keys), batch_size):
            chunk = keys[start : start + batch_size]
            nodes = self._fetch([self._ids[k] for k in chunk])
            if self._dim > 0:
                self._store_vectors([self._key[n.node_id] for n in nodes], [embedded_text(n) for n in nodes])
        self._unsaved = True
        self.commit()
        return len(keys)

    # ------------------------------------------------------------------- reads
    @property
    def embedding_mismatch(self) -> bool:
        return self._mismatch

    @property
    def index_embedder(self) -> dict[str, Any]:
        return dict(self._index_embedder)

    def graph_sizes(self) -> dict[tuple[str, str], int]:
        """Vectors held by each owner's HNSW graph, by (tenant, owner).

        A graph only proposes candidates, so a vector missing from it is a node that vector search can
        never find: operators and tests compare these counts with the owner's stored vectors.
        """
        return {(self._string_list[t], self._string_list[o]): len(g) for (t, o), g in self._graphs.items()}

    def __len__(self) -> int:
        return int(self._attrs["alive"][: self._n].sum())

    def _fetch(self, node_ids: Sequence[str]) -> list[MemoryNode]:
        """Documents by id; recently read ones from a bounded cache (a document is dropped from it when
        written again), since parsing a stored document costs ~50 µs and a query reads dozens."""
        cache = self._parsed
        found: dict[str, MemoryNode] = {}
        wanted = []
        for i in dict.fromkeys(node_ids):
            hit = cache.get(i)
            if hit is not None:
                found[i] = hit
            elif i in self._key:
                wanted.append(i)
        if wanted:
            searcher = self._tindex.searcher()
            query = tantivy.Query.term_set_query(self._schema, "node_id", wanted)
            # a document whose key is not the map's for its id is a leftover (see _drop_unsaved_documents):
            # room for one per id, and skipped
            result = searcher.search(query, limit=2 * len(wanted), count=False)
            for _score, address in result.hits:
                doc = searcher.doc(address)
                if self._key.get(doc["node_id"][0]) != doc["key"][0]:
                    continue
                node = MemoryNode.model_validate_json(bytes(doc["node"][0]))
                found[node.node_id] = node
                cache[node.node_id] = node
            while len(cache) > PARSED_CACHE:
                cache.pop(next(iter(cache)))
        return [found[i] for i in node_ids if i in found]

    def versions(self) -> dict[str, int]:
        """The version of every document the index holds, by id: what a projection check compares with the log."""
        alive, version = self._attrs["alive"], self._attrs["version"]
        return {node_id: int(version[key]) for key, node_id in enumerate(self._ids) if alive[key]}

    def cited_ids(self, event_ids: Sequence[str], flt: SearchFilter, limit: int = 1000) -> list[str]:
        """Ids of the documents within ``flt`` whose evidence names one of these events (sorted)."""
        wanted = sorted(set(event_ids))
        if not wanted:
            return []
        self._soft_commit()
        query = tantivy.Query.boolean_query([
            (tantivy.Occur.Must, self._filter_query(flt)),
            (tantivy.Occur.Must, tantivy.Query.term_set_query(self._schema, "evidence", wanted)),
        ])
        searcher = self._tindex.searcher()
        hits = searcher.search(query, limit=limit, count=False).hits
        return sorted(searcher.doc(address)["node_id"][0] for _s, address in hits)

    def get(self, node_ids: Sequence[str]) -> list[MemoryNode]:
        self._soft_commit()
        return self._fetch(node_ids)

    def cited(self, event_ids: Sequence[str], flt: SearchFilter, limit: int = 1000) -> list[MemoryNode]:
        """Documents within ``flt`` whose evidence names one of these events (the claims taken from them)."""
        return self._fetch(self.cited_ids(event_ids, flt, limit))

    def _filter_query(self, flt: SearchFilter) -> tantivy.Query:
        s = self._schema
        Q = tantivy.Query  # noqa: N806
        must: list[tuple[tantivy.Occur, tantivy.Query]] = []

        def term(field: str, value: str) -> None:
            must.append((tantivy.Occur.Must, Q.term_query(s, field, value)))

        def terms(field: str, values: frozenset[Any] | None) -> None:
            if values is not None:
                must.append((tantivy.Occur.Must, Q.term_set_query(s, field, sorted(v.value for v in values))))

        def unless_type(epistemic: EpistemicType, clause: tantivy.Query) -> None:
            not_this_type = Q.term_query(s, "epistemic_type", epistemic.value)
            other = Q.boolean_query([(tantivy.Occur.Must, Q.all_query()), (tantivy.Occur.MustNot, not_this_type)])
            either = Q.boolean_query([(tantivy.Occur.Should, other), (tantivy.Occur.Should, clause)])
            must.append((tantivy.Occur.Must, either))

        term("tenant_id", flt.tenant_id)
        term("owner_id", flt.owner_id)
        if flt.scope is not None:
            term("scope", flt.scope.value)
        if flt.scope_id is not None:
            term("scope_id", flt.scope_id)
        if flt.readable is not None:
            must.append((tantivy.Occur.Must, Q.term_set_query(s, "visibility", sorted(flt.readable) or ["__none__"])))
        terms("node_type", flt.node_types)
        terms("source_type", flt.source_types)
        terms("epistemic_type", flt.epistemic_types)
        terms("lifecycle", flt.lifecycles)
        if flt.condition_states is not None:
            states = sorted(v.value for v in flt.condition_states) or ["__none__"]
            unless_type(EpistemicType.CONDITIONAL, Q.term_set_query(s, "condition_state", states))
        if flt.unverified_min_confidence is not None:
            above = Q.range_query(s, "confidence", tantivy.FieldType.Float, float(flt.unverified_min_confidence), None,
                                  include_lower=False)
            unless_type(EpistemicType.UNVERIFIED, above)
        int_t = tantivy.FieldType.Integer
        if flt.valid_at is not None:
            at = _parse_iso(flt.valid_at)
            must.append((tantivy.Occur.Must, Q.range_query(s, "valid_from", int_t, None, at)))
            must.append((tantivy.Occur.Must, Q.range_query(s, "valid_to", int_t, at, None, include_lower=False)))
        if flt.recorded_before is not None:
            cutoff = _parse_iso(flt.recorded_before)
            must.append((tantivy.Occur.Must, Q.range_query(s, "recorded_at", int_t, None, cutoff)))
        time_from = getattr(flt, "time_from", None)
        time_to = getattr(flt, "time_to", None)
        if time_from is not None:
            must.append((tantivy.Occur.Must, Q.range_query(s, "valid_from", int_t, _parse_iso(time_from), None)))
        if time_to is not None:
            before = Q.range_query(s, "valid_from", int_t, None, _parse_iso(time_to), include_upper=False)
            must.append((tantivy.Occur.Must, before))
        return Q.boolean_query(must)

    def _filtered_keys(self, flt: SearchFilter) -> npt.NDArray[np.int64]:
        """The same predicate as ``_filter_query``, over the attribute arrays of the owner's rows only."""
        tenant = self._strings.get(flt.tenant_id)
        owner = self._strings.get(flt.owner_id)
        empty = np.zeros(0, dtype=np.int64)
        if tenant is None or owner is None:
            return empty
        keys = self._group_keys(tenant, owner)
        if keys.size == 0:
            return keys
        a = self._attrs

        def col(name: str) -> npt.NDArray[Any]:
            return a[name][keys]

        m = col("alive")
        if flt.scope is not None:
            m &= col("scope") == _SCOPE[flt.scope]
        if flt.scope_id is not None:
            sid = self._strings.get(flt.scope_id)
            if sid is None:
                return empty
            m &= col("scope_id") == sid
        if flt.readable is not None:
            readable = [c for c in (self._strings.get(v) for v in flt.readable) if c is not None]
            m &= np.isin(col("visibility"), readable)
        epistemic = col("epistemic") if (
            flt.epistemic_types is not None or flt.condition_states is not None
            or flt.unverified_min_confidence is not None
        ) else None
        for field, values, codes in (
            ("node_type", flt.node_types, _NODE_TYPE),
            ("source_type", flt.source_types, _SOURCE_TYPE),
            ("epistemic", flt.epistemic_types, _EPISTEMIC),
            ("lifecycle", flt.lifecycles, _LIFECYCLE),
        ):
            if values is not None:
                column = epistemic if field == "epistemic" and epistemic is not None else col(field)
                m &= np.isin(column, [codes[v] for v in values])
        if flt.condition_states is not None:
            assert epistemic is not None
            is_conditional = epistemic == _EPISTEMIC[EpistemicType.CONDITIONAL]
            allowed = np.isin(col("condition"), [_CONDITION[v] for v in flt.condition_states])
            m &= ~is_conditional | allowed
        if flt.unverified_min_confidence is not None:
            assert epistemic is not None
            is_unverified = epistemic == _EPISTEMIC[EpistemicType.UNVERIFIED]
            m &= ~is_unverified | (col("confidence") > flt.unverified_min_confidence)
        if flt.valid_at is not None:
            at = _parse_iso(flt.valid_at)
            m &= (col("valid_from") <= at) & (col("valid_to") > at)
        if flt.recorded_before is not None:
            m &= col("recorded_at") <= _parse_iso(flt.recorded_before)
        time_from = getattr(flt, "time_from", None)
        time_to = getattr(flt, "time_to", None)
        if time_from is not None:
            m &= col("valid_from") >= _parse_iso(time_from)
        if time_to is not None:
            m &= col("valid_from") < _parse_iso(time_to)
        selected: npt.NDArray[np.int64] = keys[m]
        return selected

    @staticmethod
    def _ranked(scores: dict[str, float], k: int) -> list[SearchHit]:
        if not scores:
            return []
        ranks = competition_ranks(scores)
        order = sorted(scores, key=lambda i: (-scores[i], i))[:k]
        return [SearchHit(node_id=i, score=float(scores[i]), rank=ranks[i]) for i in order]

    def _text_query(self, words: list[str], searcher: tantivy.Searcher) -> tantivy.Query:
        """BM25 over the text fields; terms too common to single out a memory only add to the score.

        Like Lucene's common-terms query: when the query has a discriminating term (one that occurs in
        at most ``max(COMMON_TERM_MIN_DOCS, COMMON_TERM_FRACTION × documents)`` documents), a document
        must match one of those; words such as "the", "does" or "user" (the subject of most personal
        claims) then only reorder the matches. Without this, every document that shares just a stop word
        with the query became a candidate with the same score, and rank fusion — which sees ranks, not
        BM25 margins — let hundreds of such ties share rank 2 and crowd out the one exact match.
        """

        def parse(ws: list[str]) -> tantivy.Query:
            return self._tindex.parse_query(
                " ".join(ws), default_field_names=list(TEXT_FIELDS), field_boosts=dict(FIELD_BOOSTS)
            )

        cutoff = max(COMMON_TERM_MIN_DOCS, COMMON_TERM_FRACTION * searcher.num_docs)
        rare: list[str] = []
        common: list[str] = []
        for word in dict.fromkeys(words):
            freq = max(
                (searcher.doc_freq(field, token) for token in _ANALYZER.analyze(word) for field in TEXT_FIELDS),
                default=0,
            )
            if freq == 0:
                continue  # matches nothing; cannot make a document a candidate
            (common if freq > cutoff else rare).append(word)
        if not rare or not common:
            return parse(words)
        return tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, parse(rare)), (tantivy.Occur.Should, parse(common))]
        )

    def lexical(self, query: str, flt: SearchFilter, k: int) -> list[SearchHit]:
        words = [w.lower() for w in _WORD.findall(query)]
        if not words or k <= 0:
            return []
        self._soft_commit()
        searcher = self._tindex.searcher()
        text_query = self._text_query(words, searcher)
        query_obj = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Must, text_query),
                (tantivy.Occur.Must, tantivy.Query.const_score_query(self._filter_query(flt), 0.0)),
            ]
        )
        # Fetch past k so that ties at the k-th score are ranked and cut deterministically.
        result = searcher.search(query_obj, limit=k + 16, count=False)
        if not result.hits:
            return []
        addresses = [addr for _score, addr in result.hits]
        keys = searcher.fast_field_values("key", addresses)
        scores: dict[str, float] = {}
        for (score, _addr), key in zip(result.hits, keys, strict=True):
            # A key unknown to the node map (crash between commits) is skipped until re-upserted.
            if isinstance(key, int) and key < self._n:
                scores[self._ids[key]] = float(score)
        return self._ranked(scores, k)

    def _query_vector(self, query: str) -> npt.NDArray[np.float32]:
        """Embed a query once: assistants repeat queries, and a model call costs more than the search."""
        cached = self._query_cache.get(query)
        if cached is None:
            cached = np.asarray(self.embedder.embed([query]), dtype=np.float32)[0]
            if len(self._query_cache) >= QUERY_CACHE_SIZE:
                # Readers may run concurrently (API read pool): evict without assuming the key is still there.
                with contextlib.suppress(StopIteration, RuntimeError):
                    self._query_cache.pop(next(iter(self._query_cache)), None)
            self._query_cache[query] = cached
        return cached

    def vector(self, query: str, flt: SearchFilter, k: int) -> list[SearchHit]:
        if self._mismatch or self._dim == 0 or k <= 0 or not query.strip():
            return []
        candidates = self._filtered_keys(flt)
        candidates = candidates[self._attrs["has_vec"][candidates]]
        if candidates.size == 0:
            return []
        q = self._query_vector(query)
        if not np.any(q):
            return []
        graph = self._graphs_for(flt)
        if candidates.size <= self.exact_limit or graph is None:
            keys = candidates
        else:
            keys = self._hnsw_candidates(graph, q, candidates, k)
        # einsum, not ``@``: a matrix-vector product this small is slower through a multi-threaded BLAS on a
        # busy machine (thread hand-off and spinning) than one core's SIMD loop — 5 ms vs 0.9 ms at 4k rows.
        if keys.size * 4 > self._n:  # scoring every row and picking beats gathering most of them first
            sims = np.einsum("ij,j->i", self._vectors[: self._n], q)[keys]
        else:
            sims = np.einsum("ij,j->i", self._vectors[keys], q)
        take = min(k + 16, sims.size)
        top = np.argpartition(-sims, take - 1)[:take] if take < sims.size else np.arange(sims.size)
        scores = {self._ids[int(keys[i])]: round(float(sims[i]), 6) for i in top}
        return self._ranked(scores, k)

    def _graphs_for(self, flt: SearchFilter) -> HnswIndex | None:
        tenant = self._strings.get(flt.tenant_id)
        owner = self._strings.get(flt.owner_id)
        if tenant is None or owner is None:
            return None
        return self._graphs.get((tenant, owner))

    def _hnsw_candidates(
        self, graph: HnswIndex, q: npt.NDArray[np.float32], allowed: npt.NDArray[np.int64], k: int
    ) -> npt.NDArray[Any]:
        """Approximate neighbours inside the filtered set: over-fetch, filter, widen until k pass.

        ``graph`` holds only the owner's vectors, so the over-fetch is set by the other filters.
        """
        mask = np.zeros(self._n, dtype=np.bool_)
        mask[allowed] = True
        total = len(graph)
        selectivity = max(float(allowed.size) / max(total, 1), 1e-6)
        count = min(total, int((k + 16) / selectivity * 2) + 16)
        while True:
            matches = graph.search(q, count)
            found = np.asarray(matches.keys, dtype=np.int64)
            found = found[(found < self._n)]
            found = found[mask[found]]
            if found.size >= k + 16 or count >= total:
                if found.size >= min(k, int(allowed.size)):
                    return found
                return allowed  # the graph missed some: exact over the set
            count = min(total, count * 4)
