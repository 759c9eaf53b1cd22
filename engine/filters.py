"""DEFAULT-mode epistemic eligibility (PRME-FACTS §4), shared by assertion state and retrieval.

Returns the exclusion reasons in the exact wire spelling, so a filtered record
always says why.
"""

from __future__ import annotations

from datetime import datetime

from engine.config import DEFAULT_CONFIG, EngineConfig
from schemas.enums import ACTIVE_LIFECYCLE_STATES, ConditionState, EpistemicType
from schemas.nodes import MemoryNode


def condition_state_of(node: MemoryNode) -> ConditionState:
    """The node field wins; else ``metadata.condition_state``; missing or unrecognised counts as UNKNOWN."""
    if node.condition_state is not None:
        return node.condition_state
    raw = node.metadata.get("condition_state")
    if isinstance(raw, str):
        try:
            return ConditionState(raw)
        except ValueError:
            return ConditionState.UNKNOWN
    return ConditionState.UNKNOWN


def epistemic_exclusion(node: MemoryNode, threshold: float = DEFAULT_CONFIG.unverified_threshold) -> str | None:
    """Why DEFAULT mode leaves ``node`` out because of how it is known; None when it may be shown.

    The one definition of the rule: retrieval (with its lifecycle filter) and
    assertion state both call it.
    """
    et = node.epistemic_type
    if et in (EpistemicType.HYPOTHETICAL, EpistemicType.DEPRECATED):
        return f"epistemic_filtered:{et.value.lower()}"
    if et is EpistemicType.CONDITIONAL:
        state = condition_state_of(node)
        if state is not ConditionState.TRUE:
            return f"condition_filtered:{state.value.lower()}"
    if et is EpistemicType.UNVERIFIED and node.confidence <= threshold:
        return f"unverified_below_threshold:{node.confidence:g}<={threshold:g}"
    return None


def lifecycle_exclusion(node: MemoryNode) -> str | None:
    if node.lifecycle not in ACTIVE_LIFECYCLE_STATES:
        return f"lifecycle_not_active:{node.lifecycle.value.lower()}"
    return None


def is_expired(node: MemoryNode, at: datetime) -> bool:
    """The claim's explicit expiry has passed at ``at`` (TRUST-FACTS §4): it is current at its
    ``expires_at`` itself and stale after; a claim without one never expires this way."""
    return node.expires_at is not None and node.expires_at < at


def in_validity_window(node: MemoryNode, valid_at: datetime) -> bool:
    return node.valid_from <= valid_at and (node.valid_to is None or valid_at < node.valid_to)


def exclusion_reasons(node: MemoryNode, valid_at: datetime, config: EngineConfig = DEFAULT_CONFIG) -> list[str]:
    reasons: list[str] = []
    if not in_validity_window(node, valid_at):
        reasons.append("outside_validity_window")
    if is_expired(node, valid_at):
        reasons.append("expired")
    lifecycle = lifecycle_exclusion(node)
    if lifecycle:
        reasons.append(lifecycle)
    if node.superseded_by is not None:
        reasons.append("superseded_pointer")
    epistemic = epistemic_exclusion(node, config.unverified_threshold)
    if epistemic:
        reasons.append(epistemic)
    return reasons
