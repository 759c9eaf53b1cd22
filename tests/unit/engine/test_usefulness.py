"""Usefulness is not truth (TRUST-FACTS §1, issue #29; a refinement of RFC-0008 §4).

REFERENCED and IGNORED_REPEATEDLY say a claim was useful to a retrieval or not, never whether it
is true: under engine_v2 they move salience only. Confidence, epistemic type, evidence and the
decay clock stay; the operation journals both tracks.
"""

from __future__ import annotations

import pytest
from engine_factories import AGENT, at, claim, extraction, new_store, penalize, reinforce
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config import DEFAULT_CONFIG, ENGINE_V1
from engine.reducer import Reducer
from engine.store import InMemoryStateStore
from schemas.enums import EpistemicType, OpType, SignalType
from schemas.nodes import MemoryNode


def _setup(reducer: Reducer | None = None) -> tuple[Reducer, InMemoryStateStore, str]:
    reducer = reducer or Reducer()
    store = new_store()
    res = reducer.apply(store, extraction(claim("user", "uses", "vim"), event_id="ev-vim"))
    return reducer, store, res.outcome.created_node_ids[0]


def _node(store: InMemoryStateStore, node_id: str) -> MemoryNode:
    node = store.get_node(node_id)
    assert node is not None
    return node


def test_the_usefulness_signals_are_policy_data() -> None:
    assert DEFAULT_CONFIG.usefulness_signals == {SignalType.REFERENCED, SignalType.IGNORED_REPEATEDLY}
    assert ENGINE_V1.usefulness_signals == frozenset()


def test_referenced_raises_salience_and_leaves_truth_alone() -> None:
    reducer, store, node_id = _setup()
    before = _node(store, node_id)
    res = reducer.apply(store, reinforce(node_id, SignalType.REFERENCED, actor=AGENT, evidence_ids=("ev-vim",),
                                         issued_at=at(3)))  # fmt: skip
    assert res.status == "applied"
    [op] = res.operations
    assert op.op_type is OpType.REINFORCE and op.policy_version == "engine_v4"
    assert op.payload["track"] == "usefulness" and op.payload["gamma"] == 0.08
    assert (op.payload["confidence_before"], op.payload["confidence_after"]) == (0.80, 0.80)
    assert (op.payload["salience_before"], op.payload["salience_after"]) == (0.5, pytest.approx(0.52))
    after = _node(store, node_id)
    assert (after.confidence, after.epistemic_type) == (0.80, EpistemicType.ASSERTED)
    assert after.salience == pytest.approx(0.52)
    # the decay clock, the evidence and the reinforcement count are truth's, not usefulness'
    assert after.last_reinforced_at == before.last_reinforced_at and after.reinforcement_count == 0
    assert after.evidence_refs == ("ev-vim",) and after.version == 2


def test_ignored_repeatedly_lowers_salience_and_leaves_truth_alone() -> None:
    reducer, store, node_id = _setup()
    res = reducer.apply(store, penalize(node_id, SignalType.IGNORED_REPEATEDLY, issued_at=at(1)))
    [op] = res.operations
    assert op.op_type is OpType.PENALTY and op.payload["track"] == "usefulness" and op.payload["delta"] == 0.05
    node = _node(store, node_id)
    assert node.confidence == 0.80 and node.salience == pytest.approx(0.5 * (1 - 0.3 * 0.05))


def test_repeated_references_count_once_per_actor_as_before() -> None:
    reducer, store, node_id = _setup()
    saliences = []
    for i in range(3):
        reducer.apply(store, reinforce(node_id, SignalType.REFERENCED, session_id=f"s{i}", issued_at=at(1 + i)))
        saliences.append(_node(store, node_id).salience)
    # γ/n for the n-th identical signal from one actor: 0.08, 0.04, 0.0266…
    expected, s = [], 0.5
    for n in (1, 2, 3):
        s = s + 0.5 * (0.08 / n) * (1 - s)
        expected.append(s)
    assert saliences == pytest.approx(expected)
    assert _node(store, node_id).confidence == 0.80


def test_evidence_bearing_signals_still_move_confidence() -> None:
    reducer, store, node_id = _setup()
    reducer.apply(store, reinforce(node_id, SignalType.CONFIRMED, evidence_ids=(), issued_at=at(1)))
    assert _node(store, node_id).confidence > 0.80
    reducer.apply(store, penalize(node_id, SignalType.CORRECTED, issued_at=at(2)))
    assert _node(store, node_id).confidence < 0.80


def test_engine_v1_logs_keep_rfc_0008_as_written() -> None:
    reducer, store, node_id = _setup(Reducer(ENGINE_V1))
    res = reducer.apply(store, reinforce(node_id, SignalType.REFERENCED, issued_at=at(1)))
    assert "track" not in res.operations[0].payload and _node(store, node_id).confidence > 0.80


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([SignalType.REFERENCED, SignalType.IGNORED_REPEATEDLY]),
                          st.integers(0, 3)), min_size=1, max_size=40))  # fmt: skip
def test_no_sequence_of_retrieval_feedback_changes_truth(signals: list[tuple[SignalType, int]]) -> None:
    reducer, store, node_id = _setup()
    for i, (signal, actor) in enumerate(signals):
        make = reinforce if signal is SignalType.REFERENCED else penalize
        res = reducer.apply(store, make(node_id, signal, session_id=f"s{actor}", issued_at=at(1 + i)))
        assert res.status == "applied"
    node = _node(store, node_id)
    assert (node.confidence, node.epistemic_type, node.lifecycle.value) == (0.80, EpistemicType.ASSERTED, "TENTATIVE")
    assert 0.0 <= node.salience <= 1.0
