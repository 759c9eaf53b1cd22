"""The retrieval pipeline over any ``SearchBackend`` (PRME-FACTS §6.1).

analysis → lexical + vector candidates (owner/scope always, DEFAULT-mode
epistemic rules pushed down) → merge → policy → RRF v2 → min_score →
contradiction presentation → packing. Pure apart from the backend calls: the
reference time comes from the request (or an injected clock), never from the
wall clock inside the pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime

from engine.decay import effective
from retrieval.fusion import Candidate, Fused, FusionConfig, fuse
from retrieval.packing import PackingConfig, PackItem, pack
from retrieval.policy import (
    UNVERIFIED_THRESHOLD,
    apply_policy,
    default_exclusion_reason,
    default_flags,
    explicit_search_filter,
    node_matches_filter,
    search_filter_for,
)
from retrieval.presentation import Presented, is_live, present
from retrieval.query_analysis import analyze_query
from retrieval.world import label_for
from schemas.canonical import canonical_json, iso, sha256_hex
from schemas.errors import BackendUnavailable, ValidationFailed
from schemas.retrieval import (
    Exclusion,
    Representation,
    RetrievalMode,
    RetrievalRequest,
    RetrievalResponse,
    RetrievedItem,
    ScoreTrace,
)
from schemas.search import SearchBackend, SearchFilter, SearchHit

CONTRADICTION_PATH = "contradiction"


@dataclass(frozen=True)
class RetrieverConfig:
    # PRME's code uses 500 per channel and its RFC 20/30; 100 keeps recall@10 on exact-answer
    # queries while every candidate costs a node load, a policy check and a fusion step.
    lexical_k: int = 100
    vector_k: int = 100
    unverified_threshold: float = UNVERIFIED_THRESHOLD
    fusion: FusionConfig = field(default_factory=FusionConfig)
    packing: PackingConfig = field(default_factory=PackingConfig)


class ReferenceTimeRequired(ValidationFailed):
    code = "reference_time_required"


def _merge(lexical: Sequence[SearchHit], vector: Sequence[SearchHit]) -> dict[str, tuple[float | None, float | None]]:
    merged: dict[str, tuple[float | None, float | None]] = {}
    for hit in lexical:
        merged[hit.node_id] = (hit.score, None)
    for hit in vector:
        lex = merged.get(hit.node_id, (None, None))[0]
        merged[hit.node_id] = (lex, hit.score)
    return merged


class Retriever:
    def __init__(
        self,
        backend: SearchBackend,
        config: RetrieverConfig | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self._backend = backend
        self._config = config or RetrieverConfig()
        self._clock = clock

    @property
    def config(self) -> RetrieverConfig:
        return self._config

    def _reference_time(self, request: RetrievalRequest) -> datetime:
        if request.reference_time is not None:
            return request.reference_time
        if self._clock is None:
            raise ReferenceTimeRequired("reference_time is required when the retriever has no clock")
        return self._clock()

    def fingerprint(self, request: RetrievalRequest, reference_time: datetime) -> str:
        """Same request + same reference time + same config → same fingerprint (receipts, caching)."""
        payload = request.model_dump(mode="json")
        payload["reference_time"] = iso(reference_time)
        config = asdict(self._config)
        return sha256_hex(canonical_json({"request": payload, "config": config}))[:32]

    def _candidates(self, request: RetrievalRequest, flt: SearchFilter) -> tuple[list[Candidate], bool, bool]:
        cfg = self._config
        lexical = self._backend.lexical(request.query, flt, cfg.lexical_k)
        mismatch = bool(self._backend.embedding_mismatch)
        vector_failed = False
        vector: list[SearchHit] = []
        if not mismatch:
            try:
                vector = self._backend.vector(request.query, flt, cfg.vector_k)
            except BackendUnavailable:
                vector_failed = True
        merged = _merge(lexical, vector)
        guard = explicit_search_filter(request)
        # ``get`` returns nodes in the order asked (sorted ids), so no second sort is needed.
        candidates = [
            Candidate(node=n, lexical_score=merged[n.node_id][0], vector_score=merged[n.node_id][1])
            for n in self._backend.get(sorted(merged))
            if n.node_id in merged and node_matches_filter(n, guard)
        ]
        candidates.sort(key=lambda c: c.node.node_id)
        return candidates, mismatch, vector_failed

    def _partners(self, request: RetrievalRequest, head: list[Fused], pool: dict[str, Fused]) -> list[Fused]:
        """The other side of each CONTRADICTS pair in ``head``: from the pool, else fetched — same owner only."""
        present_ids = {f.node.node_id for f in head}
        wanted = sorted({o for f in head if is_live(f.node) for o in f.node.contradicts} - present_ids)
        if not wanted:
            return []
        guard = explicit_search_filter(request)
        missing = [i for i in wanted if i not in pool]
        fetched = {n.node_id: n for n in self._backend.get(missing)} if missing else {}
        out: list[Fused] = []
        for node_id in wanted:
            if node_id in pool:
                # A retired side (EXPLICIT keeps it in the pool) is no longer in conflict: not a partner.
                if is_live(pool[node_id].node):
                    out.append(pool[node_id])
                continue
            node = fetched.get(node_id)
            if node is None or not node_matches_filter(node, guard) or not is_live(node):
                continue
            if request.mode is RetrievalMode.DEFAULT and default_exclusion_reason(
                node, self._config.unverified_threshold
            ) is not None:
                continue
            trace = ScoreTrace(paths=(CONTRADICTION_PATH,), rrf_base=0.0, fused_score=0.0)
            out.append(Fused(node=node, score=0.0, trace=trace, tie_break=0.0))
        return out

    def retrieve(self, request: RetrievalRequest) -> RetrievalResponse:
        cfg = self._config
        ref = self._reference_time(request)
        analysis = analyze_query(request.query, ref)
        explain = request.mode is RetrievalMode.EXPLICIT or request.debug
        # Debug in DEFAULT mode searches unfiltered so the policy can say what it removed.
        flt = explicit_search_filter(request) if explain else search_filter_for(request, cfg.unverified_threshold)
        candidates, mismatch, vector_failed = self._candidates(request, flt)

        kept, exclusions = apply_policy([c.node for c in candidates], request.mode, cfg.unverified_threshold)
        kept_ids = {n.node_id for n in kept}
        fused_all = fuse(
            [c for c in candidates if c.node.node_id in kept_ids],
            current_state=analysis.current_state,
            time_window=analysis.time_window,
            config=cfg.fusion,
        )

        min_score_skipped = False
        ranked = fused_all
        if request.min_score is not None:
            if mismatch or vector_failed:
                min_score_skipped = True
            else:
                ranked = []
                for f in fused_all:
                    if f.semantic_relevance >= request.min_score:
                        ranked.append(f)
                    else:
                        reason = f"below_min_score:{f.semantic_relevance:.4f}<{request.min_score:g}"
                        exclusions.append(Exclusion(node_id=f.node.node_id, reason=reason, stage="min_score"))

        head = ranked[: request.limit]
        pool = {f.node.node_id: f for f in fused_all}
        presented = present(head + self._partners(request, head, pool))

        pack_items = [
            PackItem(
                node=p.fused.node,
                score=p.fused.score,
                path_count=len([x for x in p.fused.trace.paths if x != CONTRADICTION_PATH]),
                conflict_flag=p.conflict_flag,
                contradicts_ids=p.contradicts_ids,
                group=p.group,
                confidence=effective(p.fused.node, ref).confidence,
            )
            for p in presented
        ]
        packed = pack(pack_items, request.token_budget, cfg.packing)
        exclusions += packed.excluded
        items = tuple(self._item(p, ref, packed.placed) for p in presented)
        warnings = list(packed.warnings)
        if mismatch:
            warnings.append("EMBEDDING_VERSION_MISMATCH")
        if vector_failed:
            warnings.append("VECTOR_PATH_FAILED")

        return RetrievalResponse(
            items=items,
            excluded=tuple(exclusions) if explain else (),
            context=packed.context,
            tokens_used=packed.tokens_used,
            token_budget=request.token_budget,
            sections=packed.sections,
            warnings=tuple(warnings),
            intent=analysis.intent,
            time_window=analysis.time_window,
            mode=request.mode,
            embedding_mismatch=mismatch,
            min_score_skipped=min_score_skipped,
            candidate_count=len(candidates),
            reference_time=ref,
            request_fingerprint=self.fingerprint(request, ref),
        )

    @staticmethod
    def _item(p: Presented, ref: datetime, placed: dict[str, Representation]) -> RetrievedItem:
        node = p.fused.node
        flags = default_flags(node) + (("conflict",) if p.conflict_flag else ())
        level = placed.get(node.node_id)
        return RetrievedItem(
            node_id=node.node_id,
            node_type=node.node_type,
            subject=node.subject,
            predicate=node.predicate,
            object=node.object,
            polarity=node.polarity,
            content=node.content,
            scope=node.scope,
            scope_id=node.scope_id,
            valid_from=node.valid_from,
            valid_to=node.valid_to,
            recorded_at=node.recorded_at,
            salience=node.salience,
            score=p.fused.score,
            label=label_for(node, ref),
            trace=p.fused.trace,
            conflict_flag=p.conflict_flag,
            contradicts_id=p.contradicts_ids[0] if p.contradicts_ids else None,
            contradicts_ids=p.contradicts_ids,
            flags=flags,
            in_context=level is not None,
            representation=level,
        )
