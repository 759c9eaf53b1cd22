"""An in-memory ``SearchBackend`` test double plus a node builder.

It doubles the *interface* only (the real indexes have their own tests):
lexical = count of shared terms, vector = cosine of hashed bag-of-words
vectors. Filters use ``node_matches_filter``, the reference semantics, and
every call's filter is recorded so tests can check what was pushed down.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from retrieval.policy import node_matches_filter
from schemas.common import ActorRef
from schemas.enums import (
    ActorType,
    ConditionState,
    DecayProfile,
    EpistemicType,
    LifecycleState,
    NodeType,
    Scope,
    SourceType,
)
from schemas.nodes import MemoryNode
from schemas.search import SearchFilter, SearchHit, competition_ranks

_WORD = re.compile(r"[a-z0-9]+")
_DIM = 32
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def terms(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def toy_vector(text: str) -> list[float]:
    vec = [0.0] * _DIM
    for term in terms(text):
        digest = hashlib.sha256(term.encode()).digest()
        vec[digest[0] % _DIM] += 1.0 if digest[1] % 2 else -1.0
    norm = math.sqrt(sum(v * v for v in vec))
    return [v / norm for v in vec] if norm else vec


def _ranked(scores: dict[str, float], k: int) -> list[SearchHit]:
    ranks = competition_ranks(scores)
    order = sorted(scores, key=lambda i: (-scores[i], i))[:k]
    return [SearchHit(node_id=i, score=scores[i], rank=ranks[i]) for i in order]


class FakeBackend:
    def __init__(self, nodes: Sequence[MemoryNode] = (), *, embedding_mismatch: bool = False) -> None:
        self._nodes: dict[str, MemoryNode] = {}
        self._mismatch = embedding_mismatch
        self.calls: list[tuple[str, SearchFilter]] = []
        self.get_calls: list[list[str]] = []
        self.upsert(nodes)

    def upsert(self, nodes: Sequence[MemoryNode]) -> None:
        for node in nodes:
            old = self._nodes.get(node.node_id)
            if old is None or old.version <= node.version:
                self._nodes[node.node_id] = node

    def _matching(self, flt: SearchFilter) -> list[MemoryNode]:
        return [n for n in self._nodes.values() if node_matches_filter(n, flt)]

    def lexical(self, query: str, flt: SearchFilter, k: int) -> list[SearchHit]:
        self.calls.append(("lexical", flt))
        wanted = set(terms(query))
        scores = {}
        for node in self._matching(flt):
            overlap = len(wanted & set(terms(node.content)))
            if overlap:
                scores[node.node_id] = float(overlap)
        return _ranked(scores, k)

    def vector(self, query: str, flt: SearchFilter, k: int) -> list[SearchHit]:
        self.calls.append(("vector", flt))
        q = toy_vector(query)
        scores = {}
        for node in self._matching(flt):
            cosine = sum(a * b for a, b in zip(q, toy_vector(node.content), strict=True))
            if cosine > 0:
                scores[node.node_id] = cosine
        return _ranked(scores, k)

    def get(self, node_ids: Sequence[str]) -> list[MemoryNode]:
        self.get_calls.append(list(node_ids))
        return [self._nodes[i] for i in node_ids if i in self._nodes]

    @property
    def embedding_mismatch(self) -> bool:
        return self._mismatch


def make_node(node_id: str, content: str = "", **overrides: Any) -> MemoryNode:
    """A valid node with sensible defaults; ``days`` shifts valid_from/created_at relative to T0."""
    days = overrides.pop("days", 0)
    when = T0 + timedelta(days=days)
    fields: dict[str, Any] = {
        "tenant_id": "t1",
        "owner_id": "alice",
        "scope": Scope.PERSONAL,
        "node_id": node_id,
        "version": 1,
        "node_type": NodeType.FACT,
        "subject": "alice",
        "predicate": "likes",
        "object": content or node_id,
        "content": content or f"alice likes {node_id}",
        "epistemic_type": EpistemicType.ASSERTED,
        "source_type": SourceType.USER_STATED,
        "confidence": 0.8,
        "salience": 0.5,
        "lifecycle": LifecycleState.STABLE,
        "decay_profile": DecayProfile.PERMANENT,
        "asserted_by": ActorRef(actor_id="alice", actor_type=ActorType.HUMAN_USER),
        "valid_from": when,
        "recorded_at": when,
        "created_at": when,
        "updated_at": when,
        "last_reinforced_at": when,
        "evidence_refs": (f"ev-{node_id}",),
    }
    fields.update(overrides)
    if fields["epistemic_type"] is EpistemicType.CONDITIONAL:
        fields.setdefault("condition", "if it is sunny")
        fields.setdefault("condition_state", ConditionState.UNKNOWN)
    return MemoryNode(**fields)
