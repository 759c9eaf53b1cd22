"""Rules of PRME-FACTS §4 and §6 that no other retrieval test pins down.

Expected values are computed here from the spec's numbers (weights, k, rates,
the 0.05 window), never read back from the implementation.
"""

from __future__ import annotations

import math
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from fake_backend import T0, FakeBackend, make_node
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval.fusion import Candidate, FusionConfig, fuse
from retrieval.packing import PackingConfig, PackItem, estimate_tokens, pack, render_line
from retrieval.policy import node_type_boost
from retrieval.presentation import leads
from retrieval.service import Retriever
from schemas.enums import ConditionState, EpistemicType, LifecycleState, NodeType, Polarity, SourceType
from schemas.retrieval import Representation, RetrievalRequest, TimeWindow

REF = T0 + timedelta(days=30)
NO_RESERVE = PackingConfig(reserve_tokens=0)


def spec_cost(text: str) -> int:
    """§6.5 method 2 for English text: ceil(chars / 4.2), one line plus its newline."""
    return math.ceil(Fraction(len(text) + 1) / Fraction("4.2"))


def _req(query: str, mode: str = "default", **kw: object) -> RetrievalRequest:
    fields: dict[str, object] = {"query": query, "tenant_id": "t1", "owner_id": "alice", "reference_time": REF,
                                 "mode": mode}
    fields.update(kw)
    return RetrievalRequest(**fields)  # type: ignore[arg-type]


# --- §4 weights and boosts ------------------------------------------------------------------------------------


def test_node_type_boost_for_every_node_type() -> None:
    spec = {NodeType.FACT: 1.15, NodeType.PREFERENCE: 1.15, NodeType.DECISION: 1.15, NodeType.INSTRUCTION: 1.15,
            NodeType.SUMMARY: 1.10}
    for node_type in NodeType:
        assert node_type_boost(node_type) == spec.get(node_type, 1.0), node_type


def test_epistemic_filter_runs_before_scoring() -> None:
    # The retired node is the best match on both channels and has the highest epistemic weight (OBSERVED 1.0).
    # Filtered first, the kept ASSERTED node is rank 1 on both channels with every factor at the pool max: 1.0.
    retired = make_node("retired", "green tea", epistemic_type=EpistemicType.OBSERVED,
                        lifecycle=LifecycleState.SUPERSEDED)
    kept = make_node("kept", "alice drinks green tea daily")
    retriever = Retriever(FakeBackend([retired, kept]))
    for response in (retriever.retrieve(_req("green tea")), retriever.retrieve(_req("green tea", debug=True))):
        (item,) = response.items
        assert item.node_id == "kept"
        assert item.trace.ranks == {"lexical": 1, "vector": 1}
        assert item.score == 1.0
    # Sanity: in EXPLICIT mode the retired node competes, so the same node ranks and weighs lower.
    explicit = {i.node_id: i for i in retriever.retrieve(_req("green tea", "explicit")).items}
    assert explicit["kept"].trace.ranks["vector"] == 2
    assert explicit["kept"].trace.factors["epistemic"] == pytest.approx(0.9 / 1.0)


# --- §6.3 formula v2 ------------------------------------------------------------------------------------------


def test_candidate_on_no_channel_scores_zero_and_stays_out_of_normalisation() -> None:
    # Graph-only/pinned style candidate: OBSERVED note would set the epistemic max to 1.0 if it were pooled.
    orphan = make_node("orphan", epistemic_type=EpistemicType.OBSERVED)
    found = make_node("found")  # ASSERTED fact
    fused = fuse([Candidate(orphan), Candidate(found, lexical_score=3.0)])
    assert [f.node.node_id for f in fused] == ["found", "orphan"]
    assert fused[0].score == 0.5  # one channel, rank 1, factors all 1.0 within the pool
    assert fused[1].score == 0.0
    assert fused[1].trace.paths == ()


def test_rrf_k_default_and_bounds() -> None:
    assert FusionConfig().k == 60
    assert FusionConfig(k=1).k == 1
    assert FusionConfig(k=10_000).k == 10_000
    with pytest.raises(ValueError):
        FusionConfig(k=10_001)
    assert FusionConfig().recency_boost == 0.25
    assert FusionConfig(recency_boost=4).recency_boost == 4
    with pytest.raises(ValueError):
        FusionConfig(recency_boost=-0.01)


