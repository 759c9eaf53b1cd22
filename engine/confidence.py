"""Confidence evolution (RFC-0008): pure arithmetic on numbers, no nodes.

Split from the reducer so the benchmark and the property tests exercise exactly
the formulas the reducer journals.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.config import EngineConfig
from schemas.enums import EpistemicType, SignalType


class ReinforceStep(NamedTuple):
    """One positive signal's arithmetic (a tuple: built once per reinforcement on the hot path)."""

    gamma: float
    gamma_effective: float
    repeat_index: int
    correlation_discount_applied: bool
    independence: str
    session_gamma_total: float
    cap_truncated: bool
    ceiling: float
    confidence_before: float
    confidence_after: float
    salience_before: float
    salience_after: float


class PenaltyStep(NamedTuple):
    """One negative signal's arithmetic."""

    delta: float
    floor: float | None
    confidence_before: float
    confidence_after: float
    salience_before: float
    salience_after: float


def reinforce_step(
    config: EngineConfig,
    *,
    epistemic_type: EpistemicType,
    signal: SignalType,
    confidence: float,
    salience: float,
    previous_repeats: int,
    session_gamma_used: float,
    evidence_overlap: bool | None,
) -> ReinforceStep:
    """One positive signal.

    Order: 1/n for the n-th identical signal from the same actor, then the
    correlation discount (``evidence_overlap`` None = provenance unknown), then the
    per-session cap on the total γ, then the asymptotic update clamped to the
    type and global ceilings. A value already above its ceiling is never lowered.
    """
    gamma = config.signal_weights.get(signal, 0.0)
    n = previous_repeats + 1
    effective = gamma / n
    if evidence_overlap is None:
        discount = config.discount_unknown_provenance
        independence = "unknown"
    else:
        discount = evidence_overlap
        independence = "overlapping" if evidence_overlap else "independent"
    if discount:
        effective *= config.correlation_discount
    remaining = max(0.0, config.session_gamma_cap - session_gamma_used)
    cap_truncated = effective > remaining
    effective = min(effective, remaining)
    ceiling = config.ceiling(epistemic_type)
    grown = min(confidence + effective * (1.0 - confidence), ceiling)
    new_confidence = confidence if confidence >= ceiling else grown
    new_salience = min(1.0, salience + 0.5 * effective * (1.0 - salience))
    return ReinforceStep(
        gamma, effective, n, discount, independence, session_gamma_used + effective, cap_truncated, ceiling,
        confidence, new_confidence, salience, new_salience,
    )


def penalty_step(
    config: EngineConfig, *, delta: float, confidence: float, salience: float, corrected: bool
) -> PenaltyStep:
    """Multiplicative penalty; after CORRECTED, at least max(0.05, c·(1−δ)).

    A penalty never raises confidence, so a value already under the floor stays.
    """
    new_confidence = confidence * (1.0 - delta)
    floor: float | None = None
    if corrected:
        floor = max(config.corrected_floor, confidence * (1.0 - delta))
        new_confidence = min(confidence, max(new_confidence, floor))
    new_confidence = max(new_confidence, min(confidence, config.min_confidence))
    new_salience = salience * (1.0 - 0.3 * delta)
    return PenaltyStep(
        delta=delta,
        floor=floor,
        confidence_before=confidence,
        confidence_after=new_confidence,
        salience_before=salience,
        salience_after=new_salience,
    )


class UsefulnessStep(NamedTuple):
    """A retrieval-feedback signal's arithmetic: salience moves, confidence does not (TRUST-FACTS §1)."""

    weight: float
    weight_effective: float
    repeat_index: int
    salience_before: float
    salience_after: float


def usefulness_step(
    config: EngineConfig, *, signal: SignalType, positive: bool, salience: float, previous_repeats: int
) -> UsefulnessStep:
    """REFERENCED raises salience as a reinforcement would, IGNORED_REPEATEDLY lowers it as a penalty
    would, with the signal's weight (1/n for the n-th identical signal from one actor); the numbers
    are RFC-0008's, applied to usefulness only."""
    weight = config.signal_weights.get(signal, 0.0)
    n = previous_repeats + 1
    effective = weight / n
    after = min(1.0, salience + 0.5 * effective * (1.0 - salience)) if positive else salience * (1.0 - 0.3 * effective)
    return UsefulnessStep(weight, effective, n, salience, after)
