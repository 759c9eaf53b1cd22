"""Explicit expiry and revalidation (TRUST-FACTS §4, §8 test 5; issue #29).

A claim may carry ``expires_at``; once it has passed the claim is stale (derived at the reference time,
never a lifecycle state) and is no fact. ``revalidate`` (new evidence, a new expiry) makes it current
again as a journaled operation that keeps the earlier expiry and evidence in the claim's history.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from engine_factories import (
    AGENT,
    T0,
    USER,
    at,
    claim,
    deprecate,
    extraction,
    new_store,
    reinforce,
    revalidate,
)

from engine.reducer import REVALIDATION_POLICY, apply
from engine.replay import replay, verify_replay
from engine.store import InMemoryStateStore
from engine.world_rules import stale_reason
from retrieval.world import world_context
from schemas.canonical import canonical_json
from schemas.enums import EpistemicType, LifecycleState, NodeType, OpType, PrincipalKind, Role, TemporalIntent
from schemas.nodes import MemoryNode
from schemas.operations import Operation

EXPIRY = at(days=1)


def _node(store: InMemoryStateStore, node_id: str) -> MemoryNode:
    node = store.get_node(node_id)
    assert node is not None
    return node


class Log:
    """A store and every operation written to it, in order (what replay reads)."""

    def __init__(self) -> None:
        self.store = new_store()
        self.ops: list[Operation] = []

    def apply(self, item: object) -> list[Operation]:
        result = apply(self.store, item)  # type: ignore[arg-type]
        self.ops.extend(result.operations)
        return result.operations

    def create(self, *claims: object, **event_kw: object) -> str:
        ops = self.apply(extraction(*claims, **event_kw))  # type: ignore[arg-type]
        [node_id] = [op.target_id for op in ops if op.op_type is OpType.ASSERT]
        return node_id

    def evidence(self, event_id: str, occurred: object) -> None:
        """An event of the same stream (a later message that says the claim still holds)."""
        self.apply(extraction(event_id=event_id, occurred=occurred))


def _world(store: InMemoryStateStore, ref: object) -> tuple[set[str], dict[str, str | None]]:
    view = world_context(store.iter_nodes(), tenant_id="t1", owner_id="alice", reference_time=ref)  # type: ignore[arg-type]
    return {c.node_id for c in view.facts}, {c.node_id: c.reason for c in view.stale}


def test_an_explicit_expiry_makes_a_claim_stale_only_after_it_has_passed() -> None:
    log = Log()
    node_id = log.create(claim("office wifi", "password rotates", "weekly"), expires_at=EXPIRY)
    node = _node(log.store, node_id)
    assert node.expires_at == EXPIRY
    assert stale_reason(node, EXPIRY - timedelta(seconds=1)) is None
    assert stale_reason(node, EXPIRY) is None  # current through its expiry instant
    assert stale_reason(node, EXPIRY + timedelta(microseconds=1)) == "expired"
    facts, stale = _world(log.store, EXPIRY)
    assert node_id in facts and node_id not in stale
    facts, stale = _world(log.store, EXPIRY + timedelta(seconds=1))
    assert node_id not in facts  # never silently reused as a fact
    assert stale == {node_id: "expired"}
    # stale is derived at the reference time, not a state: nothing about the node changed
    assert node.lifecycle is LifecycleState.TENTATIVE and node.version == 1


def test_the_world_view_shows_each_claims_expiry() -> None:
    log = Log()
    node_id = log.create(claim("Alice", "is on call", "this week"), expires_at=EXPIRY)
    view = world_context(log.store.iter_nodes(), tenant_id="t1", owner_id="alice", reference_time=T0)
    [fact] = view.facts
    assert (fact.node_id, fact.expires_at) == (node_id, EXPIRY)
    later = world_context(log.store.iter_nodes(), tenant_id="t1", owner_id="alice", reference_time=at(2))
    assert [(c.node_id, c.expires_at, c.reason) for c in later.stale] == [(node_id, EXPIRY, "expired")]


def test_a_claims_own_expiry_wins_over_its_events() -> None:
    log = Log()
    own = at(days=5)
    node_id = log.create(claim("Alice", "parks at", "level 3", expires_at=own), expires_at=EXPIRY)
    assert _node(log.store, node_id).expires_at == own
    [assert_op] = [op for op in log.ops if op.op_type is OpType.ASSERT]
    assert assert_op.payload["expires_at"] == own.isoformat()


def test_a_claim_without_expiry_writes_the_same_bytes_as_before() -> None:
    log = Log()
    node_id = log.create(claim("Alice", "uses", "Python"))
    node = _node(log.store, node_id)
    assert node.expires_at is None and node.revalidation is None
    text = canonical_json(node.model_dump(mode="json"))
    assert "expires_at" not in text and "revalidation" not in text
    assert all("expires_at" not in op.payload for op in log.ops)


def test_an_explicit_expiry_replaces_the_node_types_ttl() -> None:
    log = Log()
    task = log.create(claim("Alice", "must renew", "passport", node_type=NodeType.TASK))
    long = log.create(claim("Alice", "must file", "taxes", node_type=NodeType.TASK), expires_at=at(days=200))
    ref = at(days=120)  # past the 90-day task TTL
    assert stale_reason(_node(log.store, task), ref) == "ttl_expired"
    assert stale_reason(_node(log.store, long), ref) is None
    assert stale_reason(_node(log.store, long), at(days=201)) == "expired"


def test_stale_records_can_be_revalidated_without_losing_history() -> None:
    """TRUST-FACTS §8 test 5."""
    log = Log()
    node_id = log.create(claim("office door code", "is", "4711"), event_id="ev-code", expires_at=EXPIRY)
    first = _node(log.store, node_id)
    later = at(days=3)
    assert _world(log.store, later)[1] == {node_id: "expired"}

    log.evidence("ev-still", at(days=2))
    renewed = at(days=30)
    ops = log.apply(revalidate(node_id, renewed, evidence_ids=("ev-still",), evidence_quote="the code is still 4711",
                               reason="checked at the door", issued_at=at(days=2)))  # fmt: skip
    [op] = ops
    assert op.op_type is OpType.REVALIDATED and op.policy_version == REVALIDATION_POLICY

    now = _node(log.store, node_id)
    assert now.version == first.version + 1
    assert now.expires_at == renewed
    # how the claim is known is untouched: lifecycle, type, confidence
    assert (now.lifecycle, now.epistemic_type, now.confidence) == (first.lifecycle, first.epistemic_type,
                                                                    first.confidence)  # fmt: skip
    # the old evidence is kept and the new joins it
    assert now.evidence_refs == ("ev-code", "ev-still")
    assert now.revalidation is not None
    assert now.revalidation.previous_expires_at == EXPIRY
    assert now.revalidation.evidence_quote == "the code is still 4711"
    # the history holds the previous expiry and evidence: the node before, and the payload
    assert op.before is not None and op.before.expires_at == EXPIRY and op.before.evidence_refs == ("ev-code",)
    assert op.payload["previous_expires_at"] == EXPIRY.isoformat()
    assert op.payload["expires_at"] == renewed.isoformat()
    assert op.payload["stale_before"] == "expired"
    history = [o for o in log.ops if o.target_id == node_id]
    assert [o.op_type for o in history] == [OpType.ASSERT, OpType.REVALIDATED]
    assert history[0].after is not None and history[0].after.expires_at == EXPIRY

    facts, stale = _world(log.store, later)
    assert node_id in facts and node_id not in stale
    assert _world(log.store, renewed + timedelta(seconds=1))[1] == {node_id: "expired"}
    # replay of the log alone reproduces it, byte for byte
    assert verify_replay(log.store, log.ops) == []
    assert replay(log.ops).get_node(node_id) == now


def test_revalidating_twice_keeps_every_earlier_expiry_in_the_operations() -> None:
    log = Log()
    node_id = log.create(claim("Bob", "desk is", "B12"), expires_at=EXPIRY)
    second, third = at(days=10), at(days=20)
    log.apply(revalidate(node_id, second, evidence_quote="still B12", issued_at=at(days=2)))
    log.apply(revalidate(node_id, third, evidence_quote="still B12 again", issued_at=at(days=11)))
    expiries = [(o.payload["previous_expires_at"], o.payload["expires_at"])
                for o in log.ops if o.op_type is OpType.REVALIDATED]  # fmt: skip
    assert expiries == [(EXPIRY.isoformat(), second.isoformat()), (second.isoformat(), third.isoformat())]
    assert _node(log.store, node_id).version == 3


def test_a_current_claim_may_be_revalidated_to_move_its_expiry() -> None:
    log = Log()
    node_id = log.create(claim("Alice", "is on call", "this week"), expires_at=EXPIRY)
    [op] = log.apply(revalidate(node_id, at(days=8), evidence_quote="on call next week too"))
    assert op.op_type is OpType.REVALIDATED and op.payload["stale_before"] is None


def test_a_claim_stale_by_its_ttl_is_revalidated_by_an_explicit_expiry() -> None:
    log = Log()
    task = log.create(claim("Alice", "must renew", "passport", node_type=NodeType.TASK))
    ref = at(days=100)
    assert stale_reason(_node(log.store, task), ref) == "ttl_expired"
    log.apply(revalidate(task, at(days=150), evidence_quote="still to do", issued_at=ref))
    assert stale_reason(_node(log.store, task), ref) is None


def _rejected(ops: list[Operation]) -> str:
    [op] = ops
    assert op.op_type is OpType.COMMAND_REJECTED, op
    code: str = op.payload["code"]
    return code


def test_an_agent_channel_cannot_revalidate_a_human_established_claim() -> None:
    log = Log()
    node_id = log.create(claim("Alice", "lives in", "Paris"), expires_at=EXPIRY)
    before = _node(log.store, node_id)
    code = _rejected(log.apply(revalidate(node_id, at(days=9), evidence_quote="she still does", actor=AGENT,
                                          channel=PrincipalKind.AGENT, issued_at=at(2))))  # fmt: skip
    assert code == "channel_not_authoritative"
    # a caller-declared human actor on an agent channel changes nothing
    code = _rejected(log.apply(revalidate(node_id, at(days=9), evidence_quote="she still does", actor=USER,
                                          channel=PrincipalKind.AGENT, issued_at=at(2))))  # fmt: skip
    assert code == "channel_not_authoritative"
    assert _node(log.store, node_id) == before
    assert _world(log.store, at(3))[1] == {node_id: "expired"}
    # a human channel may
    [op] = log.apply(revalidate(node_id, at(days=9), evidence_quote="she still does", actor=USER,
                                channel=PrincipalKind.HUMAN, issued_at=at(2)))  # fmt: skip
    assert op.op_type is OpType.REVALIDATED


def test_an_agent_may_revalidate_its_own_suggestion() -> None:
    log = Log()
    node_id = log.create(claim("Alice", "might like", "jazz", epistemic=EpistemicType.INFERRED),
                         role=Role.ASSISTANT, expires_at=EXPIRY)  # fmt: skip
    [op] = log.apply(revalidate(node_id, at(days=9), evidence_quote="she hummed jazz", actor=AGENT,
                                channel=PrincipalKind.AGENT, issued_at=at(2)))  # fmt: skip
    assert op.op_type is OpType.REVALIDATED


@pytest.mark.parametrize("delta", [timedelta(0), timedelta(seconds=-1), timedelta(days=-5)])
def test_an_expiry_in_the_past_is_refused(delta: timedelta) -> None:
    log = Log()
    node_id = log.create(claim("Alice", "lives in", "Paris"), expires_at=EXPIRY)
    issued = at(days=2)
    assert _rejected(log.apply(revalidate(node_id, issued + delta, evidence_quote="yes", issued_at=issued))) == (
        "expiry_in_past"
    )
    assert _node(log.store, node_id).version == 1


def test_a_retired_claim_is_not_revalidated() -> None:
    log = Log()
    node_id = log.create(claim("Alice", "lives in", "Paris"), expires_at=EXPIRY)
    log.apply(deprecate(node_id, issued_at=at(1)))
    assert _rejected(log.apply(revalidate(node_id, at(9), evidence_quote="yes", issued_at=at(2)))) == "claim_retired"


def test_revalidation_needs_new_evidence() -> None:
    log = Log()
    node_id = log.create(claim("Alice", "lives in", "Paris"), expires_at=EXPIRY)
    assert _rejected(log.apply(revalidate(node_id, at(9), issued_at=at(2)))) == "evidence_required"
    assert _rejected(log.apply(revalidate(node_id, at(9), evidence_quote="  ", issued_at=at(2)))) == (
        "evidence_required"
    )
    # evidence must be an event of this stream
    assert _rejected(log.apply(revalidate(node_id, at(9), evidence_ids=("ev-nowhere",), issued_at=at(2)))) == (
        "evidence_not_found"
    )
    # another owner's claim is not found
    assert _rejected(log.apply(revalidate(node_id, at(9), evidence_quote="yes", owner_id="bob"))) == "node_not_found"


def test_revalidation_moves_no_confidence_and_reinforcement_still_works_after_it() -> None:
    log = Log()
    node_id = log.create(claim("Alice", "lives in", "Paris"), expires_at=EXPIRY)
    confidence = _node(log.store, node_id).confidence
    log.apply(revalidate(node_id, at(9), evidence_quote="yes", issued_at=at(2)))
    assert _node(log.store, node_id).confidence == confidence
    [op] = log.apply(reinforce(node_id, issued_at=at(3)))
    assert op.op_type is OpType.REINFORCE
    assert _node(log.store, node_id).expires_at == at(9)


def test_an_expired_claim_does_not_hold_a_new_statement_back() -> None:
    """A single-valued attribute's new value, stated as an assertion, contests the old one only while the old
    one is current (an update retires it either way)."""
    said = TemporalIntent.ASSERTION
    log = Log()
    paris = log.create(claim("user", "lives in", "Paris"), event_id="ev-paris", expires_at=EXPIRY)
    berlin = log.create(claim("user", "lives in", "Berlin", temporal_intent=said), event_id="ev-berlin",
                        occurred=at(3))  # fmt: skip
    assert _node(log.store, berlin).lifecycle is LifecycleState.TENTATIVE
    assert _node(log.store, paris).contradicts == () and _node(log.store, paris).version == 1
    facts, stale = _world(log.store, at(4))
    assert facts == {berlin} and stale == {paris: "expired"}
    # said while the old value was still current, it contests it, as before
    other = Log()
    rome = other.create(claim("user", "lives in", "Rome"), event_id="ev-rome", expires_at=EXPIRY)
    oslo = other.create(claim("user", "lives in", "Oslo", temporal_intent=said), event_id="ev-oslo",
                        occurred=at(0.5))  # fmt: skip
    assert _node(other.store, oslo).lifecycle is LifecycleState.CONTESTED
    assert _node(other.store, rome).contradicts == (oslo,)