def test_custom_k_changes_the_base_by_the_formula() -> None:
    a, b = make_node("a"), make_node("b")
    cands = [Candidate(a, lexical_score=2.0, vector_score=0.5), Candidate(b, lexical_score=1.0, vector_score=0.9)]
    for k in (1, 10, 60):
        scores = {f.node.node_id: f.score for f in fuse(cands, config=FusionConfig(k=k))}
        # a: lexical 1, vector 2; b: lexical 2, vector 1 -> equal bases.
        expected = round((1 / (k + 2) + 1 / (k + 1)) * (k + 1) / 2, 10)
        assert scores == {"a": expected, "b": expected}


def test_temporal_affinity_counts_a_date_in_the_text() -> None:
    window = TimeWindow(start=T0 - timedelta(hours=1), end=T0 + timedelta(days=1))
    dated = make_node("dated", "hiked the ridge on 2025-03-01")
    plain = make_node("plain", "hiked the ridge")
    fused = {f.node.node_id: f for f in fuse([Candidate(dated, lexical_score=1.0), Candidate(plain,
                                                                                       lexical_score=1.0)],
                                             time_window=window)}
    # Both inside the window (nearness 1): affinity 0.3 + 0.7 vs 0.7, factor 1 + 0.15 × affinity, over the max.
    assert fused["dated"].trace.factors["temporal"] == 1.0
    assert fused["plain"].trace.factors["temporal"] == pytest.approx((1 + 0.15 * 0.7) / (1 + 0.15 * 1.0))


def test_recency_uses_event_time_never_updated_at() -> None:
    old_but_touched = make_node("old", "alice lives in paris", days=0, updated_at=T0 + timedelta(days=25))
    newer = make_node("new", "alice lives in rome", days=10)
    fused = {f.node.node_id: f for f in fuse([Candidate(old_but_touched, lexical_score=1.0),
                                              Candidate(newer, lexical_score=1.0)], current_state=True)}
    assert fused["new"].trace.factors["recency"] == 1.0
    expected = (1 + 0.25 * math.exp(-0.05 * 10)) / (1 + 0.25)
    assert fused["old"].trace.factors["recency"] == pytest.approx(expected)


# --- §4 contradiction tie-break --------------------------------------------------------------------------------

CONF = st.integers(min_value=0, max_value=100).map(lambda c: Decimal(c) / 100)


@settings(max_examples=150, deadline=None)
@given(ca=CONF, cb=CONF, da=st.integers(0, 5), db=st.integers(0, 5))
def test_tie_break_follows_the_spec_rule(ca: Decimal, cb: Decimal, da: int, db: int) -> None:
    a = make_node("a", confidence=float(ca), days=da)
    b = make_node("b", confidence=float(cb), days=db)
    assert leads(a, b) != leads(b, a)  # exactly one of the two is shown first
    if abs(ca - cb) > Decimal("0.05"):
        assert leads(a, b) is (ca > cb)
    elif da != db:
        assert leads(a, b) is (da > db)  # within 0.05: the newer one first


# --- §6.5 token cost -------------------------------------------------------------------------------------------


def test_token_estimate_uses_the_per_script_rates() -> None:
    assert estimate_tokens("日本語") == math.ceil(3 / 1.5)
    assert estimate_tokens("한국어입니다") == math.ceil(6 / 1.5)
    assert estimate_tokens("مرحبا") == math.ceil(5 / 2.0)
    assert estimate_tokens("שלום עולם") == math.ceil(Fraction(8, 2) + Fraction(1) / Fraction("4.2"))
    assert estimate_tokens("ab日本") == math.ceil(Fraction(2) / Fraction("4.2") + Fraction(2) / Fraction("1.5"))
    assert estimate_tokens("x" * 42) == 10


