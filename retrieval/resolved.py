"""Candidates resolved from the runner's in-memory state instead of the index's stored documents."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from schemas.nodes import MemoryNode
from schemas.search import SearchBackend, SearchFilter, SearchHit


class ResolvedBackend:
    """A backend whose candidates are resolved from an in-memory node map.

    The embedded runner already holds every node in its state store, at the
    same version the index holds; resolving candidates there skips a stored-
    document load and a JSON validation per candidate, which dominated query
    latency. Filtering still happens inside the wrapped backend's search.
    """

    def __init__(self, backend: SearchBackend, lookup: Callable[[str], MemoryNode | None]) -> None:
        self._backend = backend
        self._lookup = lookup

    def upsert(self, nodes: Sequence[MemoryNode]) -> None:
        self._backend.upsert(nodes)

    def lexical(self, query: str, flt: SearchFilter, k: int) -> list[SearchHit]:
        return self._backend.lexical(query, flt, k)

    def vector(self, query: str, flt: SearchFilter, k: int) -> list[SearchHit]:
        return self._backend.vector(query, flt, k)

    def cited(self, event_ids: Sequence[str], flt: SearchFilter, limit: int = 1000) -> list[MemoryNode]:
        ids_of = getattr(self._backend, "cited_ids", None)
        if ids_of is None:
            return [self._lookup(n.node_id) or n for n in self._backend.cited(event_ids, flt, limit)]
        return self.get(ids_of(event_ids, flt, limit))  # by id from the store: no stored document is parsed

    def get(self, node_ids: Sequence[str]) -> list[MemoryNode]:
        found = [self._lookup(node_id) for node_id in node_ids]
        missing = [node_id for node_id, node in zip(node_ids, found, strict=True) if node is None]
        resolved = {n.node_id: n for n in found if n is not None}
        if missing:
            resolved.update({n.node_id: n for n in self._backend.get(missing)})
        return [resolved[node_id] for node_id in node_ids if node_id in resolved]

    @property
    def embedding_mismatch(self) -> bool:
        return self._backend.embedding_mismatch
