"""The search interface every index implements (embedded index, OpenSearch).

Retrieval logic (fusion, epistemic filtering, presentation, packing) is
written once against this protocol; the backends only find candidates, with
the owner filter and, in DEFAULT mode, the epistemic filter pushed down into
the search itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    #: For a reader not allowed for the owner: the visibilities it may read (``schemas.visibility``);
    #: None = allowed for the owner, no restriction. Set by the server from the reader's key, never
    #: from a request body.
    readable: frozenset[str] | None = None


#: Scores equal to this many decimals tie (a backend's float noise never splits a tie).
TIE_DECIMALS = 12


def competition_ranks(scores: Mapping[str, float]) -> dict[str, int]:
    """1-based ranks where tied scores share the better rank (1, 1, 3)."""
    rounded = {node_id: round(score, TIE_DECIMALS) for node_id, score in scores.items()}
    ordered = sorted(rounded.values(), reverse=True)
    first_index: dict[float, int] = {}
    for index, value in enumerate(ordered):
        first_index.setdefault(value, index)
    return {node_id: first_index[value] + 1 for node_id, value in rounded.items()}



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

    def cited(self, event_ids: Sequence[str], flt: SearchFilter, limit: int = 1000) -> list[MemoryNode]:
        """Documents within ``flt`` whose evidence names one of these events: the claims taken from them."""
        ...

    @property
    def embedding_mismatch(self) -> bool:
        """True when the query embedder differs from the one that built the vectors."""
        ...
