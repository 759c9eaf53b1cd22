"""Operation checksums: any change to a sealed record is detected."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from schemas import (
    ActorRef,
    ActorType,
    Claim,
    DecayProfile,
    EpistemicType,
    MemoryNode,
    NodeType,
    Operation,
    OpType,
    Scope,
    SourceType,
    derive_id,
    load_operation,
    verify_operation,
)
from schemas.errors import ChecksumMismatch

T0 = datetime(2026, 1, 1, tzinfo=UTC)
ACTOR = ActorRef(actor_id="alice", actor_type=ActorType.HUMAN_USER)


def _node(confidence: float = 0.8) -> MemoryNode:
    return MemoryNode(
        tenant_id="t",
        owner_id="alice",
        scope=Scope.PERSONAL,
        node_id=derive_id("event:e1", "node", 0),
        version=1,
        node_type=NodeType.FACT,
        subject="alice",
        predicate="lives_in",
        object="Berlin",
        content="I live in Berlin.",
        epistemic_type=EpistemicType.ASSERTED,
        source_type=SourceType.USER_STATED,
        confidence=confidence,
        salience=0.5,
        decay_profile=DecayProfile.MEDIUM,
        asserted_by=ACTOR,
        valid_from=T0,
        recorded_at=T0,
        created_at=T0,
        updated_at=T0,
        last_reinforced_at=T0,
    )


def _op() -> Operation:
    node = _node()
    return Operation(
        tenant_id="t",
        owner_id="alice",
        scope=Scope.PERSONAL,
        op_id=derive_id("event:e1", 1),
        op_type=OpType.ASSERT,
        op_index=1,
        target_id=node.node_id,
        actor=ACTOR,
        payload={"confidence": 0.8},
        after=node,
        evidence_ids=("e1",),
        caused_by="event:e1",
        occurred_at=T0,
        policy_version="confidence_v1",
    ).sealed()


def test_sealed_operation_verifies_and_round_trips() -> None:
    op = _op()
    assert len(op.checksum) == 64
    assert verify_operation(op) is op
    assert load_operation(op.canonical()) == op
    assert load_operation(op.model_dump(mode="json")) == op


@pytest.mark.parametrize(
    "update",
    [
        {"payload": {"confidence": 0.9}},
        {"target_id": "other"},
        {"occurred_at": datetime(2026, 1, 2, tzinfo=UTC)},
        {"after": _node(confidence=0.81)},
        {"evidence_ids": ()},
        {"op_type": OpType.PENALTY},
    ],
)
def test_tampered_record_is_rejected(update: dict[str, object]) -> None:
    tampered = _op().model_copy(update=update)
    with pytest.raises(ChecksumMismatch):
        verify_operation(tampered)


def test_tampered_json_text_is_rejected() -> None:
    text = _op().canonical().replace('"confidence":0.8', '"confidence":0.9', 1)
    with pytest.raises(ChecksumMismatch):
        load_operation(text)


def test_unsealed_record_is_rejected() -> None:
    with pytest.raises(ChecksumMismatch):
        verify_operation(_op().model_copy(update={"checksum": ""}))


def test_derived_ids_are_stable_and_distinct() -> None:
    assert derive_id("event:e1", 0) == derive_id("event:e1", 0)
    assert derive_id("event:e1", 0) != derive_id("event:e1", 1)
    assert derive_id("a", "bc") != derive_id("ab", "c")


def test_claim_rules() -> None:
    with pytest.raises(ValueError, match="DEPRECATED"):
        Claim(subject="a", predicate="p", epistemic_type=EpistemicType.DEPRECATED, evidence_quote="q")
    with pytest.raises(ValueError, match="condition"):
        Claim(subject="a", predicate="p", epistemic_type=EpistemicType.CONDITIONAL, evidence_quote="q")
    ok = Claim(
        subject="a",
        predicate="p",
        epistemic_type=EpistemicType.CONDITIONAL,
        condition="if it rains",
        evidence_quote="q",
    )
    assert Claim.model_validate_json(ok.model_dump_json()) == ok
