"""Read-time ("virtual") decay of confidence, PRME-FACTS §7.

Nothing is stored: the label shows what a node's confidence has decayed to at
the request's reference time, so two requests with the same reference time see
the same value whatever the wall clock says.
"""

from __future__ import annotations

import math
from datetime import datetime

from schemas.enums import ACTIVE_LIFECYCLE_STATES, DecayProfile, EpistemicType, NodeType
from schemas.nodes import MemoryNode

LAMBDA_PER_DAY: dict[DecayProfile, float] = {
    DecayProfile.PERMANENT: 0.0,
    DecayProfile.SLOW: 0.005,
    DecayProfile.MEDIUM: 0.020,
    DecayProfile.FAST: 0.070,
    DecayProfile.RAPID: 0.200,
}
MU_MULTIPLIER = 0.5
OBSERVED_GRACE_DAYS = 180.0


def _days(later: datetime, earlier: datetime) -> float:
    return max(0.0, (later - earlier).total_seconds() / 86400.0)


def effective_confidence(node: MemoryNode, reference_time: datetime) -> float:
    """confidence × e^(−μt) with μ = 0.5·λ; exemptions as §7 lists them."""
    if (
        node.lifecycle not in ACTIVE_LIFECYCLE_STATES
        or node.node_type is NodeType.EVENT
        or node.salience >= 1.0
        or node.decay_profile is DecayProfile.PERMANENT
    ):
        return node.confidence
    t = _days(reference_time, node.last_reinforced_at)
    if node.epistemic_type is EpistemicType.OBSERVED and t <= OBSERVED_GRACE_DAYS:
        return node.confidence
    mu = MU_MULTIPLIER * LAMBDA_PER_DAY[node.decay_profile]
    return min(1.0, max(0.0, node.confidence * math.exp(-mu * t)))
