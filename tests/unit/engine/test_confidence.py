"""Confidence evolution (RFC-0008) through the reducer, one rule per test."""

from __future__ import annotations

import math

import pytest
from engine_factories import AGENT, at, claim, extraction, new_store, penalize, reinforce

from engine.config import ENGINE_V1, EngineConfig
from engine.reducer import Reducer
from engine.store import InMemoryStateStore
from schemas.common import ActorRef
from schemas.enums import ActorType, EpistemicType, OpType, SignalType

E = EpistemicType
#: RFC-0008 §4 signal weights, restated.
GAMMA = {
    SignalType.REFERENCED: 0.08,
    SignalType.CONFIRMED: 0.15,
    SignalType.TASK_COMPLETED_WITH: 0.12,
    SignalType.CORROBORATED_BY_EXTERNAL: 0.10,
}
DELTA = {
    SignalType.CORRECTED: 0.25,
    SignalType.CONTRADICTED_BY_OBSERVATION: 0.20,
    SignalType.TASK_FAILED_WITH: 0.10,
    SignalType.IGNORED_REPEATEDLY: 0.05,
}


def _setup(
    et: EpistemicType = E.ASSERTED, config: EngineConfig | None = None, **claim_kw: object
) -> tuple[Reducer, InMemoryStateStore, str, str]:
    reducer = Reducer(config or EngineConfig())
    store = new_store()
    res = reducer.apply(store, extraction(claim(epistemic=et, **claim_kw), event_id="ev-src"))  # type: ignore[arg-type]
    return reducer, store, res.outcome.node_ids[0], "ev-src"


def _conf(store: InMemoryStateStore, node_id: str) -> float:
    node = store.get_node(node_id)
    assert node is not None
    return node.confidence


@pytest.mark.parametrize("signal", list(GAMMA))
def test_each_positive_signal_weight_with_independent_evidence(signal: SignalType) -> None:
    # REFERENCED moves confidence only under engine_v1 (RFC-0008 §4 as written; test_usefulness.py has engine_v2)
    reducer, store, node_id, _ = _setup(config=ENGINE_V1 if signal is SignalType.REFERENCED else None)
    reducer.apply(store, extraction(claim("Bob", "likes", "tea"), event_id="ev-other"))
    res = reducer.apply(store, reinforce(node_id, signal, evidence_ids=("ev-other",), issued_at=at(1)))
    assert res.status == "applied"
    assert _conf(store, node_id) == pytest.approx(0.80 + GAMMA[signal] * 0.20)
    payload = res.operations[0].payload
    assert payload["gamma"] == GAMMA[signal] and payload["gamma_effective"] == pytest.approx(GAMMA[signal])
    assert payload["correlation_discount_applied"] is False
    assert payload["salience_after"] == pytest.approx(0.5 + 0.5 * GAMMA[signal] * 0.5)


@pytest.mark.parametrize("signal", list(DELTA))
def test_each_negative_signal_weight(signal: SignalType) -> None:
    reducer, store, node_id, _ = _setup(config=ENGINE_V1 if signal is SignalType.IGNORED_REPEATEDLY else None)
    res = reducer.apply(store, penalize(node_id, signal, issued_at=at(1)))
    assert res.status == "applied"
    assert res.operations[0].op_type is OpType.PENALTY
    assert _conf(store, node_id) == pytest.approx(0.80 * (1 - DELTA[signal]))
    assert res.operations[0].payload["salience_after"] == pytest.approx(0.5 * (1 - 0.3 * DELTA[signal]))


def test_rfc_worked_example_corrected() -> None:
    cfg = EngineConfig().with_overrides({"asserted:tool_output": 0.72}, initial_salience=0.65)
    reducer, store, node_id, _ = _setup(config=cfg, source_type="TOOL_OUTPUT")
    res = reducer.apply(store, penalize(node_id, SignalType.CORRECTED, issued_at=at(1)))
    payload = res.operations[0].payload
    assert payload["confidence_before"] == pytest.approx(0.72)
    assert payload["confidence_after"] == pytest.approx(0.54)
    assert payload["salience_after"] == pytest.approx(0.601, abs=5e-4)


def test_reinforce_payload_has_every_rfc_field() -> None:
    reducer, store, node_id, _ = _setup()
    res = reducer.apply(store, reinforce(node_id, session_id="sess", signal_source="ui", issued_at=at(1)))
    payload = res.operations[0].payload
    for key in (
        "signal_type", "gamma", "gamma_effective", "correlation_discount_applied", "confidence_before",
        "confidence_after", "salience_before", "salience_after", "session_id", "session_gamma_total",
        "signal_source", "policy_version",
    ):
        assert key in payload, key
    assert payload["policy_version"] == "confidence_v1" and payload["signal_source"] == "ui"
    assert res.operations[0].policy_version == "confidence_v1"


