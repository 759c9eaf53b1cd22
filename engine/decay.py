"""Virtual decay (PRME-FACTS §7): effective values computed at read time.

Nothing is stored or journaled, so reads at the same reference time always
agree and no catch-up job exists.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from engine.config import DEFAULT_CONFIG, EngineConfig
from schemas.canonical import to_utc
from schemas.enums import ACTIVE_LIFECYCLE_STATES, DecayProfile, EpistemicType, NodeType
from schemas.nodes import MemoryNode


@dataclass(frozen=True, slots=True)
class Effective:
    confidence: float
    salience: float
    days: float
    decays: bool


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, value))


def effective(
    node: MemoryNode, at: datetime, config: EngineConfig = DEFAULT_CONFIG, *, reinforcement_boost: float = 0.0
) -> Effective:
    """Confidence and salience of ``node`` as seen at ``at``.

    Only active nodes decay; pinned (salience 1.0) and PERMANENT nodes do not.
    OBSERVED confidence is exempt for the first 180 days and then decays from
    that point on (no jump at day 180).
    """
    days = max(0.0, (to_utc(at) - node.last_reinforced_at).total_seconds() / 86400.0)
    exempt = (
        node.lifecycle not in ACTIVE_LIFECYCLE_STATES
        or node.node_type is NodeType.EVENT  # events never decay (RFC-0007)
        or node.epistemic_type is EpistemicType.DEPRECATED
        or node.decay_profile is DecayProfile.PERMANENT
        or node.salience >= 1.0
    )
    if exempt:
        return Effective(node.confidence, node.salience, days, False)
    lam = config.decay_lambda.get(node.decay_profile, 0.0)
    mu = config.confidence_decay_mu_multiplier * lam
    salience = node.salience * math.exp(-lam * days) + reinforcement_boost * math.exp(-config.boost_decay_rho * days)
    conf_days = days
    if node.epistemic_type is EpistemicType.OBSERVED:
        conf_days = max(0.0, days - config.observed_confidence_grace_days)
    confidence = node.confidence * math.exp(-mu * conf_days)
    return Effective(_clamp(confidence), _clamp(salience), days, True)
