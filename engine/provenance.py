"""Provenance of one node from the event and operation logs alone (RFC-0003 §9).

Never reads derived tables: the node is the latest ``after`` snapshot in the
log, so the answer is as trustworthy as the (checksummed) log itself. Answers
the five questions: why believed (evidence events), who asserted it, what kind
of knowledge, has it been challenged, how it changed.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, JsonValue

from schemas.canonical import iso, to_utc
from schemas.common import ActorRef
from schemas.enums import EdgeType, EpistemicType, OpType, TargetType
from schemas.errors import ValidationFailed
from schemas.events import ConversationEvent
from schemas.nodes import Edge, MemoryNode
from schemas.operations import Operation


class ProvenanceOperation(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    op_type: OpType
    target_id: str
    target_type: TargetType
    payload: dict[str, JsonValue]
    actor_id: str
    actor_type: str
    namespace_id: str
    created_at: datetime
    policy_version: str


class NodeProvenance(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = 1
    node: MemoryNode
    asserted_by: ActorRef
    epistemic_type: EpistemicType
    evidence_events: list[dict[str, JsonValue]]
    missing_evidence_refs: list[str]
    challenged: bool
    contradiction_edges: list[Edge]
    epistemic_history: list[ProvenanceOperation]
    operations: list[ProvenanceOperation]
    next_operation_cursor: str | None = None


def encode_cursor(created_at: datetime, op_id: str) -> str:
    raw = json.dumps([iso(created_at), op_id], separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        value = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
        if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)):
            raise ValueError("shape")
        return to_utc(datetime.fromisoformat(value[0].replace("Z", "+00:00"))), value[1]
    except (ValueError, binascii.Error, UnicodeError):
        raise ValidationFailed("operation cursor is not valid", code="invalid_cursor") from None


def _view(op: Operation) -> ProvenanceOperation:
    return ProvenanceOperation(
        id=op.op_id,
        op_type=op.op_type,
        target_id=op.target_id,
        target_type=op.target_type,
        payload=op.payload,
        actor_id=op.actor.actor_id,
        actor_type=op.actor.actor_type.value,
        namespace_id=op.scope_key,
        created_at=op.occurred_at,
        policy_version=op.policy_version,
    )


def _changes_epistemic_state(op: Operation) -> bool:
    """Question 5 ("how has it changed?"): every EPISTEMIC_TRANSITION, plus any other record that
    changed the type. A manual deprecation is journaled as LIFECYCLE_CHANGED (PRME-FACTS §1.5) yet
    moves the type to DEPRECATED; leaving it out would show a DEPRECATED node with no history.
    """
    if op.op_type is OpType.EPISTEMIC_TRANSITION:
        return True
    return op.before is not None and op.after is not None and op.before.epistemic_type is not op.after.epistemic_type


def _event_dict(event: ConversationEvent | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(event, ConversationEvent):
        return event.model_dump(mode="json")
    return dict(event)


def get_provenance(
    node_id: str,
    owner_id: str,
    events: Iterable[ConversationEvent | Mapping[str, Any]],
    operations: Iterable[Operation],
    *,
    tenant_id: str | None = None,
    operation_cursor: str | None = None,
    operation_limit: int = 100,
) -> NodeProvenance | None:
    """None when the node is unknown or belongs to another owner (no existence leak)."""
    if not 1 <= operation_limit <= 1000:
        raise ValidationFailed("operation_limit must be between 1 and 1000", code="invalid_limit")
    after_key = decode_cursor(operation_cursor) if operation_cursor else None
    ops = list(operations)

    node: MemoryNode | None = None
    owners: dict[str, tuple[str, str]] = {}
    for op in ops:
        for snap in (op.before, op.after):
            if snap is not None:
                owners[snap.node_id] = (snap.tenant_id, snap.owner_id)
        if op.after is not None and op.after.node_id == node_id and (node is None or op.after.version >= node.version):
            node = op.after
    if node is None or node.owner_id != owner_id or (tenant_id is not None and node.tenant_id != tenant_id):
        return None
    me = (node.tenant_id, node.owner_id)

    edges: dict[str, Edge] = {}
    related: list[Operation] = []
    for op in ops:
        if (op.tenant_id, op.owner_id) != me:
            continue
        touches_edge = op.edge is not None and node_id in (op.edge.source_id, op.edge.target_id)
        if op.target_id == node_id or touches_edge:
            related.append(op)
        if touches_edge and op.edge is not None and op.edge.edge_type is EdgeType.CONTRADICTS:
            edges[op.edge.edge_id] = op.edge
    related.sort(key=lambda o: (o.occurred_at, o.op_id))

    visible_edges = [
        e
        for e in edges.values()
        if (e.tenant_id, e.owner_id) == me
        and owners.get(e.target_id if e.source_id == node_id else e.source_id) == me
    ]
    page_source = [o for o in related if after_key is None or (o.occurred_at, o.op_id) > after_key]
    page = page_source[:operation_limit]
    cursor = encode_cursor(page[-1].occurred_at, page[-1].op_id) if len(page_source) > operation_limit else None

    by_id = {str(e.get("event_id")): e for e in map(_event_dict, events)}
    evidence: list[dict[str, Any]] = []
    missing: list[str] = []
    for ref in node.evidence_refs:
        event = by_id.get(ref)
        if event is None or event.get("owner_id") != node.owner_id or event.get("tenant_id") != node.tenant_id:
            missing.append(ref)
        else:
            evidence.append(event)

    history = [_view(o) for o in related if o.target_id == node_id and _changes_epistemic_state(o)]
    challenged = bool(visible_edges) or any(o.op_type is OpType.CONTRADICTION_NOTED for o in related)
    return NodeProvenance(
        node=node,
        asserted_by=node.asserted_by,
        epistemic_type=node.epistemic_type,
        evidence_events=evidence,
        missing_evidence_refs=missing,
        challenged=challenged,
        contradiction_edges=sorted(visible_edges, key=lambda e: e.edge_id),
        epistemic_history=history,
        operations=[_view(o) for o in page],
        next_operation_cursor=cursor,
    )
