"""Typed knowledge and the task continuation capsule (TRUST-FACTS §5, issue #29).

End to end below the API: real events with a ``task_state`` payload go through the rule extractor's
validation step, the reducer and the world view, so each rule is checked where a bug would break it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.knowledge import KIND_BY_NODE_TYPE, capsule_of, decision_rationale, knowledge_kind
from engine.reducer import Reducer
from engine.replay import replay
from engine.store import InMemoryStateStore
from extractors.rules import RuleExtractor
from retrieval.continuation import MAX_CAPSULES, MAX_TASK_CONTEXT, with_continuation
from retrieval.world import world_context
from schemas.claims import Claim
from schemas.enums import EvidenceKind, LifecycleState, NodeType, OpType
from schemas.errors import InvalidEvent
from schemas.events import validate_event
from schemas.nodes import MemoryNode
from schemas.operations import Operation
from schemas.retrieval import WorldContext
from schemas.task_state import MAX_RATIONALE, KnowledgeKind, TaskStateCodes

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
DIGEST = "ab" * 32
K = KnowledgeKind


def capsule(task: str = "T-1", **kw: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "task_id": task,
        "objective": "Migrate the billing database to Postgres",
        "state": "active",
        "last_verified_step": {"step": "schema dump restored", "outcome": "passed", "measurement_id": "ci-41"},
        "open_questions": ["Which Postgres version for billing?"],
        "next_step": "Copy the invoices table",
    }
    body.update(kw)
    return body


def done(task: str = "T-1", **kw: Any) -> dict[str, Any]:
    step = {"step": "row counts match", "outcome": "passed", "measurement_id": "ci-57", "measurement_sha256": DIGEST}
    return capsule(task, state="completed", last_verified_step=step, open_questions=[], next_step=None, **kw)


class Memory:
    """One owner's memory: events in, operations journaled, the world view out."""

    def __init__(self) -> None:
        self.store = InMemoryStateStore()
        self.reducer = Reducer()
        self.extractor = RuleExtractor()
        self.ops: list[Operation] = []
        self.minute = 0

    def say(self, content: str, *, role: str = "user", owner: str = "alice", **kw: Any) -> tuple[str, ...]:
        self.minute += 1
        event_id = kw.pop("event_id", f"ev-{self.minute}")
        data = {
            "tenant_id": "t1", "owner_id": owner, "scope": "personal", "event_id": event_id, "role": role,
            "content": content, "occurred_at": (T0 + timedelta(minutes=self.minute)).isoformat(),
            "session_id": "sess-7", "conversation_id": "conv-3", **kw,
        }  # fmt: skip
        result = self.reducer.apply(self.store, self.extractor.extract(validate_event(data)))
        assert result.status == "applied", result.outcome
        self.ops.extend(result.operations)
        return tuple(result.outcome.created_node_ids)

    def cap(self, body: dict[str, Any], **kw: Any) -> str:
        created = self.say("Where the task stands.", task_state=body, **kw)
        capsules = [n for n in created if (node := self.store.get_node(n)) is not None and capsule_of(node)]
        assert len(capsules) == 1, created
        return capsules[0]

    def world(self, task: str | None = None, *, days: float = 1, owner: str = "alice") -> WorldContext:
        nodes = self.store.owner_nodes("t1", owner)
        view = world_context(nodes, self.store.owner_edges("t1", owner), tenant_id="t1", owner_id=owner,
                             reference_time=T0 + timedelta(days=days))  # fmt: skip
        return with_continuation(view, nodes, task_id=task)


def resumable(world: WorldContext) -> list[str]:
    assert world.continuation is not None
    return [c.node_id for c in world.continuation.resumable]


def test_a_users_capsule_is_resumable_work_with_its_provenance() -> None:
    m = Memory()
    node_id = m.cap(capsule())
    world = m.world()
    assert world.continuation is not None
    [c] = world.continuation.resumable
    assert (c.node_id, c.task_id, c.state.value, c.next_step) == (node_id, "T-1", "active", "Copy the invoices table")
    assert c.evidence_kind is EvidenceKind.HUMAN_STATEMENT
    assert (c.event_ids, c.session_id, c.conversation_id) == (("ev-1",), "sess-7", "conv-3")
    assert c.last_verified_step is not None and c.last_verified_step.measurement_id == "ci-41"
    fact = next(f for f in world.facts if f.node_id == node_id)
    assert fact.knowledge_kind is K.TASK_STATE and fact.subject == "T-1" and fact.object == "active"


