"""Reciprocal rank fusion, formula v2 of PRME-FACTS §6.3.

Ranks, not raw scores, are fused, so BM25 and cosine never need a common scale.
Every factor is divided by its pool maximum (capped at 1.0) so a factor can
only reorder candidates relative to each other, never inflate the base past
1.0. Output is fully ordered: score, then newest memory time, then node id.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from retrieval.policy import epistemic_weight, node_type_boost
from retrieval.query_analysis import UPDATE_WORDING
from schemas.enums import TemporalIntent
from schemas.nodes import MemoryNode
from schemas.retrieval import ScoreTrace, TimeWindow
from schemas.search import competition_ranks

LEXICAL = "lexical"
VECTOR = "vector"
_DATE_IN_TEXT = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b(?:19|20)\d{2}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class FusionConfig:
    k: int = 60
    #: ``rrf_recency_boost``; 0 disables it. PRME range: (0, 4].
    recency_boost: float = 0.25
    recency_lambda: float = 0.05
    temporal_boost: float = 0.15
    temporal_lambda: float = 0.02
    tie_break_scale: float = 1e-11
    decimals: int = 10
    #: For a question asking when: a candidate whose text says when (``event_dates``) weighs up to
    #: ``1 + dated_boost``. 0 (the claims' RRF v2 of PRME-FACTS §6.3 has no such factor) disables it.
    dated_boost: float = 0.0

    def __post_init__(self) -> None:
        if not 1 <= self.k <= 10_000:
            raise ValueError("rrf k must be within 1..10000")
        if not 0 <= self.recency_boost <= 4:
            raise ValueError("recency boost must be within 0..4")
        if self.recency_lambda < 0.05:
            raise ValueError("recency lambda must be >= 0.05")


@dataclass(frozen=True)
class Candidate:
    """A merged candidate: the node plus its raw score on each channel that found it."""

    node: MemoryNode
    lexical_score: float | None = None
    vector_score: float | None = None

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(p for p, s in ((LEXICAL, self.lexical_score), (VECTOR, self.vector_score)) if s is not None)


class Fused:
    """One scored candidate. Its ``ScoreTrace`` (a validated model) is built on first access only:
    a query scores hundreds of candidates but returns a handful, and building every trace
    dominated fusion time."""

    __slots__ = ("_parts", "_trace", "node", "score", "semantic_relevance", "tie_break")

    node: MemoryNode
    score: float
    #: Fractional time position × scale; only orders equal scores.
    tie_break: float
    #: Cosine floored at 0 (what ``min_score`` compares against), 0 when not on the vector channel.
    semantic_relevance: float

    def __init__(
        self,
        node: MemoryNode,
        score: float,
        trace: ScoreTrace | None = None,
        tie_break: float = 0.0,
        *,
        semantic_relevance: float | None = None,
        parts: Callable[[], ScoreTrace] | None = None,
    ) -> None:
        if trace is None and parts is None:
            raise ValueError("a fused entry needs a trace or a way to build one")
        self.node = node
        self.score = score
        self.tie_break = tie_break
        self._trace = trace
        self._parts = parts
        if semantic_relevance is None:
            semantic_relevance = trace.semantic_relevance if trace is not None else 0.0
        self.semantic_relevance = semantic_relevance

    @property
    def trace(self) -> ScoreTrace:
        if self._trace is None:
            assert self._parts is not None
            self._trace = self._parts()
            self._parts = None
        return self._trace

    def __repr__(self) -> str:
        return f"Fused(node_id={self.node.node_id!r}, score={self.score!r}, tie_break={self.tie_break!r})"


def memory_time(node: MemoryNode) -> datetime:
    """Event time (``valid_from``, set from the source event) — never ``updated_at``."""
    return node.valid_from


def rrf_base(rank_semantic: int | None, rank_lexical: int | None, k: int = 60) -> float:
    """[1/(k+r_sem) + 1/(k+r_lex)] × (k+1)/2; a missing channel adds 0."""
    total = sum(1.0 / (k + r) for r in (rank_semantic, rank_lexical) if r is not None)
    return total * (k + 1) / 2.0


def _normalise(values: Mapping[str, float]) -> dict[str, float]:
    top = max(values.values(), default=0.0)
    if top <= 0:
        return dict.fromkeys(values, 1.0)
    return {key: min(1.0, value / top) for key, value in values.items()}


def _days(a: datetime, b: datetime) -> float:
    return abs((a - b).total_seconds()) / 86400.0


def temporal_affinity(node: MemoryNode, window: TimeWindow, lam: float = 0.02) -> float:
    """0.3 × mentions a date + 0.7 × nearness to the window (decays with λ outside it)."""
    when = memory_time(node)
    if window.contains(when):
        nearness = 1.0
    elif window.start is not None and when < window.start:
        nearness = math.exp(-lam * _days(window.start, when))
    else:
        assert window.end is not None
        nearness = math.exp(-lam * _days(when, window.end))
    has_date = 1.0 if _DATE_IN_TEXT.search(node.content) else 0.0
    return 0.3 * has_date + 0.7 * nearness


def uses_update_wording(node: MemoryNode) -> bool:
    return node.temporal_intent is TemporalIntent.UPDATE or bool(UPDATE_WORDING.search(node.content))


def fuse(
    candidates: Sequence[Candidate],
    *,
    current_state: bool = False,
    time_window: TimeWindow | None = None,
    config: FusionConfig | None = None,
    asks_when: bool = False,
) -> list[Fused]:
    """Score and order the pool. Candidates on no channel score 0 and stay out of the normalisation pool.

    The inner loop works on plain floats; each entry's trace is only materialised if it is read.
    """
    cfg = config or FusionConfig()
    if not candidates:
        return []
    by_id = {c.node.node_id: c for c in candidates}
    lex_ranks = competition_ranks({i: c.lexical_score for i, c in by_id.items() if c.lexical_score is not None})
    vec_ranks = competition_ranks({i: c.vector_score for i, c in by_id.items() if c.vector_score is not None})
    pool = [i for i, c in by_id.items() if c.lexical_score is not None or c.vector_score is not None]

    factor_raw: dict[str, dict[str, float]] = {
        "epistemic": {i: epistemic_weight(by_id[i].node) for i in pool},
        "node_type": {i: node_type_boost(by_id[i].node.node_type) for i in pool},
    }
    if time_window is not None:
        factor_raw["temporal"] = {
            i: 1.0 + cfg.temporal_boost * temporal_affinity(by_id[i].node, time_window, cfg.temporal_lambda)
            for i in pool
        }
    if asks_when and cfg.dated_boost > 0:
        factor_raw["dated"] = {i: 1.0 + cfg.dated_boost * bool(by_id[i].node.event_dates) for i in pool}
    if current_state and cfg.recency_boost > 0 and pool:
        newest = max(memory_time(by_id[i].node) for i in pool)
        boost: dict[str, float] = {}
        for i in pool:
            node = by_id[i].node
            recency = math.exp(-cfg.recency_lambda * _days(newest, memory_time(node)))
            if uses_update_wording(node):
                recency = min(1.0, 2.0 * recency)
            boost[i] = 1.0 + cfg.recency_boost * recency
        factor_raw["recency"] = boost
    factors = [(name, _normalise(values)) for name, values in factor_raw.items()]

    # Fractional position by time over the whole pool: 0 = newest; equal times share a position.
    ids = sorted(by_id)
    times = {i: memory_time(by_id[i].node) for i in ids}
    denominator = max(1, len(ids) - 1)
    newer_count: dict[datetime, int] = {}
    for index, when in enumerate(sorted(times.values(), reverse=True)):
        newer_count.setdefault(when, index)
    scale = cfg.tie_break_scale

    k = cfg.k
    half = (k + 1) / 2.0
    decimals = cfg.decimals
    rows: list[tuple[float, float, str, Candidate, float, float]] = []
    for node_id in ids:
        cand = by_id[node_id]
        r_vec = vec_ranks.get(node_id)
        r_lex = lex_ranks.get(node_id)
        # Same summation order as ``rrf_base`` (semantic, then lexical) so scores are bit-identical.
        total = 0.0
        if r_vec is not None:
            total += 1.0 / (k + r_vec)
        if r_lex is not None:
            total += 1.0 / (k + r_lex)
        base = total * half
        raw = base
        if r_vec is not None or r_lex is not None:
            for _name, values in factors:
                raw *= values[node_id]
        rows.append((round(raw, decimals), newer_count[times[node_id]] / denominator * scale, node_id, cand, base,
                     raw))
    rows.sort(key=lambda row: (-row[0], row[1], row[2]))

    def trace_builder(cand: Candidate, node_id: str, base: float, tie: float, score: float) -> Callable[[], ScoreTrace]:
        def build() -> ScoreTrace:
            ranks: dict[str, int] = {}
            if node_id in lex_ranks:
                ranks[LEXICAL] = lex_ranks[node_id]
            if node_id in vec_ranks:
                ranks[VECTOR] = vec_ranks[node_id]
            paths = cand.paths
            applied = {name: round(values[node_id], decimals) for name, values in factors} if paths else {}
            channel_scores = {
                p: s for p, s in ((LEXICAL, cand.lexical_score), (VECTOR, cand.vector_score)) if s is not None
            }
            return ScoreTrace(
                paths=paths,
                ranks=ranks,
                channel_scores=channel_scores,
                rrf_base=round(base, decimals),
                factors=applied,
                tie_break=tie,
                semantic_relevance=_relevance(cand),
                fused_score=score,
            )

        return build

    return [
        Fused(
            cand.node,
            score,
            tie_break=tie,
            semantic_relevance=_relevance(cand),
            parts=trace_builder(cand, node_id, base, tie, score),
        )
        for score, tie, node_id, cand, base, _raw in rows
    ]


def _relevance(cand: Candidate) -> float:
    return max(0.0, cand.vector_score) if cand.vector_score is not None else 0.0
