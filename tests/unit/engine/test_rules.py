"""Transition tables, checked pair by pair and through the reducer."""

from __future__ import annotations

import itertools

import pytest
from engine_factories import at, claim, deprecate, extraction, new_store, promote, transition

from engine.reducer import apply
from engine.rules import check_epistemic, check_lifecycle, epistemic_allowed, lifecycle_allowed
from engine.store import InMemoryStateStore
from schemas.enums import EpistemicType, LifecycleState, OpType
from schemas.errors import InvalidEpistemicTransition, InvalidLifecycleTransition

E = EpistemicType
L = LifecycleState

# Restated from PRME-FACTS §1.5 (code table).
LIFECYCLE_ALLOWED = {
    (L.TENTATIVE, L.STABLE), (L.TENTATIVE, L.SUPERSEDED), (L.TENTATIVE, L.CONTESTED), (L.TENTATIVE, L.ARCHIVED),
    (L.STABLE, L.SUPERSEDED), (L.STABLE, L.CONTESTED), (L.STABLE, L.ARCHIVED),
    (L.CONTESTED, L.STABLE), (L.CONTESTED, L.DEPRECATED), (L.CONTESTED, L.ARCHIVED),
    (L.SUPERSEDED, L.ARCHIVED), (L.DEPRECATED, L.ARCHIVED),
}
# Restated from PRME-FACTS §1.6 (RFC-0003 §6) plus "any type -> DEPRECATED".
EPISTEMIC_ALLOWED = {
    (E.UNVERIFIED, E.ASSERTED), (E.ASSERTED, E.OBSERVED), (E.INFERRED, E.ASSERTED), (E.HYPOTHETICAL, E.ASSERTED),
} | {(t, E.DEPRECATED) for t in E if t is not E.DEPRECATED}


@pytest.mark.parametrize(("src", "dst"), list(itertools.product(L, L)))
def test_lifecycle_table_every_pair(src: LifecycleState, dst: LifecycleState) -> None:
    expected = (src, dst) in LIFECYCLE_ALLOWED
    assert lifecycle_allowed(src, dst) is expected
    if expected:
        check_lifecycle(src, dst)
    else:
        with pytest.raises(InvalidLifecycleTransition):
            check_lifecycle(src, dst)


@pytest.mark.parametrize(("src", "dst"), list(itertools.product(E, E)))
def test_epistemic_table_every_pair(src: EpistemicType, dst: EpistemicType) -> None:
    expected = (src, dst) in EPISTEMIC_ALLOWED
    assert epistemic_allowed(src, dst) is expected
    if not expected:
        with pytest.raises(InvalidEpistemicTransition):
            check_epistemic(src, dst)


def test_explicit_deprecation_may_leave_any_active_state_but_not_retired_ones() -> None:
    for state in (L.TENTATIVE, L.STABLE, L.CONTESTED):
        assert lifecycle_allowed(state, L.DEPRECATED, explicit_deprecation=True)
    for state in (L.SUPERSEDED, L.ARCHIVED, L.DEPRECATED):
        assert not lifecycle_allowed(state, L.DEPRECATED, explicit_deprecation=True)


def _node(et: EpistemicType) -> tuple[InMemoryStateStore, str]:
    store = new_store()
    kw = {"condition": "if it rains"} if et is E.CONDITIONAL else {}
    res = apply(store, extraction(claim(epistemic=et, **kw)))  # type: ignore[arg-type]
    return store, res.outcome.node_ids[0]


CREATABLE = [t for t in E if t is not E.DEPRECATED]


@pytest.mark.parametrize(("src", "dst"), [(s, d) for s in CREATABLE for d in E if s is not d])
def test_transition_command_follows_table(src: EpistemicType, dst: EpistemicType) -> None:
    store, node_id = _node(src)
    res = apply(store, transition(node_id, dst, reason="checked", issued_at=at(1)))
    node = store.get_node(node_id)
    assert node is not None
    if (src, dst) in EPISTEMIC_ALLOWED:
        assert res.status == "applied"
        op = res.operations[0]
        assert op.op_type is OpType.EPISTEMIC_TRANSITION
        assert op.payload["from_type"] == src.value and op.payload["to_type"] == dst.value
        assert op.payload["trigger_type"] == "user_correction" and op.payload["triggered_by"] == "alice"
        assert node.epistemic_type is dst and node.version == 2
    else:
        assert res.status == "rejected"
        assert res.outcome.error_code == "invalid_epistemic_transition"
        with pytest.raises(InvalidEpistemicTransition):
            res.raise_for_error()
        assert node.epistemic_type is src and node.version == 1


def test_deprecated_is_terminal_for_types_and_lifecycle() -> None:
    store, node_id = _node(E.ASSERTED)
    assert apply(store, deprecate(node_id, issued_at=at(1))).status == "applied"
    node = store.get_node(node_id)
    assert node is not None
    assert node.epistemic_type is E.DEPRECATED and node.lifecycle is L.DEPRECATED
    for target in (E.ASSERTED, E.OBSERVED, E.UNVERIFIED):
        res = apply(store, transition(node_id, target, issued_at=at(2)))
        assert res.outcome.error_code == "invalid_epistemic_transition"
    res = apply(store, promote(node_id, issued_at=at(2)))
    assert res.outcome.error_code == "invalid_lifecycle_transition"
    with pytest.raises(InvalidLifecycleTransition):
        res.raise_for_error()


def test_transition_to_deprecated_leaves_active_set() -> None:
    store, node_id = _node(E.HYPOTHETICAL)
    res = apply(store, transition(node_id, E.DEPRECATED, issued_at=at(1)))
    assert res.status == "applied"
    node = store.get_node(node_id)
    assert node is not None
    assert node.lifecycle is L.DEPRECATED
    assert res.operations[0].payload["to_lifecycle"] == "DEPRECATED"
