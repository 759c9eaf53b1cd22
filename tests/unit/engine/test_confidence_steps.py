"""The confidence arithmetic at its edges (engine.confidence), found by mutation testing.

Each test pins a boundary a one-character change would move: a signal the configuration gives no
weight, the session cap reached exactly, salience bounded by 1 whatever the weight.
"""

from __future__ import annotations

from engine.confidence import ReinforceStep, reinforce_step
from engine.config import EngineConfig
from schemas.enums import EpistemicType, SignalType


def _step(config: EngineConfig, signal: SignalType = SignalType.CONFIRMED, **kw: object) -> ReinforceStep:
    args: dict[str, object] = {
        "epistemic_type": EpistemicType.ASSERTED,
        "signal": signal,
        "confidence": 0.5,
        "salience": 0.5,
        "previous_repeats": 0,
        "session_gamma_used": 0.0,
        "evidence_overlap": False,
    }
    args.update(kw)
    return reinforce_step(config, **args)  # type: ignore[arg-type]


def test_a_signal_the_configuration_gives_no_weight_changes_nothing() -> None:
    config = EngineConfig(signal_weights={SignalType.CONFIRMED: 0.15})
    step = _step(config, SignalType.REFERENCED)
    assert step.gamma == 0.0
    assert step.gamma_effective == 0.0
    assert step.confidence_after == 0.5
    assert step.salience_after == 0.5


def test_reaching_the_session_cap_exactly_is_not_a_truncation() -> None:
    config = EngineConfig(signal_weights={SignalType.CONFIRMED: 0.25}, session_gamma_cap=0.5)
    exact = _step(config, session_gamma_used=0.25)
    assert exact.gamma_effective == 0.25
    assert exact.cap_truncated is False
    assert exact.session_gamma_total == 0.5
    over = _step(config, session_gamma_used=0.375)
    assert over.gamma_effective == 0.125
    assert over.cap_truncated is True


def test_salience_never_exceeds_one_even_with_an_out_of_range_weight() -> None:
    config = EngineConfig(signal_weights={SignalType.CONFIRMED: 3.0}, session_gamma_cap=5.0)
    step = _step(config)
    assert step.gamma_effective == 3.0
    assert step.salience_after == 1.0
    assert step.confidence_after == 0.92  # ASSERTED's ceiling
