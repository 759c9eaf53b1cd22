"""Builders of valid contracts for the sink tests (imported as ``sink_factories``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from schemas.canonical import derive_id, sha256_hex
from schemas.claims import Claim, EventRef, ExtractionResult, RejectedClaim
from schemas.common import ActorRef
from schemas.enums import (
    ActorType,
    DecayProfile,
    EpistemicType,
    LifecycleState,
    NodeType,
    OpType,
    Role,
    Scope,
    SourceType,
)
from schemas.events import ConversationEvent
from schemas.nodes import MemoryNode
from schemas.operations import Operation

T0 = datetime(2026, 1, 15, 9, 30, 0, 123456, tzinfo=UTC)
USER = ActorRef(actor_id="alice", actor_type=ActorType.HUMAN_USER)


def at(days: float = 0.0, seconds: float = 0.0) -> datetime:
    return T0 + timedelta(days=days, seconds=seconds)


def make_node(node_id: str, content: str | None = None, **overrides: Any) -> MemoryNode:
    when = overrides.pop("when", T0)
    fields: dict[str, Any] = {
        "tenant_id": "t1",
        "owner_id": "alice",
        "scope": Scope.PERSONAL,
        "node_id": node_id,
        "version": 1,
        "node_type": NodeType.FACT,
        "subject": "alice",
        "predicate": "likes",
        "object": node_id,
        "content": content if content is not None else f"alice likes {node_id}",
        "epistemic_type": EpistemicType.ASSERTED,
        "source_type": SourceType.USER_STATED,
        "confidence": 0.8,
        "salience": 0.5,
        "lifecycle": LifecycleState.TENTATIVE,
        "decay_profile": DecayProfile.MEDIUM,
        "asserted_by": USER,
        "valid_from": when,
        "recorded_at": when,
        "created_at": when,
        "updated_at": when,
        "last_reinforced_at": when,
    }
    fields.update(overrides)
    return MemoryNode(**fields)


def make_event(event_id: str, content: str = "I like green tea", **overrides: Any) -> ConversationEvent:
    fields: dict[str, Any] = {
        "tenant_id": "t1",
        "owner_id": "alice",
        "scope": Scope.PERSONAL,
        "event_id": event_id,
        "conversation_id": "c1",
        "session_id": "s1",
        "role": Role.USER,
        "speaker": "alice",
        "content": content,
        "occurred_at": T0,
        "metadata": {"client": "test", "n": 1},
    }
    fields.update(overrides)
    return ConversationEvent(**fields)


def make_op(
    input_id: str,
    index: int = 0,
    *,
    op_type: OpType = OpType.ASSERT,
    when: datetime = T0,
    node: MemoryNode | None = None,
    **overrides: Any,
) -> Operation:
    """A sealed operation derived from an input id, like the reducer's."""
    target = node or make_node(derive_id("node", input_id, index), when=when)
    fields: dict[str, Any] = {
        "tenant_id": target.tenant_id,
        "owner_id": target.owner_id,
        "scope": target.scope,
        "scope_id": target.scope_id,
        "op_id": derive_id("op", input_id, index),
        "op_type": op_type,
        "op_index": index,
        "target_id": target.node_id,
        "actor": USER,
        "payload": {"confidence": target.confidence, "reason": "test"},
        "after": target,
        "caused_by": input_id,
        "occurred_at": when,
        "policy_version": "test_v1",
    }
    fields.update(overrides)
    return Operation(**fields).sealed()


def make_extraction(event: ConversationEvent, *, rejected: tuple[str, ...] = (), claims: int = 1) -> ExtractionResult:
    ref = EventRef(
        tenant_id=event.tenant_id,
        owner_id=event.owner_id,
        scope=event.scope,
        scope_id=event.scope_id,
        event_id=event.event_id,
        conversation_id=event.conversation_id,
        session_id=event.session_id,
        role=event.role,
        speaker=event.speaker,
        occurred_at=event.occurred_at,
        recorded_at=event.recorded_at,
        content_sha256=event.content_sha256,
    )
    return ExtractionResult(
        event=ref,
        extractor="rules",
        extractor_version="1",
        grounding_policy_version="g1",
        source_hash=sha256_hex(event.content),
        claims=tuple(
            Claim(
                subject="alice",
                predicate="likes",
                object=f"thing {i}",
                epistemic_type=EpistemicType.ASSERTED,
                evidence_quote=event.content,
            )
            for i in range(claims)
        ),
        rejected=tuple(RejectedClaim(reason_code=code, claim={"subject": "x"}) for code in rejected),
    )
