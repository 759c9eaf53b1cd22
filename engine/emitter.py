"""Builds, seals and folds the operations of one input.

Every operation is folded into the store the moment it is emitted, through
``StateStore.apply_operation`` — the same call replay uses — so later steps of
the same input see earlier ones and no second write path exists.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from engine.canonical_fast import fast_derive_id, seal_operation
from engine.snapshots import construct
from engine.store import StateStore
from schemas.common import ActorRef, ScopeRef
from schemas.enums import EdgeType, OpType, TargetType
from schemas.nodes import Edge, MemoryNode
from schemas.operations import Operation


class Emitter:
    def __init__(
        self,
        store: StateStore,
        *,
        input_id: str,
        scope: ScopeRef,
        occurred_at: datetime,
        request_id: str | None = None,
        request_fingerprint: str | None = None,
    ) -> None:
        self.store = store
        self.input_id = input_id
        self.scope = scope
        self.occurred_at = occurred_at
        self.request_id = request_id
        self.request_fingerprint = request_fingerprint
        self.ops: list[Operation] = []
        self._edges = 0

    def emit(
        self,
        op_type: OpType,
        target_id: str,
        actor: ActorRef,
        payload: dict[str, Any],
        *,
        policy_version: str,
        before: MemoryNode | None = None,
        after: MemoryNode | None = None,
        edge: Edge | None = None,
        target_type: TargetType = TargetType.NODE,
        evidence_ids: tuple[str, ...] = (),
        payload_text: bytes | None = None,
        scope: ScopeRef | None = None,
    ) -> Operation:
        """Seal and fold one operation; ``payload_text`` is ``payload``'s canonical bytes if known.

        ``scope`` is the input's unless given: an erasure changes claims of every owner it reaches, and
        each such operation belongs to its claim's owner and scope (where provenance reads it).
        """
        index = len(self.ops)
        if self.request_fingerprint is not None:
            payload = {**payload, "request_fingerprint": self.request_fingerprint}
            payload_text = None
        scope = self.scope if scope is None else scope
        op = seal_operation(
            {
                "tenant_id": scope.tenant_id,
                "owner_id": scope.owner_id,
                "scope": scope.scope,
                "scope_id": scope.scope_id,
                "schema_version": 1,
                "op_id": fast_derive_id(self.input_id, index),
                "op_type": op_type,
                "op_index": index,
                "target_id": target_id,
                "target_type": target_type,
                "actor": actor,
                "payload": payload,
                "before": before,
                "after": after,
                "edge": edge,
                "evidence_ids": evidence_ids,
                "request_id": self.request_id,
                "caused_by": self.input_id,
                "occurred_at": self.occurred_at,
                "policy_version": policy_version,
                "checksum": "",
            },
            payload_text,
        )
        self.store.apply_operation(op)
        self.ops.append(op)
        return op

    def new_edge(
        self,
        edge_type: EdgeType,
        source_id: str,
        target_id: str,
        actor: ActorRef,
        *,
        at: datetime,
        valid_from: datetime,
        provenance_event_id: str | None = None,
        relation_label: str | None = None,
    ) -> Edge:
        edge_id = fast_derive_id(self.input_id, "edge", self._edges)
        self._edges += 1
        scope = self.scope
        return construct(
            Edge,
            {
                "tenant_id": scope.tenant_id,
                "owner_id": scope.owner_id,
                "scope": scope.scope,
                "scope_id": scope.scope_id,
                "schema_version": 1,
                "edge_id": edge_id,
                "edge_type": edge_type,
                "source_id": source_id,
                "target_id": target_id,
                "created_at": at,
                "created_by": actor,
                "confidence": 1.0,
                "valid_from": valid_from,
                "valid_to": None,
                "active": True,
                "provenance_event_id": provenance_event_id,
                "relation_label": relation_label,
                "metadata": {},
            }
        )