def test_unknown_provenance_applies_discount_and_logs_it() -> None:
    reducer, store, node_id, _ = _setup()
    res = reducer.apply(store, reinforce(node_id, issued_at=at(1)))
    payload = res.operations[0].payload
    assert payload["correlation_discount_applied"] is True and payload["independence"] == "unknown"
    assert _conf(store, node_id) == pytest.approx(0.80 + 0.15 * 0.4 * 0.20)


def test_overlapping_evidence_is_discounted() -> None:
    reducer, store, node_id, src = _setup()
    res = reducer.apply(store, reinforce(node_id, evidence_ids=(src,), issued_at=at(1)))
    assert res.operations[0].payload["independence"] == "overlapping"
    assert _conf(store, node_id) == pytest.approx(0.80 + 0.15 * 0.4 * 0.20)


def test_repeated_identical_signal_from_same_actor_counts_one_over_n() -> None:
    reducer, store, node_id, _ = _setup(config=EngineConfig(discount_unknown_provenance=False))
    gammas = []
    for i in range(3):
        res = reducer.apply(store, reinforce(node_id, SignalType.REFERENCED, session_id=f"s{i}", issued_at=at(1)))
        gammas.append(res.operations[0].payload["gamma_effective"])
    assert gammas == pytest.approx([0.08, 0.04, 0.08 / 3])
    other = ActorRef(actor_id="bob", actor_type=ActorType.HUMAN_USER)
    res = reducer.apply(store, reinforce(node_id, SignalType.REFERENCED, actor=other, session_id="x", issued_at=at(1)))
    assert res.operations[0].payload["gamma_effective"] == pytest.approx(0.08)
    res = reducer.apply(store, reinforce(node_id, SignalType.CONFIRMED, session_id="y", issued_at=at(1)))
    assert res.operations[0].payload["gamma_effective"] == pytest.approx(0.15)


def test_session_cap_limits_total_gamma_per_session() -> None:
    cfg = EngineConfig(discount_unknown_provenance=False)
    reducer, store, node_id, _ = _setup(E.INFERRED, config=cfg, source_type="SYSTEM_INFERRED")
    total = 0.0
    truncated = []
    for i in range(6):
        actor = ActorRef(actor_id=f"agent{i}", actor_type=ActorType.AI_AGENT)
        res = reducer.apply(store, reinforce(node_id, actor=actor, session_id="one", issued_at=at(1)))
        total += res.operations[0].payload["gamma_effective"]
        truncated.append(res.operations[0].payload["session_cap_truncated"])
    assert total == pytest.approx(0.40)
    assert truncated == [False, False, True, True, True, True]
    node = store.get_node(node_id)
    assert node is not None and node.session_gamma["one"] == pytest.approx(0.40)
    res = reducer.apply(store, reinforce(node_id, actor=AGENT, session_id="two", issued_at=at(2)))
    assert res.operations[0].payload["gamma_effective"] == pytest.approx(0.15)


@pytest.mark.parametrize(
    ("et", "ceiling", "kw"),
    [
        (E.OBSERVED, 0.97, {}),
        (E.ASSERTED, 0.92, {}),
        (E.INFERRED, 0.85, {"source_type": "SYSTEM_INFERRED"}),
        (E.HYPOTHETICAL, 0.65, {}),
        (E.UNVERIFIED, 0.50, {"source_type": "TOOL_OUTPUT"}),
    ],
)
def test_type_ceilings(et: EpistemicType, ceiling: float, kw: dict[str, object]) -> None:
    reducer, store, node_id, _ = _setup(et, **kw)
    for i in range(80):
        actor = ActorRef(actor_id=f"a{i}", actor_type=ActorType.HUMAN_USER)
        reducer.apply(store, reinforce(node_id, actor=actor, session_id=f"s{i}", issued_at=at(1)))
    assert _conf(store, node_id) == pytest.approx(ceiling)
    assert _conf(store, node_id) <= ceiling


def test_conditional_ceiling_and_only_while_true() -> None:
    from engine_factories import evaluate

    reducer, store, node_id, _ = _setup(E.CONDITIONAL, condition="if it rains")
    res = reducer.apply(store, reinforce(node_id, issued_at=at(1)))
    assert res.outcome.error_code == "condition_not_true"
    reducer.apply(store, evaluate(node_id, "TRUE", issued_at=at(1)))
    for i in range(80):
        actor = ActorRef(actor_id=f"a{i}", actor_type=ActorType.HUMAN_USER)
        assert reducer.apply(store, reinforce(node_id, actor=actor, session_id=f"s{i}", issued_at=at(2))).ok
    assert _conf(store, node_id) == pytest.approx(0.85)