@settings(max_examples=60, deadline=None)
@given(
    budget=st.integers(min_value=1, max_value=200),
    texts=st.lists(st.text(alphabet="ab 日本語한국مرحبا", min_size=1, max_size=120), max_size=8),
)
def test_non_latin_context_never_exceeds_the_budget(budget: int, texts: list[str]) -> None:
    items = [PackItem(node=make_node(f"n{i}", t if t.strip() else "x"), score=0.5, path_count=1)
             for i, t in enumerate(texts)]
    result = pack(items, budget, NO_RESERVE)
    assert result.tokens_used == estimate_tokens(result.context) <= budget


# --- §6.5 representation levels --------------------------------------------------------------------------------


def test_levels_carry_text_only_from_structured_up() -> None:
    node = make_node("k1", "alice never drinks coffee after noon", object="coffee after noon " * 40,
                     polarity=Polarity.NEGATIVE, epistemic_type=EpistemicType.CONDITIONAL,
                     condition="unless she is travelling for work", condition_state=ConditionState.TRUE)
    it = PackItem(node=node, score=0.5, path_count=1)
    ref = render_line(it, Representation.REFERENCE)
    kv = render_line(it, Representation.KEY_VALUE)
    structured = render_line(it, Representation.STRUCTURED)
    for line in (ref, kv):
        assert "coffee" not in line and "alice" not in line
        assert node.node_type.value in line and "id:k1" in line
        assert "[CONDITIONAL]" in line  # qualification survives at every level
    assert "conf:0.80" in kv and "conf:" not in ref
    # STRUCTURED: the type and a ~200-character preview; qualifications (negation, condition) kept whole.
    assert f"{node.node_type.value}:" in structured and "coffee after noon" in structured
    assert "not likes" in structured
    assert "if: unless she is travelling for work" in structured
    claim = structured.split(" | ")[0]
    assert len(claim) <= 200 + len(f"- [CONDITIONAL] [condition:TRUE] {node.node_type.value}: ") + 1
    full = render_line(it, Representation.FULL)
    assert ("coffee after noon " * 40).strip() in full


# --- §6.5 packing order ----------------------------------------------------------------------------------------


def _item(node_id: str, content: str = "", score: float = 0.5, paths: int = 1, **kw: object) -> PackItem:
    return PackItem(node=make_node(node_id, content, **kw), score=score, path_count=paths)


def test_pinned_items_are_tier_one_and_retired_tasks_are_not() -> None:
    items = [
        _item("rest", score=0.99),
        _item("multi", score=0.5, paths=2),
        _item("pinned", score=0.01, salience=1.0),
        _item("oldtask", score=0.02, node_type=NodeType.TASK, lifecycle=LifecycleState.ARCHIVED),
    ]
    assert list(pack(items, 10_000, NO_RESERVE).placed) == ["pinned", "multi", "rest", "oldtask"]


def test_multipath_ordering_variants() -> None:
    short = "alice likes tea"
    items = [
        _item("a", "alice likes " + "oolong " * 20, score=0.9, paths=2),
        _item("b", "alice likes " + "sencha " * 90, score=0.8, paths=2),
        _item("c", short, score=0.5, paths=2),
    ]
    tokens = {i.node.node_id: spec_cost(render_line(i, Representation.FULL)) for i in items}
    score = {i.node.node_id: i.score for i in items}

    def by(key):  # type: ignore[no-untyped-def]
        return sorted(score, key=lambda n: (key(n), n))

    expected = {
        "score": by(lambda n: -score[n]),
        "density": by(lambda n: -score[n] / tokens[n]),
        # top-scored first, then score / tokens^0.25
        "balanced": ["a", *by(lambda n: -score[n] / tokens[n] ** 0.25 if n != "a" else -math.inf)[1:]],
    }
    assert len({tuple(v) for v in expected.values()}) == 3, "fixture must separate the three orderings"
    for ordering, want in expected.items():
        cfg = PackingConfig(reserve_tokens=0, multipath_ordering=ordering)  # type: ignore[arg-type]
        assert list(pack(items, 100_000, cfg).placed) == want, ordering


