"""The retrieval policy at its edges (retrieval.policy), expected values written out.

``node_matches_filter`` is the reference semantics every backend must follow, so each field is
checked on its own (the retriever's per-node re-check would otherwise hide a filter that lets too
much through) and each time bound at its exact edge: ``valid_at`` and the time window are
half-open, ``knowledge_at`` includes its instant.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from fake_backend import T0, make_node

from retrieval.policy import (
    apply_policy,
    default_exclusion_reason,
    default_flags,
    explicit_search_filter,
    node_matches_filter,
    search_filter_for,
)
from schemas.enums import ConditionState, EpistemicType, LifecycleState, NodeType, SourceType
from schemas.retrieval import RetrievalMode, RetrievalRequest, TimeWindow
from schemas.search import SearchFilter

E, L = EpistemicType, LifecycleState
DAY = timedelta(days=1)


def _request(mode: str = "default", **kw: object) -> RetrievalRequest:
    return RetrievalRequest(query="tea", tenant_id="t1", owner_id="alice", reference_time=T0, mode=mode, **kw)


def _flt(**kw: object) -> SearchFilter:
    return SearchFilter(tenant_id="t1", owner_id="alice", **kw)


# --- the filter built from a request -----------------------------------------------------------------


def test_explicit_filter_carries_the_callers_filters_as_written() -> None:
    request = _request(
        "explicit",
        node_types=frozenset({NodeType.PREFERENCE}),
        source_types=frozenset({SourceType.USER_STATED}),
        time_window=TimeWindow(start=T0, end=T0 + DAY),
        valid_at=T0,
        knowledge_at=T0 + DAY,
    )
    flt = explicit_search_filter(request)
    assert flt.node_types == {NodeType.PREFERENCE}
    assert flt.source_types == {SourceType.USER_STATED}
    assert flt.time_from == "2025-03-01T12:00:00.000000Z"
    assert flt.time_to == "2025-03-02T12:00:00.000000Z"
    assert flt.valid_at == "2025-03-01T12:00:00.000000Z"
    assert flt.recorded_before == "2025-03-02T12:00:00.000000Z"
    assert flt.epistemic_types is None and flt.lifecycles is None and flt.unverified_min_confidence is None
    assert search_filter_for(request) == flt


@pytest.mark.parametrize(
    ("window", "time_from", "time_to"),
    [
        (TimeWindow(start=T0), "2025-03-01T12:00:00.000000Z", None),
        (TimeWindow(end=T0), None, "2025-03-01T12:00:00.000000Z"),
        (None, None, None),
    ],
)
def test_an_open_side_of_the_time_window_is_no_bound(window: TimeWindow | None, time_from: str | None,
                                                     time_to: str | None) -> None:  # fmt: skip
    flt = explicit_search_filter(_request(time_window=window))
    assert (flt.time_from, flt.time_to) == (time_from, time_to)


def test_default_filter_uses_the_given_unverified_threshold() -> None:
    assert search_filter_for(_request()).unverified_min_confidence == 0.30
    assert search_filter_for(_request(), 0.5).unverified_min_confidence == 0.5
    assert search_filter_for(_request("explicit"), 0.5).unverified_min_confidence is None


# --- node_matches_filter, one field at a time ---------------------------------------------------------


@pytest.mark.parametrize(
    ("flt", "kept", "dropped"),
    [
        (_flt(node_types=frozenset({NodeType.FACT})), {}, {"node_type": NodeType.PREFERENCE}),
        (_flt(source_types=frozenset({SourceType.USER_STATED})), {}, {"source_type": SourceType.TOOL_OUTPUT}),
        (_flt(epistemic_types=frozenset({E.ASSERTED})), {}, {"epistemic_type": E.INFERRED}),
        (_flt(lifecycles=frozenset({L.STABLE})), {}, {"lifecycle": L.CONTESTED}),
        (
            _flt(condition_states=frozenset({ConditionState.TRUE})),
            {"epistemic_type": E.CONDITIONAL, "condition_state": ConditionState.TRUE},
            {"epistemic_type": E.CONDITIONAL, "condition_state": ConditionState.UNKNOWN},
        ),
        (
            _flt(unverified_min_confidence=0.3),
            {"epistemic_type": E.UNVERIFIED, "confidence": 0.31},
            {"epistemic_type": E.UNVERIFIED, "confidence": 0.3},
        ),
    ],
)
def test_each_filter_field_alone_drops_what_it_names(flt: SearchFilter, kept: dict[str, object],
                                                     dropped: dict[str, object]) -> None:  # fmt: skip
    assert node_matches_filter(make_node("k", **kept), flt) is True
    assert node_matches_filter(make_node("d", **dropped), flt) is False


def test_valid_at_is_half_open_on_the_nodes_validity() -> None:
    node = make_node("n", valid_to=T0 + DAY)  # valid from T0 to T0 + 1 day
    at = {t: node_matches_filter(node, _flt(valid_at=t)) for t in (
        "2025-03-01T11:59:59.999999Z", "2025-03-01T12:00:00.000000Z", "2025-03-02T11:59:59.999999Z",
        "2025-03-02T12:00:00.000000Z",
    )}  # fmt: skip
    assert list(at.values()) == [False, True, True, False]
    assert node_matches_filter(make_node("open"), _flt(valid_at="2099-01-01T00:00:00.000000Z")) is True


def test_knowledge_at_includes_its_instant() -> None:
    node = make_node("n")  # recorded at T0
    assert node_matches_filter(node, _flt(recorded_before="2025-03-01T12:00:00.000000Z")) is True
    assert node_matches_filter(node, _flt(recorded_before="2025-03-01T11:59:59.999999Z")) is False


def test_the_time_window_is_half_open() -> None:
    node = make_node("n")  # valid from T0
    assert node_matches_filter(node, _flt(time_from="2025-03-01T12:00:00.000000Z")) is True
    assert node_matches_filter(node, _flt(time_from="2025-03-01T12:00:00.000001Z")) is False
    assert node_matches_filter(node, _flt(time_to="2025-03-01T12:00:00.000001Z")) is True
    assert node_matches_filter(node, _flt(time_to="2025-03-01T12:00:00.000000Z")) is False


# --- reasons, thresholds and flags -------------------------------------------------------------------


def test_a_node_breaking_several_rules_reports_its_epistemic_type_first() -> None:
    node = make_node("n", epistemic_type=E.HYPOTHETICAL, lifecycle=L.SUPERSEDED)
    assert default_exclusion_reason(node) == "epistemic_filtered:hypothetical"
    unverified = make_node("u", epistemic_type=E.UNVERIFIED, confidence=0.2, lifecycle=L.ARCHIVED)
    assert default_exclusion_reason(unverified) == "lifecycle_filtered:archived"


def test_a_given_threshold_is_the_one_applied() -> None:
    node = make_node("u", epistemic_type=E.UNVERIFIED, confidence=0.4)
    assert default_exclusion_reason(node) is None
    assert default_exclusion_reason(node, 0.5) == "unverified_below_threshold:0.4<=0.5"
    kept, excluded = apply_policy([node], RetrievalMode.DEFAULT, 0.5)
    assert kept == []
    assert [(x.node_id, x.reason, x.included) for x in excluded] == [("u", "unverified_below_threshold:0.4<=0.5",
                                                                       False)]  # fmt: skip


@pytest.mark.parametrize(
    ("overrides", "flags"),
    [
        ({}, ()),
        ({"lifecycle": L.TENTATIVE}, ()),
        ({"epistemic_type": E.OBSERVED}, ()),
        ({"epistemic_type": E.INFERRED, "lifecycle": L.CONTESTED}, ("inferred", "contested")),
        (
            {"epistemic_type": E.CONDITIONAL, "condition_state": ConditionState.TRUE, "lifecycle": L.TENTATIVE},
            ("conditional", "condition:true"),
        ),
        (
            {"epistemic_type": E.CONDITIONAL, "condition_state": ConditionState.FALSE},
            ("conditional", "condition:false", "not_default"),
        ),
        ({"epistemic_type": E.HYPOTHETICAL, "lifecycle": L.SUPERSEDED}, ("hypothetical", "superseded", "not_default")),
    ],
)
def test_flags_name_every_non_default_state(overrides: dict[str, object], flags: tuple[str, ...]) -> None:
    assert default_flags(make_node("n", **overrides)) == flags
