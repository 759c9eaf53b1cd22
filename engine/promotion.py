"""Automatic TENTATIVE → STABLE promotion (PRME-FACTS §1.5), as a pure function.

The reducer never reads a clock, so the runner asks "what is due as of T?" with
an explicit time and folds the returned operations. Operation ids derive from
the node id and version, so asking twice before folding yields the same records.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from engine.canonical_fast import fast_derive_id, seal_operation
from engine.config import DEFAULT_CONFIG, EngineConfig
from engine.store import StateStore
from schemas.canonical import to_utc
from schemas.common import ActorRef
from schemas.enums import ActorType, EpistemicType, LifecycleState, OpType, TargetType
from schemas.nodes import MemoryNode
from schemas.operations import Operation

PROMOTION_ACTOR = ActorRef(actor_id="engine:auto_promotion", actor_type=ActorType.SYSTEM_PROCESS)


def is_due(node: MemoryNode, as_of: datetime, config: EngineConfig = DEFAULT_CONFIG) -> bool:
    """Old enough and cited enough; a flagged re-assertion needs an explicit promote."""
    return (
        node.lifecycle is LifecycleState.TENTATIVE
        and node.epistemic_type is not EpistemicType.DEPRECATED
        and node.previously_rejected is None
        and len(node.evidence_refs) >= config.auto_promotion_min_evidence
        and to_utc(as_of) - node.created_at >= timedelta(days=config.auto_promotion_age_days)
    )


def due_promotions(store: StateStore, as_of: datetime, config: EngineConfig = DEFAULT_CONFIG) -> list[Operation]:
    at = to_utc(as_of)
    ops: list[Operation] = []
    for node in sorted(store.iter_nodes(), key=lambda n: n.node_id):
        if not is_due(node, at, config):
            continue
        caused_by = f"auto_promotion:{node.node_id}:{node.version}"
        changes = {"lifecycle": LifecycleState.STABLE, "version": node.version + 1}
        after = node.model_copy(update={**changes, "updated_at": max(at, node.updated_at)})
        ops.append(
            seal_operation(
                {
                    "tenant_id": node.tenant_id,
                    "owner_id": node.owner_id,
                    "scope": node.scope,
                    "scope_id": node.scope_id,
                    "schema_version": 1,
                    "op_id": fast_derive_id(caused_by, 0),
                    "op_type": OpType.LIFECYCLE_CHANGED,
                    "op_index": 0,
                    "target_id": node.node_id,
                    "target_type": TargetType.NODE,
                    "actor": PROMOTION_ACTOR,
                    "payload": {
                        "policy": config.lifecycle_policy,
                        "from": LifecycleState.TENTATIVE.value,
                        "to": LifecycleState.STABLE.value,
                        "reason": "auto_promotion",
                        "trigger": "policy",
                        "age_days": (at - node.created_at).total_seconds() / 86400.0,
                        "evidence_count": len(node.evidence_refs),
                    },
                    "before": node,
                    "after": after,
                    "edge": None,
                    "evidence_ids": node.evidence_refs,
                    "request_id": None,
                    "caused_by": caused_by,
                    "occurred_at": at,
                    "policy_version": config.lifecycle_policy,
                    "checksum": "",
                }
            )
        )
    return ops


def apply_due_promotions(
    store: StateStore, as_of: datetime, config: EngineConfig = DEFAULT_CONFIG
) -> list[Operation]:
    ops = due_promotions(store, as_of, config)
    for op in ops:
        store.apply_operation(op)
    return ops
