"""The search interface every index implements (embedded index, OpenSearch).

Retrieval logic (fusion, epistemic filtering, presentation, packing) is
written once against this protocol; the backends only find candidates, with
the owner filter and, in DEFAULT mode, the epistemic filter pushed down into
the search itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from pydantic import Field

from schemas.common import Contract
from schemas.enums import ConditionState, EpistemicType, LifecycleState, NodeType, Scope, SourceType
from schemas.nodes import MemoryNode


class SearchFilter(Contract):
    """Filters applied inside the backend query.

    ``tenant_id`` and ``owner_id`` are mandatory: no search runs without them.
    ``None`` for a set means "no restriction".
    """

    tenant_id: str
    owner_id: str
    scope: Scope | None = None
    scope_id: str | None = None
    node_types: frozenset[NodeType] | None = None
    source_types: frozenset[SourceType] | None = None
    epistemic_types: frozenset[EpistemicType] | None = None
    lifecycles: frozenset[LifecycleState] | None = None
    #: CONDITIONAL nodes are kept only when their condition state is in this set.
    condition_states: frozenset[ConditionState] | None = None
    #: UNVERIFIED nodes are kept only when confidence is strictly above this.
    unverified_min_confidence: float | None = None
    valid_at: str | None = Field(default=None, description="ISO time; keep nodes valid at that time")
    recorded_before: str | None = Field(default=None, description="ISO time; knowledge cutoff")
    #: Half-open window on a memory's time (``valid_from``); ISO times, either side may be open.
    time_from: str | None = Field(default=None, description="ISO time; keep nodes with valid_from >= this")
    time_to: str | None = Field(default=None, description="ISO time; keep nodes with valid_from < this")


class SearchHit(Contract):
    node_id: str
    score: float
    rank: int = Field(ge=1, description="Competition rank within this channel (1 = best)")


@runtime_checkable
class SearchBackend(Protocol):
    """Candidate generation over stored nodes."""

    def upsert(self, nodes: Sequence[MemoryNode]) -> None:
        """Insert or replace nodes; a node whose stored version is newer is left alone."""
        ...

    def lexical(self, query: str, flt: SearchFilter, k: int) -> list[SearchHit]: ...

    def vector(self, query: str, flt: SearchFilter, k: int) -> list[SearchHit]:
        """Nearest neighbours of the query text's embedding (the backend owns its embedder)."""
        ...

    def get(self, node_ids: Sequence[str]) -> list[MemoryNode]: ...

    @property
    def embedding_mismatch(self) -> bool:
        """True when the query embedder differs from the one that built the vectors."""
        ...


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