def test_tier_one_overflow_keeps_tasks_before_pinned_items() -> None:
    pinned = _item("p", "alice likes tea", score=0.9, salience=1.0)
    task = _item("task-0123456789", "book flights", score=0.1, node_type=NodeType.TASK)
    budget = spec_cost("## active_tasks") + spec_cost(render_line(task, Representation.REFERENCE))
    # The pinned item alone would fit, so plain score order would have dropped the task.
    assert spec_cost("## stable_facts") + spec_cost(render_line(pinned, Representation.REFERENCE)) <= budget
    result = pack([pinned, task], budget, NO_RESERVE)
    assert result.placed == {"task-0123456789": Representation.REFERENCE}
    assert [(e.node_id, e.reason) for e in result.excluded] == [("p", "BUDGET_EXHAUSTED")]
    assert "BUDGET_OVERFLOW" in result.warnings


def test_tier_one_overflow_last_resort_is_every_task_as_reference() -> None:
    pinned = _item("p", "alice likes tea", score=0.95, salience=1.0)
    t1 = _item("t1", "book flights to lisbon", score=0.9, node_type=NodeType.TASK)
    t2 = _item("t2", "renew the passport", score=0.8, node_type=NodeType.TASK)
    budget = spec_cost("## active_tasks") + sum(spec_cost(render_line(t, Representation.REFERENCE)) for t in (t1, t2))
    result = pack([pinned, t1, t2], budget, NO_RESERVE)
    assert result.placed == {"t1": Representation.REFERENCE, "t2": Representation.REFERENCE}
    assert [e.node_id for e in result.excluded] == ["p"]
    assert "BUDGET_OVERFLOW" in result.warnings


def test_budget_defaults() -> None:
    assert RetrievalRequest(query="q", tenant_id="t1", owner_id="alice").token_budget == 4096
    assert PackingConfig().reserve_tokens == 100
    assert PackingConfig().min_fidelity is Representation.REFERENCE


# --- provenance label and contradiction partners in the service ------------------------------------------------


def test_every_item_carries_its_provenance_label_and_context_tags() -> None:
    nodes = [
        make_node("obs", "green tea at breakfast", epistemic_type=EpistemicType.OBSERVED, confidence=0.9),
        make_node("inf", "green tea lover", epistemic_type=EpistemicType.INFERRED,
                  source_type=SourceType.SYSTEM_INFERRED, confidence=0.6, evidence_refs=("e1", "e2")),
        make_node("hyp", "might switch to green tea", epistemic_type=EpistemicType.HYPOTHETICAL, confidence=0.3),
        make_node("cond", "green tea if tired", epistemic_type=EpistemicType.CONDITIONAL, condition="if tired",
                  condition_state=ConditionState.FALSE),
        make_node("unv", "green tea is healthy", epistemic_type=EpistemicType.UNVERIFIED, confidence=0.2,
                  source_type=SourceType.EXTERNAL_DOCUMENT),
    ]
    by_id = {n.node_id: n for n in nodes}
    response = Retriever(FakeBackend(nodes)).retrieve(_req("green tea", "explicit"))
    assert {i.node_id for i in response.items} == set(by_id)
    lines = response.context.splitlines()
    for item in response.items:
        node = by_id[item.node_id]
        label = item.label
        assert (label.epistemic_type, label.source_type, label.confidence, label.lifecycle) == (
            node.epistemic_type, node.source_type, node.confidence, node.lifecycle)
        assert label.evidence_event_ids == node.evidence_refs
        assert label.condition == node.condition
        is_cond = node.epistemic_type is EpistemicType.CONDITIONAL
        assert label.condition_state == (node.condition_state if is_cond else None)
        if item.in_context and node.epistemic_type not in (EpistemicType.OBSERVED, EpistemicType.ASSERTED):
            line = next(x for x in lines if f"id:{node.node_id}" in x)
            assert f"[{node.epistemic_type.value}]" in line


def test_retired_partner_is_not_pulled_in_beyond_the_limit() -> None:
    live = make_node("live", "alice lives in paris", contradicts=("gone",))
    gone = make_node("gone", "alice lives in rome", contradicts=("live",), lifecycle=LifecycleState.DEPRECATED,
                     epistemic_type=EpistemicType.DEPRECATED)
    response = Retriever(FakeBackend([live, gone])).retrieve(_req("alice lives paris", "explicit", limit=1))
    assert [i.node_id for i in response.items] == ["live"]
    assert not response.items[0].conflict_flag and response.items[0].contradicts_id is None