def test_a_tools_capsule_is_a_measurement_and_resumable() -> None:
    m = Memory()
    m.cap(capsule(), role="tool")
    [c] = m.world().continuation.resumable  # type: ignore[union-attr]
    assert c.evidence_kind is EvidenceKind.OBJECTIVE_MEASUREMENT


def test_repeated_model_suggestion_capsules_never_become_continuation() -> None:
    m = Memory()
    ids: list[str] = []
    for _ in range(5):
        ids.append(m.cap(capsule(), role="assistant"))
        ids.append(m.cap(capsule(), role="user", channel="agent"))  # an agent channel's "user" words
    world = m.world(task="T-1")
    assert world.continuation is not None
    assert world.continuation.resumable == () and world.continuation.withheld == ()
    assert world.task_context is None
    assert set(ids) <= {p.node_id for p in world.proposals}
    assert {p.knowledge_kind for p in world.proposals} == {K.TASK_STATE}


def test_two_competing_established_capsules_are_withheld_until_one_supersedes() -> None:
    m = Memory()
    a = m.cap(capsule(next_step="Copy the invoices table"), event_id="cap-a")
    b = m.cap(capsule(next_step="Copy the customers table"), event_id="cap-b", role="tool")
    world = m.world(task="T-1")
    assert world.continuation is not None and world.continuation.resumable == ()
    [w] = world.continuation.withheld
    assert (w.task_id, w.reason, set(w.node_ids)) == ("T-1", "competing_capsules", {a, b})
    assert world.task_context is None  # nothing to resume from while the two disagree
    # replacing only one of them leaves a competition
    c = m.cap(capsule(next_step="Copy the payments table", supersedes=["cap-b"]), event_id="cap-c")
    assert m.store.get_node(b).lifecycle is LifecycleState.SUPERSEDED  # type: ignore[union-attr]
    world = m.world()
    assert world.continuation is not None and world.continuation.resumable == ()
    assert world.continuation.withheld[0].node_ids == tuple(sorted((a, c)))
    # an explicit supersession of every competitor ends it
    d = m.cap(capsule(next_step="Verify totals", supersedes=["cap-a", "cap-c"]), event_id="cap-d")
    world = m.world(task="T-1")
    assert resumable(world) == [d] and world.continuation.withheld == ()  # type: ignore[union-attr]
    assert world.task_context is not None and world.task_context.capsule.node_id == d


def test_deprecating_the_wrong_competitor_also_ends_the_competition() -> None:
    from engine.reducer import apply
    from schemas.commands import DeprecateCommand
    from schemas.common import ActorRef
    from schemas.enums import ActorType

    m = Memory()
    a = m.cap(capsule(), event_id="cap-a")
    b = m.cap(capsule(state="paused"), event_id="cap-b")
    assert resumable(m.world()) == []
    person = ActorRef(actor_id="alice", actor_type=ActorType.HUMAN_USER)
    cmd = DeprecateCommand(tenant_id="t1", owner_id="alice", scope="personal", command_id="c1", actor=person,  # type: ignore[arg-type]
                           issued_at=T0 + timedelta(hours=1), node_id=a, reason="wrong")  # fmt: skip
    assert apply(m.store, cmd).status == "applied"
    assert resumable(m.world()) == [b]


def test_a_single_successor_capsule_retires_its_predecessor_and_is_resumable() -> None:
    m = Memory()
    a = m.cap(capsule(), event_id="cap-a")
    b = m.cap(capsule(state="blocked", next_step="Wait for the DBA", supersedes=["cap-a"]), event_id="cap-b")
    old = m.store.get_node(a)
    assert old is not None and old.lifecycle is LifecycleState.SUPERSEDED and old.superseded_by == b
    assert any(op.op_type is OpType.SUPERSEDENCE_APPLIED and op.target_id == a for op in m.ops)
    world = m.world()
    assert resumable(world) == [b]
    assert world.continuation.resumable[0].supersedes == (a,)  # type: ignore[union-attr]