def test_global_ceiling_caps_even_a_lenient_type_ceiling() -> None:
    cfg = EngineConfig(type_ceilings={E.OBSERVED: 0.999})
    reducer, store, node_id, _ = _setup(E.OBSERVED, config=cfg)
    for i in range(100):
        actor = ActorRef(actor_id=f"a{i}", actor_type=ActorType.HUMAN_USER)
        reducer.apply(store, reinforce(node_id, actor=actor, session_id=f"s{i}", issued_at=at(1)))
    assert _conf(store, node_id) == pytest.approx(0.97)


def test_value_above_ceiling_is_never_lowered_by_reinforcement() -> None:
    cfg = EngineConfig().with_overrides({"unverified:tool_output": 0.6})
    reducer, store, node_id, _ = _setup(E.UNVERIFIED, config=cfg, source_type="TOOL_OUTPUT")
    reducer.apply(store, reinforce(node_id, issued_at=at(1)))
    assert _conf(store, node_id) == pytest.approx(0.6)


def test_corrected_floor() -> None:
    cfg = EngineConfig().with_overrides({"unverified:tool_output": 0.06})
    reducer, store, node_id, _ = _setup(E.UNVERIFIED, config=cfg, source_type="TOOL_OUTPUT")
    res = reducer.apply(store, penalize(node_id, SignalType.CORRECTED, issued_at=at(1)))
    assert res.operations[0].payload["floor"] == pytest.approx(0.05)
    assert _conf(store, node_id) == pytest.approx(0.05)
    reducer.apply(store, penalize(node_id, SignalType.CORRECTED, issued_at=at(2)))
    assert _conf(store, node_id) == pytest.approx(0.05)
    # other penalties have no floor
    reducer.apply(store, penalize(node_id, SignalType.CONTRADICTED_BY_OBSERVATION, issued_at=at(3)))
    assert _conf(store, node_id) == pytest.approx(0.04)


def test_deprecated_and_inactive_nodes_cannot_be_reinforced() -> None:
    from engine_factories import archive, deprecate

    reducer, store, node_id, _ = _setup()
    reducer.apply(store, deprecate(node_id, issued_at=at(1)))
    assert reducer.apply(store, reinforce(node_id, issued_at=at(2))).outcome.error_code == (
        "deprecated_not_reinforceable"
    )
    reducer, store, node_id, _ = _setup()
    reducer.apply(store, archive(node_id, issued_at=at(1)))
    assert reducer.apply(store, reinforce(node_id, issued_at=at(2))).outcome.error_code == "node_not_active"
    assert reducer.apply(store, penalize(node_id, issued_at=at(2))).outcome.error_code == "node_not_active"


def test_signal_kind_must_match_command() -> None:
    reducer, store, node_id, _ = _setup()
    assert reducer.apply(store, reinforce(node_id, SignalType.CORRECTED)).outcome.error_code == "signal_kind_mismatch"
    assert reducer.apply(store, penalize(node_id, SignalType.CONFIRMED)).outcome.error_code == "signal_kind_mismatch"


def test_unused_changes_nothing() -> None:
    reducer, store, node_id, _ = _setup()
    res = reducer.apply(store, reinforce(node_id, SignalType.UNUSED, issued_at=at(1)))
    node = store.get_node(node_id)
    assert node is not None
    assert node.confidence == 0.80 and node.reinforcement_count == 0 and node.version == 1
    assert res.operations[0].payload["no_change"] is True


def test_reinforcement_resets_decay_clock_and_counts() -> None:
    reducer, store, node_id, _ = _setup()
    reducer.apply(store, reinforce(node_id, issued_at=at(3)))
    node = store.get_node(node_id)
    assert node is not None
    assert node.last_reinforced_at == at(3) and node.reinforcement_count == 1 and node.version == 2
    assert math.isclose(node.salience, 0.5 + 0.5 * 0.06 * 0.5)


def test_signals_without_session_are_capped_per_utc_day() -> None:
    cfg = EngineConfig(discount_unknown_provenance=False)
    reducer, store, node_id, _ = _setup(E.INFERRED, config=cfg, source_type="SYSTEM_INFERRED")
    day_one = []
    for i in range(4):
        actor = ActorRef(actor_id=f"a{i}", actor_type=ActorType.AI_AGENT)
        res = reducer.apply(store, reinforce(node_id, actor=actor, session_id=None, issued_at=at(1, seconds=i)))
        day_one.append(res.operations[0].payload["gamma_effective"])
    assert sum(day_one) == pytest.approx(0.40)
    assert res.operations[0].payload["session_key"] == "day:2026-03-02"
    res = reducer.apply(store, reinforce(node_id, actor=AGENT, session_id=None, issued_at=at(2)))
    assert res.operations[0].payload["gamma_effective"] == pytest.approx(0.15)
