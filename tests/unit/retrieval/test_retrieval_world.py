from __future__ import annotations

from datetime import timedelta

from fake_backend import T0, make_node

from retrieval.world import world_context
from schemas.common import ActorRef
from schemas.enums import ActorType, ConditionState, EdgeType, EpistemicType, LifecycleState, Scope, SourceType
from schemas.nodes import Edge

REF = T0 + timedelta(days=30)


def _world(nodes, edges=(), **kw):  # type: ignore[no-untyped-def]
    return world_context(nodes, edges, tenant_id="t1", owner_id="alice", reference_time=REF, **kw)


def _ids(claims) -> list[str]:  # type: ignore[no-untyped-def]
    return [c.node_id for c in claims]


def _edge(a: str, b: str, **kw: object) -> Edge:
    fields: dict[str, object] = {
        "tenant_id": "t1", "owner_id": "alice", "scope": Scope.PERSONAL, "edge_id": f"e-{a}-{b}",
        "edge_type": EdgeType.CONTRADICTS, "source_id": a, "target_id": b, "created_at": T0,
        "created_by": ActorRef(actor_id="sys", actor_type=ActorType.SYSTEM_PROCESS), "valid_from": T0,
    }
    fields.update(kw)
    return Edge(**fields)  # type: ignore[arg-type]


def test_sections_are_assigned_by_kind() -> None:
    nodes = [
        make_node("fact", subject="alice", predicate="works at", object="acme"),
        make_node("observed", subject="alice", predicate="height", epistemic_type=EpistemicType.OBSERVED),
        make_node("cond_true", predicate="hikes", epistemic_type=EpistemicType.CONDITIONAL,
                  condition_state=ConditionState.TRUE),
        make_node("inferred", predicate="enjoys", epistemic_type=EpistemicType.INFERRED),
        make_node("hypo", predicate="might move", epistemic_type=EpistemicType.HYPOTHETICAL),
        make_node("cond_unknown", predicate="swims", epistemic_type=EpistemicType.CONDITIONAL),
        make_node("assistant", predicate="should try", source_type=SourceType.SYSTEM_INFERRED),
        make_node("cond_false", predicate="runs", epistemic_type=EpistemicType.CONDITIONAL,
                  condition_state=ConditionState.FALSE),
        make_node("cond_expired", predicate="rides", epistemic_type=EpistemicType.CONDITIONAL,
                  condition_state=ConditionState.EXPIRED),
        make_node("ended", predicate="lived in", valid_to=REF),
        make_node("superseded", lifecycle=LifecycleState.SUPERSEDED),
        make_node("archived", lifecycle=LifecycleState.ARCHIVED),
        make_node("deprecated", epistemic_type=EpistemicType.DEPRECATED),
        make_node("unverified_low", epistemic_type=EpistemicType.UNVERIFIED, confidence=0.2),
        make_node("future", days=40),
        make_node("learned_later", recorded_at=REF + timedelta(seconds=1)),
        make_node("other_owner", owner_id="bob"),
        make_node("other_tenant", tenant_id="t2"),
    ]
    world = _world(nodes)
    assert _ids(world.facts) == ["cond_true", "fact", "observed"]
    assert _ids(world.proposals) == ["assistant", "cond_unknown", "hypo", "inferred"]
    assert {c.node_id: c.reason for c in world.proposals}["assistant"] == "model_derived"
    assert _ids(world.stale) == ["cond_expired", "cond_false", "ended"]
    assert {c.node_id: c.reason for c in world.stale} == {
        "cond_expired": "condition:EXPIRED", "cond_false": "condition:FALSE", "ended": "validity_ended"}
    assert world.conflicts == ()


def test_conflict_removes_subject_and_predicate_from_facts() -> None:
    a = make_node("a", subject="Alice", predicate="lives in", object="paris", confidence=0.9, contradicts=("b",),
                  lifecycle=LifecycleState.CONTESTED)
    b = make_node("b", subject="alice", predicate="lives-in", object="rome", confidence=0.7,
                  lifecycle=LifecycleState.CONTESTED)
    same_key = make_node("c", subject=" ALICE ", predicate="lives_in", object="paris")
    other = make_node("d", subject="alice", predicate="likes", object="tea")
    world = _world([a, b, same_key, other])
    assert _ids(world.facts) == ["d"]
    (conflict,) = world.conflicts
    assert conflict.node_ids == ("a", "b")
    assert [s.conflict_flag for s in conflict.sides] == [False, True]


def test_edge_only_conflicts_count_when_the_edge_is_live() -> None:
    a = make_node("a", predicate="lives in", confidence=0.80, days=0)
    b = make_node("b", predicate="lives in", confidence=0.78, days=3)
    live = _world([a, b], [_edge("a", "b")])
    assert live.conflicts[0].node_ids == ("b", "a")  # within 0.05: newer first
    assert live.facts == ()
    ended = _world([a, b], [_edge("a", "b", valid_to=REF - timedelta(days=1))])
    inactive = _world([a, b], [_edge("a", "b", active=False)])
    foreign = _world([a, b], [_edge("a", "b", owner_id="bob")])
    for world in (ended, inactive, foreign):
        assert world.conflicts == ()
        assert _ids(world.facts) == ["a", "b"]


