"""Which world-view collection a live claim belongs to (TRUST-FACTS §4): stale, proposal, or neither.

Rules of the epistemic model, not of presentation: the world view (``retrieval.world``) sorts claims
by them, and anything else that asks "is this current?" or "is this only proposed?" must get the
same answer, so they are written once, here.
"""

from __future__ import annotations

from datetime import datetime

from engine.config import DEFAULT_CONFIG, EngineConfig
from engine.filters import condition_state_of, is_expired
from engine.trust import evidence_kind_of
from schemas.enums import ConditionState, EpistemicType, EvidenceKind, SourceType
from schemas.nodes import MemoryNode


def stale_reason(node: MemoryNode, ref: datetime, config: EngineConfig = DEFAULT_CONFIG) -> str | None:
    """Why a live claim no longer describes the present: its validity or its condition ended, its
    explicit expiry passed, or it outlived its node type's TTL (PRME-FACTS §1.4: a task untouched for
    90 days is not a current task).

    An explicit ``expires_at`` (from the source, or a revalidation) holds through that instant and is
    stale after it (``expired``, TRUST-FACTS §4); it replaces the node type's TTL, which is only the
    default lifetime of claims that say nothing of theirs.
    """
    if node.valid_to is not None and node.valid_to <= ref:
        return "validity_ended"
    if node.expires_at is not None:
        if is_expired(node, ref):
            return "expired"
    else:
        expiry = config.expires_at(node.node_type, node.last_reinforced_at)
        if expiry is not None and expiry <= ref:
            return "ttl_expired"
    if node.epistemic_type is EpistemicType.CONDITIONAL:
        state = condition_state_of(node)
        if state in (ConditionState.EXPIRED, ConditionState.FALSE):
            return f"condition:{state.value}"
    return None


def proposal_reason(node: MemoryNode) -> str | None:
    """Why a live, current claim is only proposed; None for an authoritative one."""
    if node.epistemic_type is EpistemicType.INFERRED:
        return "inferred"
    if node.epistemic_type is EpistemicType.HYPOTHETICAL:
        return "hypothetical"
    if node.epistemic_type is EpistemicType.CONDITIONAL and condition_state_of(node) is not ConditionState.TRUE:
        return "condition:UNKNOWN"
    if node.epistemic_type is EpistemicType.UNVERIFIED:
        return "unverified"
    if node.source_type is SourceType.SYSTEM_INFERRED:
        return "model_derived"
    if evidence_kind_of(node) is EvidenceKind.MODEL_SUGGESTION:
        # TRUST-FACTS §2: a model's words stay a proposal, even when their value matches a fact.
        return "model_suggestion"
    return None