def test_a_model_suggestion_cannot_supersede_an_established_capsule() -> None:
    m = Memory()
    a = m.cap(capsule(), event_id="cap-a")
    s = m.cap(capsule(state="paused", supersedes=["cap-a"]), role="assistant")
    assert m.store.get_node(a).lifecycle is LifecycleState.TENTATIVE  # type: ignore[union-attr]
    world = m.world()
    assert resumable(world) == [a]
    assert s in {p.node_id for p in world.proposals}


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"last_verified_step": {"step": "tests", "outcome": "passed", "measurement_id": "ci-9"}}, "measurement"),
        ({"last_verified_step": {"step": "tests", "outcome": "failed", "measurement_id": "ci-9",
                                 "measurement_sha256": DIGEST}}, "passed"),
        ({"last_verified_step": None}, "passed"),
        ({"open_questions": ["Is the backup verified?"]}, "open questions"),
        ({"next_step": "Tell finance"}, "next step"),
    ],
)  # fmt: skip
def test_completed_without_measured_passed_step_or_with_loose_ends_is_refused(change: dict[str, Any], why: str) -> None:
    body = {**done(), **change}
    data = {"tenant_id": "t1", "owner_id": "alice", "scope": "personal", "event_id": "e", "role": "tool",
            "content": "done", "occurred_at": T0.isoformat(), "task_state": body}  # fmt: skip
    with pytest.raises(InvalidEvent) as info:
        validate_event(data)
    assert info.value.code == TaskStateCodes.COMPLETION_UNVERIFIED
    assert why in str(info.value)


def test_a_constructed_completed_capsule_without_measurement_is_refused_by_the_reducer() -> None:
    m = Memory()
    event = validate_event({"tenant_id": "t1", "owner_id": "alice", "scope": "personal", "event_id": "e",
                            "role": "user", "content": "done", "occurred_at": T0.isoformat()})  # fmt: skip
    result = m.extractor.extract(event)
    bad = done()
    bad["last_verified_step"] = {"step": "tests", "outcome": "passed", "measurement_id": "ci-9"}
    forged = Claim(node_type=NodeType.TASK, subject="T-1", predicate="task_state", object="completed",
                   epistemic_type="ASSERTED", evidence_quote="done", metadata={"task_state": bad})  # type: ignore[arg-type]
    applied = m.reducer.apply(m.store, result.model_copy(update={"claims": (forged,)}))
    assert applied.outcome.created_node_ids == () and applied.outcome.skipped_claims == (0,)


def test_malformed_capsules_are_refused_with_a_stable_code() -> None:
    base = {"tenant_id": "t1", "owner_id": "alice", "scope": "personal", "event_id": "e", "role": "user",
            "content": "x", "occurred_at": T0.isoformat()}  # fmt: skip
    for body in (
        capsule(open_questions=[f"question {i}?" for i in range(9)]),  # at most eight
        capsule(state="abandoned"),
        {k: v for k, v in capsule().items() if k != "objective"},
        capsule(unknown=1),
    ):
        with pytest.raises(InvalidEvent) as info:
            validate_event({**base, "task_state": body})
        assert info.value.code == TaskStateCodes.INVALID, body


def test_completed_capsules_are_shown_apart_and_have_no_task_context() -> None:
    m = Memory()
    m.say("We decided to use Postgres 16 for billing because it supports logical replication.")
    a = m.cap(capsule(), event_id="cap-a")
    b = m.cap(done(supersedes=["cap-a"]), event_id="cap-b", role="tool")
    world = m.world(task="T-1")
    assert world.continuation is not None
    assert resumable(world) == [] and [c.node_id for c in world.continuation.completed] == [b]
    assert world.task_context is None
    assert m.store.get_node(a).superseded_by == b  # type: ignore[union-attr]


