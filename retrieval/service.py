"""The retrieval pipeline over any ``SearchBackend`` (PRME-FACTS §6.1).

analysis → lexical + vector candidates (owner/scope always, DEFAULT-mode
epistemic rules pushed down) → merge → policy → RRF v2 → min_score →
contradiction presentation → packing. Pure apart from the backend calls: the
reference time comes from the request (or an injected clock), never from the
wall clock inside the pipeline.

Source excerpts (what was said, see ``schemas.excerpts``) are candidates in the same ranking when
the retriever has an excerpt backend: their own lexical and vector channels are fused the same
way and weighed by ``excerpt_weight``; an excerpt is never presented as a fact (the packed context
quotes it, after the facts), and in DEFAULT mode an excerpt whose every claim is excluded is
excluded too, with that claim's reason.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta

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
from retrieval.query_analysis import QueryAnalysis, analyze_query
from retrieval.world import label_for
from schemas.canonical import canonical_json, iso, sha256_hex
from schemas.errors import BackendUnavailable, ValidationFailed
from schemas.nodes import MemoryNode
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


def excerpt_search_filter(request: RetrievalRequest) -> SearchFilter:
    """Owner, scope, the time window (on when it was said), the knowledge cutoff, and for ``valid_at`` only
    what was said by then; excerpts have no epistemic state of their own, so nothing else is pushed down."""
    claims = explicit_search_filter(request)
    said_before = claims.time_to
    if request.valid_at is not None:
        # half-open: said at or before valid_at
        limit = iso(request.valid_at + timedelta(microseconds=1))
        said_before = limit if said_before is None else min(said_before, limit)
    return SearchFilter(
        tenant_id=claims.tenant_id,
        owner_id=claims.owner_id,
        scope=claims.scope,
        scope_id=claims.scope_id,
        recorded_before=claims.recorded_before,
        time_from=claims.time_from,
        time_to=said_before,
        readable=claims.readable,
    )


def _one_slot_per_message(ranked: Sequence[Fused], claim_ids: dict[str, tuple[str, ...]]) -> list[Fused]:
    """A message's excerpt is left out below a claim taken from it: the claim already cites the message.

    Claims are never left out (a conflict must be shown whole); an excerpt above its claims stays,
    and so do they.
    """
    covered: set[str] = set()
    out: list[Fused] = []
    for f in ranked:
        event = f.node.evidence_refs[0] if f.node.evidence_refs else None
        if f.node.node_id in claim_ids:  # an excerpt
            if event is not None and event in covered:
                continue
        elif event is not None:
            covered.add(event)
        out.append(f)
    return out


def _with_claims(ranked: Sequence[Fused], claim_ids: dict[str, tuple[str, ...]], limit: int,
                 quota: float) -> list[Fused]:  # fmt: skip
    """The first ``limit`` of ``ranked``, the best claims of the rest taking the last places of messages
    when fewer than ``quota`` of ``limit`` (at least one) are claims."""
    head = list(ranked[:limit])
    wanted = max(1, math.ceil(limit * quota)) if quota > 0 else 0
    missing = wanted - sum(1 for f in head if f.node.node_id not in claim_ids)
    for claim in [f for f in ranked[limit:] if f.node.node_id not in claim_ids][: max(0, missing)]:
        if len(head) >= limit:
            excerpts_at = [i for i, f in enumerate(head) if f.node.node_id in claim_ids]
            if not excerpts_at:
                break
            del head[excerpts_at[-1]]
        head.append(claim)
    return head


def _in_ranking_order(presented: list[Presented], position: dict[str, int]) -> list[Presented]:
    """Presented claims by the ranking position of their group's first member (a group stays together)."""
    def key(item: tuple[int, Presented]) -> tuple[int, int]:
        index, p = item
        members = p.group or (p.fused.node.node_id,)
        return min(position.get(m, len(position)) for m in members), index

    return [p for _i, p in sorted(enumerate(presented), key=key)]


