from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest
from fake_backend import make_node

from retrieval.fusion import Candidate, FusionConfig, fuse, rrf_base
from schemas.enums import EpistemicType, NodeType, TemporalIntent
from schemas.retrieval import TimeWindow
from schemas.search import competition_ranks

K = 60


def spec_base(r_sem: int | None, r_lex: int | None, k: int = K) -> float:
    """PRME-FACTS §6.3, written out independently of the implementation."""
    s = (1 / (k + r_sem) if r_sem else 0.0) + (1 / (k + r_lex) if r_lex else 0.0)
    return s * (k + 1) / 2


def test_rrf_base_anchor_values() -> None:
    assert rrf_base(1, 1) == pytest.approx(1.0)
    assert rrf_base(1, None) == pytest.approx(0.5)
    assert rrf_base(None, 1) == pytest.approx(0.5)
    assert rrf_base(None, None) == 0.0
    assert rrf_base(2, 5) == pytest.approx((1 / 62 + 1 / 65) * 61 / 2)
    assert rrf_base(3, 3, k=1) == pytest.approx((1 / 4 + 1 / 4) * 2 / 2)


def test_competition_ranks_share_the_better_rank() -> None:
    assert competition_ranks({"a": 3.0, "b": 3.0, "c": 1.0, "d": 2.0}) == {"a": 1, "b": 1, "d": 3, "c": 4}
    assert competition_ranks({}) == {}


def test_fused_score_equals_spec_formula_for_equal_factors() -> None:
    # Same type and node type: every factor normalises to 1.0, so score == base.
    a = make_node("a", days=0)
    b = make_node("b", days=0)
    c = make_node("c", days=0)
    fused = fuse(
        [
            Candidate(a, lexical_score=5.0, vector_score=0.9),
            Candidate(b, lexical_score=3.0, vector_score=0.95),
            Candidate(c, lexical_score=5.0),
        ]
    )
    scores = {f.node.node_id: f.score for f in fused}
    # lexical ranks: a=1, c=1 (tie), b=3; vector ranks: b=1, a=2
    assert scores["a"] == round(spec_base(2, 1), 10)
    assert scores["b"] == round(spec_base(1, 3), 10)
    assert scores["c"] == round(spec_base(None, 1), 10) == 0.5
    assert [f.node.node_id for f in fused] == ["a", "b", "c"]
    trace = next(f.trace for f in fused if f.node.node_id == "c")
    assert trace.paths == ("lexical",)
    assert trace.ranks == {"lexical": 1}


def test_factors_are_normalised_by_pool_maximum() -> None:
    observed = make_node("o", epistemic_type=EpistemicType.OBSERVED, node_type=NodeType.NOTE)
    inferred = make_node("i", epistemic_type=EpistemicType.INFERRED, node_type=NodeType.FACT)
    fused = {f.node.node_id: f for f in fuse([Candidate(observed, lexical_score=1.0, vector_score=1.0),
                                              Candidate(inferred, lexical_score=1.0, vector_score=1.0)])}
    # Both rank 1 on both channels -> base 1.0.
    assert fused["o"].trace.factors["epistemic"] == 1.0
    assert fused["i"].trace.factors["epistemic"] == pytest.approx(0.7)
    assert fused["o"].trace.factors["node_type"] == pytest.approx(1.0 / 1.15)
    assert fused["i"].trace.factors["node_type"] == 1.0
    assert fused["o"].score == round(1.0 / 1.15, 10)
    assert fused["i"].score == round(0.7, 10)


def test_single_candidate_factors_cap_at_one() -> None:
    (only,) = fuse([Candidate(make_node("h", epistemic_type=EpistemicType.HYPOTHETICAL), lexical_score=2.0)])
    assert only.score == 0.5
    assert all(v == 1.0 for v in only.trace.factors.values())


def test_ties_break_newest_first_then_by_id() -> None:
    old = make_node("a-old", days=0)
    new = make_node("z-new", days=5)
    same1 = make_node("m1", days=2)
    same2 = make_node("m2", days=2)
    cands = [Candidate(n, lexical_score=1.0) for n in (old, new, same2, same1)]
    fused = fuse(cands)
    assert len({f.score for f in fused}) == 1
    assert [f.node.node_id for f in fused] == ["z-new", "m1", "m2", "a-old"]
    tie = {f.node.node_id: f.tie_break for f in fused}
    assert tie["z-new"] == 0.0
    assert tie["a-old"] == pytest.approx(1e-11)
    assert tie["m1"] == tie["m2"] == pytest.approx(1e-11 / 3)


def test_scores_rounded_to_ten_decimals() -> None:
    fused = fuse([Candidate(make_node("a"), lexical_score=1.0), Candidate(make_node("b"), vector_score=0.5,
                                                                           lexical_score=0.5)])
    for f in fused:
        assert f.score == round(f.score, 10)


def test_recency_boost_only_on_current_state_questions() -> None:
    old = make_node("old", "alice lives in paris", days=0)
    new = make_node("new", "alice lives in rome", days=20)
    cands = [Candidate(old, lexical_score=2.0, vector_score=0.9), Candidate(new, lexical_score=1.0, vector_score=0.8)]
    plain = fuse(cands)
    assert plain[0].node.node_id == "old"
    assert "recency" not in plain[0].trace.factors
    current = {f.node.node_id: f for f in fuse(cands, current_state=True)}
    r_old = math.exp(-0.05 * 20)
    expected_old = (1 + 0.25 * r_old) / 1.25
    assert current["old"].trace.factors["recency"] == pytest.approx(expected_old)
    assert current["new"].trace.factors["recency"] == 1.0
    assert current["old"].score == round(1.0 * expected_old, 10)


def test_update_wording_doubles_recency() -> None:
    old = make_node("old", "alice lives in paris", days=0)
    upd = make_node("upd", "alice moved to rome", days=0, temporal_intent=TemporalIntent.UPDATE)
    newest = make_node("newest", "alice likes rome", days=10)
    fused = {f.node.node_id: f for f in fuse([Candidate(n, lexical_score=1.0) for n in (old, upd, newest)],
                                             current_state=True)}
    r = math.exp(-0.05 * 10)
    assert fused["old"].trace.factors["recency"] == pytest.approx((1 + 0.25 * r) / 1.25)
    assert fused["upd"].trace.factors["recency"] == pytest.approx((1 + 0.25 * min(1.0, 2 * r)) / 1.25)


def test_temporal_factor_prefers_items_inside_the_window() -> None:
    window = TimeWindow(start=datetime(2025, 3, 1, tzinfo=UTC), end=datetime(2025, 3, 2, tzinfo=UTC))
    inside = make_node("in", "went hiking", days=0)
    outside = make_node("out", "went hiking", days=50)
    fused = fuse([Candidate(inside, lexical_score=1.0), Candidate(outside, lexical_score=1.0)], time_window=window)
    assert [f.node.node_id for f in fused] == ["in", "out"]
    # nearness outside = exp(-0.02 * days past the window end)
    days_out = (outside.valid_from - window.end).total_seconds() / 86400
    expected = (1 + 0.15 * 0.7 * math.exp(-0.02 * days_out)) / (1 + 0.15 * 0.7)
    assert fused[1].trace.factors["temporal"] == pytest.approx(expected)


def test_invalid_config_rejected() -> None:
    with pytest.raises(ValueError):
        FusionConfig(k=0)
    with pytest.raises(ValueError):
        FusionConfig(recency_boost=5)
    with pytest.raises(ValueError):
        FusionConfig(recency_lambda=0.01)