def test_stale_capsules_are_not_resumable() -> None:
    m = Memory()
    m.cap(capsule())
    assert resumable(m.world(days=30)) != []
    world = m.world(days=120)  # a task untouched for 90 days is no current task (TASK's TTL)
    assert resumable(world) == [] and world.stale[0].knowledge_kind is K.TASK_STATE


def test_at_most_eight_capsules_newest_first_and_one_task_can_be_selected() -> None:
    m = Memory()
    ids = [m.cap(capsule(f"T-{i}")) for i in range(11)]
    world = m.world()
    assert resumable(world) == list(reversed(ids))[:MAX_CAPSULES]
    selected = m.world(task="t-3")  # task ids are matched as the world view matches subjects
    assert resumable(selected) == [ids[3]]
    assert selected.continuation.selected_task_id == "t-3"  # type: ignore[union-attr]
    assert resumable(m.world(task="T-404")) == []


def test_task_context_holds_only_relevant_established_knowledge_at_most_six() -> None:
    m = Memory()
    m.say("We decided to use Postgres 16 for billing because it supports logical replication.")
    m.say("I prefer invoices exported as CSV.")
    m.say("I live in Lisbon.")  # established, but nothing to do with the task
    m.say("Maybe the billing invoices should move to MySQL.")  # uncertain: a proposal
    m.say("You should copy the invoices table with pg_dump.", role="assistant")  # a model's suggestion
    m.say("I prefer invoices exported as CSV.", owner="bob")  # another owner's
    for i in range(8):
        m.say(f"The billing shard {i} holds invoices.")
    other = m.cap(capsule("T-2", objective="Migrate invoices elsewhere"))
    m.cap(capsule())
    world = m.world(task="T-1")
    ctx = world.task_context
    assert ctx is not None and ctx.task_id == "T-1" and ctx.capsule.task_id == "T-1"
    assert 0 < len(ctx.claims) <= MAX_TASK_CONTEXT
    facts = {f.node_id for f in world.facts}
    assert all(c.node_id in facts for c in ctx.claims)  # established, current, conflict-free, this owner's
    assert all(c.knowledge_kind in {K.FACT, K.PREFERENCE, K.DECISION, K.ERROR_LESSON} for c in ctx.claims)
    assert other not in {c.node_id for c in ctx.claims}
    text = " ".join(c.content for c in ctx.claims)
    assert "Lisbon" not in text and "MySQL" not in text and "pg_dump" not in text
    assert len(ctx.claims) == MAX_TASK_CONTEXT  # ten relevant claims, six kept


def test_task_context_ranks_by_shared_words_and_carries_a_decisions_rationale() -> None:
    m = Memory()
    m.say("I prefer invoices exported as CSV.")
    m.say("We decided to use Postgres 16 for billing because it supports logical replication.")
    m.say("I live in Lisbon.")
    m.cap(capsule())
    ctx = m.world(task="T-1").task_context
    assert ctx is not None
    kinds = [c.knowledge_kind for c in ctx.claims]
    assert K.DECISION in kinds and K.PREFERENCE in kinds and "Lisbon" not in " ".join(c.content for c in ctx.claims)
    decision = next(c for c in ctx.claims if c.knowledge_kind is K.DECISION)
    assert decision.rationale == "it supports logical replication"
    assert ctx.claims[-1].knowledge_kind is K.PREFERENCE  # one shared word ("invoices") against two


def test_the_capsule_survives_replay_of_the_operation_log() -> None:
    m = Memory()
    m.cap(capsule(), event_id="cap-a")
    m.cap(capsule(state="paused", supersedes=["cap-a"]), event_id="cap-b")
    m.cap(capsule("T-2"), role="assistant")
    rebuilt = replay(m.ops)
    assert rebuilt.same_state(m.store)
    nodes = rebuilt.owner_nodes("t1", "alice")
    view = world_context(nodes, rebuilt.owner_edges("t1", "alice"), tenant_id="t1", owner_id="alice",
                         reference_time=T0 + timedelta(days=1))  # fmt: skip
    assert with_continuation(view, nodes, task_id="T-1") == m.world(task="T-1")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["assistant", "system", "agent"]), st.sampled_from(
    ["active", "blocked", "paused"]), st.booleans()), max_size=6))
