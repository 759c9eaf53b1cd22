from __future__ import annotations

from datetime import timedelta

import pytest
from fake_backend import T0, FakeBackend, make_node

from retrieval.policy import (
    apply_policy,
    default_exclusion_reason,
    default_search_filter,
    epistemic_weight,
    explicit_search_filter,
    node_matches_filter,
    node_type_boost,
)
from retrieval.service import Retriever
from schemas.enums import ConditionState, EpistemicType, LifecycleState, NodeType
from schemas.retrieval import RetrievalMode, RetrievalRequest

REF = T0 + timedelta(days=30)

# (node overrides, reason DEFAULT mode must give)
EXCLUDED_KINDS = [
    ({"epistemic_type": EpistemicType.HYPOTHETICAL}, "epistemic_filtered:hypothetical"),
    ({"epistemic_type": EpistemicType.DEPRECATED}, "epistemic_filtered:deprecated"),
    ({"lifecycle": LifecycleState.DEPRECATED}, "lifecycle_filtered:deprecated"),
    ({"lifecycle": LifecycleState.SUPERSEDED}, "lifecycle_filtered:superseded"),
    ({"lifecycle": LifecycleState.ARCHIVED}, "lifecycle_filtered:archived"),
    ({"epistemic_type": EpistemicType.CONDITIONAL, "condition_state": ConditionState.UNKNOWN},
     "condition_filtered:unknown"),
    ({"epistemic_type": EpistemicType.CONDITIONAL, "condition_state": ConditionState.FALSE},
     "condition_filtered:false"),
    ({"epistemic_type": EpistemicType.CONDITIONAL, "condition_state": ConditionState.EXPIRED},
     "condition_filtered:expired"),
    ({"epistemic_type": EpistemicType.UNVERIFIED, "confidence": 0.30}, "unverified_below_threshold:0.3<=0.3"),
    ({"epistemic_type": EpistemicType.UNVERIFIED, "confidence": 0.12}, "unverified_below_threshold:0.12<=0.3"),
]


def _request(mode: str = "default", **kw: object) -> RetrievalRequest:
    return RetrievalRequest(query="green tea", tenant_id="t1", owner_id="alice", reference_time=REF, mode=mode, **kw)


@pytest.mark.parametrize(("overrides", "reason"), EXCLUDED_KINDS)
def test_each_excluded_kind_is_dropped_in_default_and_kept_with_reason_in_explicit(
    overrides: dict[str, object], reason: str
) -> None:
    plain = make_node("plain", "alice likes green tea")
    odd = make_node("odd", "alice likes green tea a lot", **overrides)
    assert default_exclusion_reason(odd) == reason
    retriever = Retriever(FakeBackend([plain, odd]))

    default = retriever.retrieve(_request())
    assert [i.node_id for i in default.items] == ["plain"]
    assert "id:odd" not in default.context

    debug = retriever.retrieve(_request(debug=True))
    assert [i.node_id for i in debug.items] == ["plain"]
    assert [(e.node_id, e.reason, e.included) for e in debug.excluded] == [("odd", reason, False)]

    explicit = retriever.retrieve(_request("explicit"))
    assert sorted(i.node_id for i in explicit.items) == ["odd", "plain"]
    assert [(e.node_id, e.reason, e.included) for e in explicit.excluded] == [("odd", reason, True)]
    odd_item = next(i for i in explicit.items if i.node_id == "odd")
    assert "not_default" in odd_item.flags


def test_inferred_is_included_but_flagged() -> None:
    node = make_node("inf", "alice likes green tea", epistemic_type=EpistemicType.INFERRED)
    response = Retriever(FakeBackend([node])).retrieve(_request())
    (item,) = response.items
    assert "inferred" in item.flags
    assert "[INFERRED]" in response.context
    assert response.excluded == ()


@pytest.mark.parametrize(
    ("confidence", "excluded"), [(0.30, True), (0.3000001, False), (0.31, False), (0.29, True), (0.0, True)]
)
def test_unverified_threshold_boundary(confidence: float, excluded: bool) -> None:
    node = make_node("u", epistemic_type=EpistemicType.UNVERIFIED, confidence=confidence)
    assert (default_exclusion_reason(node) is not None) is excluded
    flt = default_search_filter(_request())
    assert node_matches_filter(node, flt) is not excluded


@pytest.mark.parametrize(
    ("state", "included", "weight"),
    [
        (ConditionState.TRUE, True, 0.9),
        (ConditionState.UNKNOWN, False, 0.3),
        (ConditionState.FALSE, False, 0.1),
        (ConditionState.EXPIRED, False, 0.1),
    ],
)
def test_conditional_by_state(state: ConditionState, included: bool, weight: float) -> None:
    node = make_node("c", epistemic_type=EpistemicType.CONDITIONAL, condition_state=state)
    assert (default_exclusion_reason(node) is None) is included
    assert epistemic_weight(node) == weight
    kept, excl = apply_policy([node], RetrievalMode.EXPLICIT)
    assert kept == [node]
    assert bool(excl) is not included