@dataclass(frozen=True)
class RetrieverConfig:
    # PRME's code uses 500 per channel and its RFC 20/30; 100 keeps recall@10 on exact-answer
    # queries while every candidate costs a node load, a policy check and a fusion step.
    lexical_k: int = 100
    vector_k: int = 100
    #: Candidates per channel of the excerpt collection (50: the same R@10 on the dev conversations as
    #: 100, at half the documents read per query).
    excerpt_k: int = 50
    #: An excerpt's fused score is weighed by this against a claim's. Messages found by their words and
    #: meaning (with the turns before them) proved the better evidence on long conversations: at 2.5
    #: they lead the ranking and the claims follow; at 1.0 claims taken from the same messages pushed
    #: the messages that answer a question out of the first ten (``bench/conversation_recall.py``).
    excerpt_weight: float = 2.5
    #: In DEFAULT mode an excerpt's score is scaled between this (none of its claims is shown) and 1 (all
    #: are): a message that also says something superseded or retracted is not the best answer.
    excerpt_stale_weight: float = 0.5
    #: Share of ``limit`` kept for the best claims when messages outrank them (at least one): an answer
    #: always carries the facts memory holds, with how they are known, not only what was said.
    claim_quota: float = 0.2
    #: RRF of the excerpts' two channels: a smaller k than the claims' (60) lets the top of each channel
    #: count for more (R@10 on the dev conversations: 0.70 at k=10 against 0.66 at 60); for a question
    #: asking when, a message that says when weighs up to 1.5× (temporal R@10 0.79 -> 0.83).
    excerpt_fusion: FusionConfig = field(default_factory=lambda: FusionConfig(k=10, dated_boost=0.5))
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
        *,
        excerpts: SearchBackend | None = None,
    ) -> None:
        self._backend = backend
        self._excerpts = excerpts
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

    def _candidates(
        self, request: RetrievalRequest, flt: SearchFilter, backend: SearchBackend | None = None, k: int | None = None
    ) -> tuple[list[Candidate], bool, bool]:
        cfg = self._config
        backend = backend or self._backend
        lexical = backend.lexical(request.query, flt, k or cfg.lexical_k)
        mismatch = bool(backend.embedding_mismatch)
        vector_failed = False
        vector: list[SearchHit] = []
        if not mismatch:
            try:
                vector = backend.vector(request.query, flt, k or cfg.vector_k)
            except BackendUnavailable:
                vector_failed = True
        merged = _merge(lexical, vector)
        guard = explicit_search_filter(request) if backend is self._backend else flt
        # ``get`` returns nodes in the order asked (sorted ids), so no second sort is needed.
        candidates = [
            Candidate(node=n, lexical_score=merged[n.node_id][0], vector_score=merged[n.node_id][1])
            for n in backend.get(sorted(merged))
            if n.node_id in merged and node_matches_filter(n, guard)
        ]
        candidates.sort(key=lambda c: c.node.node_id)
        return candidates, mismatch, vector_failed

    def _excerpts_of(
        self, request: RetrievalRequest, analysis: QueryAnalysis
    ) -> tuple[list[Fused], dict[str, tuple[str, ...]], list[Exclusion]]:
        """Excerpt candidates fused on their own channels, the claims taken from each, and what DEFAULT left out.

        A message is found by its words and by its meaning with the turns before it (the excerpt's
        lexical and vector channels). Its claims' ranks are not fused in: they are taken from the
        same words, and on conversations they made the ranking worse (``docs/performance.md``).

        An excerpt whose claims are all excluded (hypothetical, superseded, an unknown condition…)
        says what memory no longer holds as current: DEFAULT leaves it out with the first claim's
        reason; EXPLICIT keeps it and says why DEFAULT would not have. An excerpt without claims
        (small talk, a question, a caption) is what was said, nothing more, and is kept.
        """
        assert self._excerpts is not None
        cfg = self._config
        at = self._reference_time(request)
        flt = excerpt_search_filter(request)
        found, _mismatch, _failed = self._candidates(request, flt, self._excerpts, cfg.excerpt_k)
        by_event = {c.node.evidence_refs[0]: c for c in found if c.node.evidence_refs}
        if not by_event:
            return [], {}, []
        claim_flt = explicit_search_filter(request).model_copy(update={"node_types": None, "source_types": None,
                                                                       "valid_at": None})  # fmt: skip
        events = sorted(by_event)
        cited: dict[str, list[MemoryNode]] = {}
        for node in self._backend.cited(events, claim_flt, limit=max(1000, 10 * len(events))):
            for ref in node.evidence_refs:
                cited.setdefault(ref, []).append(node)
        claim_ids: dict[str, tuple[str, ...]] = {}
        current: dict[str, float] = {}
        kept: list[Candidate] = []
        exclusions: list[Exclusion] = []
        for event_id in events:
            cand = by_event[event_id]
            of_event = cited.get(event_id, [])
            claim_ids[cand.node.node_id] = tuple(sorted({n.node_id for n in of_event}))
            reasons = [default_exclusion_reason(n, cfg.unverified_threshold, at) for n in of_event]
            current[cand.node.node_id] = sum(r is None for r in reasons) / len(reasons) if reasons else 1.0
            if of_event and all(r is not None for r in reasons):
                reason = f"excerpt_claims_excluded:{sorted(r for r in reasons if r is not None)[0]}"
                if request.mode is RetrievalMode.DEFAULT:
                    exclusions.append(Exclusion(node_id=cand.node.node_id, reason=reason, stage="policy"))
                    continue
                exclusions.append(Exclusion(node_id=cand.node.node_id, reason=reason, stage="policy", included=True))
            kept.append(cand)
        kept.sort(key=lambda c: c.node.node_id)
        fused = fuse(kept, current_state=analysis.current_state, time_window=analysis.time_window,
                     config=cfg.excerpt_fusion, asks_when=analysis.asks_when)  # fmt: skip
        weight, stale = cfg.excerpt_weight, cfg.excerpt_stale_weight
        for f in fused:
            # a message that also says what memory no longer holds (a superseded value beside a current one)
            # weighs less, down to ``excerpt_stale_weight`` when nothing it said is still shown
            share = current[f.node.node_id] if request.mode is RetrievalMode.DEFAULT else 1.0
            f.score = round(f.score * weight * (stale + (1.0 - stale) * share), cfg.fusion.decimals)
        return fused, claim_ids, exclusions

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
                node, self._config.unverified_threshold, self._reference_time(request)
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
        if request.sources == "excerpts":
            candidates: list[Candidate] = []
            mismatch, vector_failed = bool(self._backend.embedding_mismatch), False
        else:
            candidates, mismatch, vector_failed = self._candidates(request, flt)
        excerpts: list[Fused] = []
        claim_ids: dict[str, tuple[str, ...]] = {}
        excerpt_exclusions: list[Exclusion] = []
        # A request for kinds of claims (node or source types) asks for claims; an excerpt is of neither.
        typed = request.node_types is not None or request.source_types is not None
        if self._excerpts is not None and request.sources != "claims" and not (typed and request.sources == "all"):
            excerpts, claim_ids, excerpt_exclusions = self._excerpts_of(request, analysis)

        kept, exclusions = apply_policy([c.node for c in candidates], request.mode, cfg.unverified_threshold, ref)
        kept_ids = {n.node_id for n in kept}
        fused_all = fuse(
            [c for c in candidates if c.node.node_id in kept_ids],
            current_state=analysis.current_state,
            time_window=analysis.time_window,
            config=cfg.fusion,
        )

        exclusions += excerpt_exclusions

        min_score_skipped = False
        ranked = fused_all
        if request.min_score is not None:
            if mismatch or vector_failed:
                min_score_skipped = True
            else:
                ranked, excerpts = [], list(excerpts)
                kept_excerpts: list[Fused] = []
                for f in [*fused_all, *excerpts]:
                    if f.semantic_relevance >= request.min_score:
                        (kept_excerpts if f.node.node_id in claim_ids else ranked).append(f)
                    else:
                        reason = f"below_min_score:{f.semantic_relevance:.4f}<{request.min_score:g}"
                        exclusions.append(Exclusion(node_id=f.node.node_id, reason=reason, stage="min_score"))
                excerpts = kept_excerpts

        # One ranking of claims and excerpts; the claims in it are presented (conflicts kept together).
        # EXPLICIT is for seeing how things are known (hypotheses, retired claims and their reasons):
        # there every claim comes before the messages.
        order = (lambda f: (f.node.node_id in claim_ids, -f.score, f.tie_break, f.node.node_id)) if explain and (
            request.mode is RetrievalMode.EXPLICIT) else (lambda f: (False, -f.score, f.tie_break, f.node.node_id))
        merged = _with_claims(
            _one_slot_per_message(sorted([*ranked, *excerpts], key=order), claim_ids),
            claim_ids, request.limit, cfg.claim_quota,
        )  # fmt: skip
        position = {f.node.node_id: i for i, f in enumerate(merged)}
        head = [f for f in merged if f.node.node_id not in claim_ids]
        head_excerpts = [f for f in merged if f.node.node_id in claim_ids]
        pool = {f.node.node_id: f for f in fused_all}
        presented = _in_ranking_order(present(head + self._partners(request, head, pool)), position)

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
        pack_items += [
            PackItem(node=f.node, score=f.score, path_count=len(f.trace.paths), confidence=1.0) for f in head_excerpts
        ]
        packed = pack(pack_items, request.token_budget, cfg.packing)
        exclusions += packed.excluded
        ranked_items = [(position.get(p.group[0] if p.group else p.fused.node.node_id, len(merged)),
                         self._item(p, ref, packed.placed)) for p in presented]  # fmt: skip
        ranked_items += [(position[f.node.node_id], self._excerpt_item(f, ref, packed.placed,
                                                                         claim_ids[f.node.node_id]))
                         for f in head_excerpts]  # fmt: skip
        items = tuple(item for _pos, item in sorted(ranked_items, key=lambda pair: pair[0]))
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
            candidate_count=len(candidates) + len(excerpts),
            reference_time=ref,
            request_fingerprint=self.fingerprint(request, ref),
        )

    @staticmethod
    def _item(p: Presented, ref: datetime, placed: dict[str, Representation]) -> RetrievedItem:
        node = p.fused.node
        flags = default_flags(node, ref) + (("conflict",) if p.conflict_flag else ())
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
            expires_at=node.expires_at,
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
            speaker=node.speaker,
            role=node.role,
            event_dates=node.event_dates,
        )

    @staticmethod
    def _excerpt_item(
        f: Fused, ref: datetime, placed: dict[str, Representation], claims: tuple[str, ...]
    ) -> RetrievedItem:
        doc = f.node
        level = placed.get(doc.node_id)
        return RetrievedItem(
            kind="excerpt",
            node_id=doc.node_id,
            node_type=doc.node_type,
            subject=doc.subject,
            predicate=doc.predicate,
            polarity=doc.polarity,
            content=doc.content,
            scope=doc.scope,
            scope_id=doc.scope_id,
            valid_from=doc.valid_from,
            recorded_at=doc.recorded_at,
            salience=doc.salience,
            score=f.score,
            label=label_for(doc, ref),
            trace=f.trace,
            flags=("excerpt",),
            in_context=level is not None,
            representation=level,
            speaker=doc.speaker,
            role=doc.role,
            event_dates=doc.event_dates,
            event_id=doc.evidence_refs[0] if doc.evidence_refs else None,
            claim_ids=claims,
        )