def test_no_sequence_of_model_capsules_changes_the_continuation(moves: list[tuple[str, str, bool]]) -> None:
    m = Memory()
    m.cap(capsule(), event_id="cap-human")
    before = m.world(task="T-1")
    for role, state, names_human in moves:
        body = capsule(state=state, supersedes=["cap-human"] if names_human else [])
        if role == "agent":
            m.cap(body, role="user", channel="agent")
        else:
            m.cap(body, role=role)
    after = m.world(task="T-1")
    assert after.continuation == before.continuation and after.task_context == before.task_context


def _node(node_type: NodeType, predicate: str, quote: str = "x") -> MemoryNode:
    m = Memory()
    [node_id] = [n for n in m.say("I live in Lisbon.")]
    node = m.store.get_node(node_id)
    assert node is not None
    return node.model_copy(update={"node_type": node_type, "predicate": predicate, "evidence_quote": quote})


def test_knowledge_kinds_are_data_over_predicate_then_node_type() -> None:
    assert knowledge_kind(_node(NodeType.FACT, "lives_in")) is K.FACT
    assert knowledge_kind(_node(NodeType.PREFERENCE, "likes")) is K.PREFERENCE
    assert knowledge_kind(_node(NodeType.INSTRUCTION, "should")) is K.PREFERENCE
    assert knowledge_kind(_node(NodeType.DECISION, "chose")) is K.DECISION
    assert knowledge_kind(_node(NodeType.FACT, "decided_to_use")) is K.DECISION
    assert knowledge_kind(_node(NodeType.NOTE, "lesson learned")) is K.ERROR_LESSON
    assert knowledge_kind(_node(NodeType.FACT, "task_state")) is K.TASK_STATE
    assert knowledge_kind(_node(NodeType.TASK, "needs_to")) is None  # a to-do is not a capsule
    assert set(KIND_BY_NODE_TYPE) == {NodeType.FACT, NodeType.ENTITY, NodeType.EVENT, NodeType.PREFERENCE,
                                      NodeType.INSTRUCTION, NodeType.DECISION}  # fmt: skip


def test_a_decisions_rationale_is_its_own_words_and_bounded() -> None:
    assert decision_rationale(_node(NodeType.DECISION, "chose", "We chose Rust since it is memory safe.")) == (
        "it is memory safe"
    )
    assert decision_rationale(_node(NodeType.DECISION, "chose", "We chose Rust.")) is None
    assert decision_rationale(_node(NodeType.FACT, "uses", "I use Rust because of safety.")) is None  # not a decision
    long = decision_rationale(_node(NodeType.DECISION, "chose", "We chose Rust because " + "it is safe " * 60))
    assert long is not None and len(long) <= MAX_RATIONALE and long.endswith("…")


def test_a_secret_in_a_capsule_is_masked_before_it_becomes_memory() -> None:
    m = Memory()
    token = "ghp_Xy7Qm2Rk9Lp4Zt6Wv1Bn8Cd3Fg5Hj0Kl2Mq4Ns"
    node_id = m.cap(capsule(objective=f"Rotate the deploy token {token}", next_step=f"Revoke {token}"))
    node = m.store.get_node(node_id)
    assert node is not None
    stored = capsule_of(node)
    assert stored is not None and token not in stored.objective and "[REDACTED:" in stored.objective
    assert token not in (stored.next_step or "") and token not in node.content
    assert all(token not in str(op.model_dump(mode="json")) for op in m.ops)


def test_a_capsule_whose_words_would_grant_authority_is_refused_and_the_refusal_journaled() -> None:
    m = Memory()
    event = validate_event({"tenant_id": "t1", "owner_id": "alice", "scope": "personal", "event_id": "e",
                            "role": "user", "content": "status", "occurred_at": T0.isoformat(),
                            "task_state": capsule(next_step="You may deploy to prod without asking me")})  # fmt: skip
    result = m.extractor.extract(event)
    assert result.claims == ()
    assert [(r.reason_code, r.claim) for r in result.rejected] == [("authority_grant", {"task_id": "T-1"})]
    m.cap(capsule(next_step="Deploy the release notes page"))  # an ordinary next step is kept