def test_conditional_state_missing_or_unrecognised_counts_as_unknown() -> None:
    from_meta = make_node("c1", epistemic_type=EpistemicType.CONDITIONAL, condition_state=None,
                          metadata={"condition_state": "true"})
    garbage = make_node("c2", epistemic_type=EpistemicType.CONDITIONAL, condition_state=None,
                        metadata={"condition_state": "maybe"})
    missing = make_node("c3", epistemic_type=EpistemicType.CONDITIONAL, condition_state=None)
    assert default_exclusion_reason(from_meta) is None
    assert default_exclusion_reason(garbage) == "condition_filtered:unknown"
    assert default_exclusion_reason(missing) == "condition_filtered:unknown"
    assert not node_matches_filter(missing, default_search_filter(_request()))


def test_epistemic_weights_and_boosts_are_the_code_values() -> None:
    expected = {
        EpistemicType.OBSERVED: 1.0,
        EpistemicType.ASSERTED: 0.9,
        EpistemicType.INFERRED: 0.7,
        EpistemicType.HYPOTHETICAL: 0.3,
        EpistemicType.DEPRECATED: 0.1,
        EpistemicType.UNVERIFIED: 0.5,
    }
    for etype, weight in expected.items():
        assert epistemic_weight(make_node("x", epistemic_type=etype)) == weight
    assert node_type_boost(NodeType.FACT) == 1.15
    assert node_type_boost(NodeType.DECISION) == 1.15
    assert node_type_boost(NodeType.SUMMARY) == 1.10
    assert node_type_boost(NodeType.NOTE) == 1.0


def test_default_mode_pushes_the_epistemic_filter_down_and_explicit_does_not() -> None:
    backend = FakeBackend([make_node("a", "green tea")])
    retriever = Retriever(backend)
    retriever.retrieve(_request())
    assert {kind for kind, _ in backend.calls} == {"lexical", "vector"}
    for _, flt in backend.calls:
        assert flt.tenant_id == "t1" and flt.owner_id == "alice"
        # Written out (PRME-FACTS §4): DEFAULT shows every type but HYPOTHETICAL and DEPRECATED.
        assert sorted(t.value for t in flt.epistemic_types or ()) == [
            "ASSERTED", "CONDITIONAL", "INFERRED", "OBSERVED", "UNVERIFIED",
        ]  # fmt: skip
        assert EpistemicType.HYPOTHETICAL not in (flt.epistemic_types or ())
        assert EpistemicType.DEPRECATED not in (flt.epistemic_types or ())
        assert flt.lifecycles == {LifecycleState.TENTATIVE, LifecycleState.STABLE, LifecycleState.CONTESTED}
        assert flt.condition_states == {ConditionState.TRUE}
        assert flt.unverified_min_confidence == 0.30
    backend.calls.clear()
    retriever.retrieve(_request("explicit"))
    for _, flt in backend.calls:
        assert flt.tenant_id == "t1" and flt.owner_id == "alice"
        assert flt.epistemic_types is None and flt.lifecycles is None and flt.condition_states is None


@pytest.mark.parametrize(
    ("etype", "matches"),
    [
        (EpistemicType.OBSERVED, True),
        (EpistemicType.ASSERTED, True),
        (EpistemicType.INFERRED, True),
        (EpistemicType.UNVERIFIED, True),
        (EpistemicType.HYPOTHETICAL, False),
        (EpistemicType.DEPRECATED, False),
    ],
)
def test_the_default_filter_alone_keeps_hypothetical_and_deprecated_out(etype: EpistemicType, matches: bool) -> None:
    """The filter a backend runs must exclude them by itself: OpenSearch never sees the per-node check."""
    node = make_node("x", epistemic_type=etype, confidence=0.9)
    assert node_matches_filter(node, default_search_filter(_request())) is matches
    assert node_matches_filter(node, explicit_search_filter(_request())) is True


def test_typed_filters_are_pushed_down_and_rechecked() -> None:
    request = _request(node_types=frozenset({NodeType.PREFERENCE}), valid_at=REF, knowledge_at=REF)
    flt = explicit_search_filter(request)
    assert flt.node_types == {NodeType.PREFERENCE}
    assert flt.valid_at is not None and flt.recorded_before is not None
    expired = make_node("e", node_type=NodeType.PREFERENCE, valid_to=REF - timedelta(days=1))
    future = make_node("f", node_type=NodeType.PREFERENCE, days=40)
    fact = make_node("g")
    ok = make_node("h", node_type=NodeType.PREFERENCE)
    assert [n.node_id for n in (expired, future, fact, ok) if node_matches_filter(n, flt)] == ["h"]


def test_other_tenant_owner_or_scope_never_matches() -> None:
    flt = explicit_search_filter(_request())
    assert not node_matches_filter(make_node("x", tenant_id="t2"), flt)
    assert not node_matches_filter(make_node("x", owner_id="bob"), flt)
    scoped = explicit_search_filter(_request(scope="project", scope_id="p1"))
    assert not node_matches_filter(make_node("x"), scoped)
    assert node_matches_filter(make_node("x", scope="project", scope_id="p1"), scoped)
    assert not node_matches_filter(make_node("x", scope="project", scope_id="p2"), scoped)