def test_lone_contested_claim_is_not_a_fact() -> None:
    lone = make_node("x", lifecycle=LifecycleState.CONTESTED, contradicts=("gone",))
    world = _world([lone])
    assert world.facts == ()
    assert world.conflicts[0].node_ids == ("x",)


def test_scope_filter() -> None:
    p = make_node("p")
    proj = make_node("q", scope=Scope.PROJECT, scope_id="p1")
    assert _ids(_world([p, proj], scope=Scope.PROJECT, scope_id="p1").facts) == ["q"]
    assert _ids(_world([p, proj]).facts) == ["p", "q"]


# PRME-FACTS §1.4 default TTLs, in days; every other node type never expires.
SPEC_TTL_DAYS = {"event": 365, "decision": 180, "task": 90, "summary": 365, "note": 90}


def test_a_node_past_its_types_ttl_is_stale_and_one_inside_it_is_current() -> None:
    from schemas.enums import NodeType

    nodes = []
    for node_type in NodeType:
        name = node_type.value.lower()
        ttl = SPEC_TTL_DAYS.get(name)
        age = 400 if ttl is None else ttl  # exactly at the TTL: expired; a day less: current
        touched = REF - timedelta(days=age)
        nodes.append(make_node(f"old-{name}", node_type=node_type, predicate=f"p-{name}",
                               days=-age + 30, last_reinforced_at=touched))
        if ttl is not None:
            fresh = REF - timedelta(days=ttl - 1)
            nodes.append(make_node(f"fresh-{name}", node_type=node_type, predicate=f"q-{name}",
                                   days=-(ttl - 1) + 30, last_reinforced_at=fresh))
    world = _world(nodes)
    stale = {c.node_id: c.reason for c in world.stale}
    assert stale == {f"old-{t}": "ttl_expired" for t in SPEC_TTL_DAYS}
    current = set(_ids(world.facts))
    assert {f"fresh-{t}" for t in SPEC_TTL_DAYS} <= current
    assert {f"old-{t.value.lower()}" for t in NodeType if t.value.lower() not in SPEC_TTL_DAYS} <= current


def test_reinforcement_restarts_the_ttl_clock_and_the_ttl_is_configurable() -> None:
    from engine.config import DEFAULT_CONFIG
    from schemas.enums import NodeType

    created = REF - timedelta(days=200)
    task = make_node("task", node_type=NodeType.TASK, days=-170, last_reinforced_at=REF - timedelta(days=10))
    assert _ids(_world([task]).facts) == ["task"]  # created 200 days ago, reinforced 10 days ago
    untouched = task.model_copy(update={"last_reinforced_at": created})
    assert _ids(_world([untouched]).stale) == ["task"]
    longer = DEFAULT_CONFIG.with_overrides(node_ttl_days={NodeType.TASK: 365.0})
    assert _ids(_world([untouched], config=longer).facts) == ["task"]


def test_model_suggestions_contesting_each_other_never_unsettle_a_persons_fact() -> None:
    from schemas.enums import EvidenceKind

    kw = {"subject": "user", "predicate": "lives in"}
    fact = make_node("fact", object="Paris", evidence_kind=EvidenceKind.HUMAN_STATEMENT, **kw)
    a = make_node("a", object="Lisbon", epistemic_type=EpistemicType.INFERRED, source_type=SourceType.SYSTEM_INFERRED,
                  evidence_kind=EvidenceKind.MODEL_SUGGESTION, lifecycle=LifecycleState.CONTESTED, **kw)  # fmt: skip
    b = make_node("b", object="Paris", epistemic_type=EpistemicType.INFERRED, source_type=SourceType.SYSTEM_INFERRED,
                  evidence_kind=EvidenceKind.MODEL_SUGGESTION, lifecycle=LifecycleState.CONTESTED, **kw)  # fmt: skip
    world = _world([fact, a, b], [_edge("a", "b")])
    assert _ids(world.facts) == ["fact"]
    assert [set(c.node_ids) for c in world.conflicts] == [{"a", "b"}]
    # a second person's statement contesting the fact does unsettle it
    other = make_node("other", object="Berlin", evidence_kind=EvidenceKind.HUMAN_STATEMENT,
                      lifecycle=LifecycleState.CONTESTED, **kw)  # fmt: skip
    contested = _world([fact.model_copy(update={"lifecycle": LifecycleState.CONTESTED}), other],
                       [_edge("fact", "other")])  # fmt: skip
    assert _ids(contested.facts) == []
    assert {i for c in contested.conflicts for i in c.node_ids} == {"fact", "other"}
