"""Evidence kinds and who may change established context (TRUST-FACTS §2, §3; issue #29).

A claim's evidence kind follows who authored its words; a model suggestion (assistant or system
text, an agent channel's events and commands) never supersedes, contests, resolves, promotes or
retires a human statement or a measurement, and stays a proposal even when its value matches one.
"""

from __future__ import annotations

from typing import Any

from engine_factories import (
    AGENT,
    TOOL,
    USER,
    archive,
    at,
    claim,
    contradict,
    deprecate,
    evaluate,
    extraction,
    new_store,
    penalize,
    promote,
    reinforce,
    resolve,
    revalidate,
    transition,
    update,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.config import ENGINE_V1
from engine.reducer import Reducer, apply
from engine.store import InMemoryStateStore
from engine.trust import COMMAND_EVIDENCE, EVENT_EVIDENCE, NOT_AUTHORITATIVE, evidence_kind_of, is_established
from engine.world_rules import proposal_reason
from schemas.commands import CommandBase
from schemas.common import ActorRef
from schemas.enums import (
    ActorType,
    EpistemicType,
    EvidenceKind,
    LifecycleState,
    OpType,
    Polarity,
    PrincipalKind,
    Role,
    SignalType,
    SourceType,
)
from schemas.nodes import MemoryNode

E = EpistemicType
K = EvidenceKind
L = LifecycleState


def _node(store: InMemoryStateStore, node_id: str) -> MemoryNode:
    node = store.get_node(node_id)
    assert node is not None
    return node


def _created(store: InMemoryStateStore, *claims: Any, **event_kw: Any) -> list[str]:
    res = apply(store, extraction(*claims, **event_kw))
    assert res.status == "applied", res.outcome
    return list(res.outcome.created_node_ids)


def _paris(store: InMemoryStateStore) -> str:
    [node_id] = _created(store, claim("user", "lives in", "Paris"), event_id="ev-paris", occurred=at(0))
    return node_id


def test_the_evidence_kind_tables_say_who_authored_the_words() -> None:
    platform = EVENT_EVIDENCE[PrincipalKind.PLATFORM]
    assert {role: platform[role] for role in Role} == {
        Role.USER: K.HUMAN_STATEMENT, Role.HUMAN: K.HUMAN_STATEMENT, Role.PARTICIPANT: K.HUMAN_STATEMENT,
        Role.TOOL: K.OBJECTIVE_MEASUREMENT, Role.ASSISTANT: K.MODEL_SUGGESTION, Role.SYSTEM: K.MODEL_SUGGESTION,
    }
    assert set(EVENT_EVIDENCE[PrincipalKind.AGENT].values()) == {K.MODEL_SUGGESTION}
    assert set(COMMAND_EVIDENCE[PrincipalKind.AGENT].values()) == {K.MODEL_SUGGESTION}
    # a person's own channel cannot claim a connector's measurement; a platform relays it
    assert COMMAND_EVIDENCE[PrincipalKind.HUMAN][ActorType.EXTERNAL_CONNECTOR] is K.HUMAN_STATEMENT
    assert COMMAND_EVIDENCE[PrincipalKind.PLATFORM][ActorType.EXTERNAL_CONNECTOR] is K.OBJECTIVE_MEASUREMENT
    assert COMMAND_EVIDENCE[None][ActorType.AI_AGENT] is K.MODEL_SUGGESTION


def test_the_evidence_kind_follows_the_author_not_the_extractor() -> None:
    store = new_store()
    # the LLM extractor labelled this one SYSTEM_INFERRED: the words are still the user's
    [from_user] = _created(store, claim("user", "works at", "Acme", source_type=SourceType.SYSTEM_INFERRED))
    [from_tool] = _created(store, claim("build 512", "status", "green"), role=Role.TOOL)
    [from_bot] = _created(store, claim("user", "likes", "tea", epistemic=E.INFERRED), role=Role.ASSISTANT)
    assert [_node(store, n).evidence_kind for n in (from_user, from_tool, from_bot)] == [
        K.HUMAN_STATEMENT, K.OBJECTIVE_MEASUREMENT, K.MODEL_SUGGESTION,
    ]
    res = apply(store, extraction(claim("user", "owns", "a bike"), role=Role.PARTICIPANT))
    [asserted] = [op for op in res.operations if op.op_type is OpType.ASSERT]
    assert asserted.payload["evidence_kind"] == "HUMAN_STATEMENT"


def test_the_evidence_kind_never_changes_with_the_claim() -> None:
    store = new_store()
    node_id = _paris(store)
    snapshots = []
    for cmd in (reinforce(node_id, issued_at=at(1)), promote(node_id, issued_at=at(2)),
                transition(node_id, E.OBSERVED, issued_at=at(3)), deprecate(node_id, issued_at=at(4))):
        res = apply(store, cmd)
        assert res.status == "applied"
        snapshots += [op.after for op in res.operations if op.after is not None]
    node = _node(store, node_id)
    assert node.epistemic_type is E.DEPRECATED and node.evidence_kind is K.HUMAN_STATEMENT
    assert len(snapshots) == 4 and {s.evidence_kind for s in snapshots} == {K.HUMAN_STATEMENT}


def test_a_model_suggestion_never_supersedes_an_established_claim() -> None:
    store = new_store()
    paris = _paris(store)
    # the assistant writes an explicit update ("you moved from Paris to Berlin"), typed ASSERTED
    [berlin] = _created(store, update("user", "lives in", "Berlin", replaces="Paris"), role=Role.ASSISTANT,
                        event_id="ev-bot", occurred=at(1))
    assert _node(store, paris).lifecycle is L.TENTATIVE and _node(store, paris).superseded_by is None
    assert _node(store, berlin).supersedes == () and proposal_reason(_node(store, berlin)) == "model_derived"
    # the user saying it supersedes, by the PRME update rule
    [own] = _created(store, update("user", "lives in", "Berlin", replaces="Paris"), event_id="ev-me", occurred=at(2))
    assert _node(store, paris).lifecycle is L.SUPERSEDED and _node(store, paris).superseded_by == own


def test_a_model_suggestion_never_contests_an_established_claim() -> None:
    store = new_store()
    paris = _paris(store)
    [denial] = _created(store, claim("user", "lives in", "Paris", polarity=Polarity.NEGATIVE), role=Role.SYSTEM,
                        occurred=at(1))
    assert _node(store, paris).lifecycle is L.TENTATIVE and _node(store, paris).contradicts == ()
    assert _node(store, denial).lifecycle is L.TENTATIVE and _node(store, denial).contradicts == ()


def test_a_model_suggestion_matching_a_fact_stays_a_proposal() -> None:
    store = new_store()
    paris = _paris(store)
    echo = _created(store, claim("user", "lives in", "Paris"), role=Role.USER, channel=PrincipalKind.AGENT,
                    occurred=at(1))[0]
    node = _node(store, echo)
    assert node.evidence_kind is K.MODEL_SUGGESTION and not is_established(node)
    assert (node.epistemic_type, node.source_type) == (E.INFERRED, SourceType.SYSTEM_INFERRED)
    assert proposal_reason(node) == "inferred" and proposal_reason(_node(store, paris)) is None
    # whatever type it was given, a model's claim is a proposal
    typed_up = node.model_copy(update={"epistemic_type": E.ASSERTED, "source_type": SourceType.USER_STATED})
    assert proposal_reason(typed_up) == "model_suggestion"


def test_an_established_claim_supersedes_and_contests_model_suggestions() -> None:
    store = new_store()
    [guess] = _created(store, claim("user", "drinks", "coffee"), role=Role.ASSISTANT, event_id="ev-guess")
    [denial] = _created(store, claim("user", "drinks", "coffee", polarity=Polarity.NEGATIVE), occurred=at(1))
    assert _node(store, guess).lifecycle is L.CONTESTED and _node(store, denial).contradicts == (guess,)


def test_an_agent_channel_cannot_change_an_established_claim_and_a_human_channel_can() -> None:
    store = new_store()
    paris = _paris(store)
    # Another claim of the user's that leaves Paris alone (a second city would contest it).
    [other] = _created(store, claim("user", "likes", "jazz"), event_id="ev-jazz", occurred=at(1))
    guarded: list[CommandBase] = [
        promote(paris, actor=AGENT), deprecate(paris, actor=AGENT), archive(paris, actor=AGENT),
        transition(paris, E.OBSERVED, actor=AGENT), contradict(paris, other, actor=AGENT),
        penalize(paris, SignalType.CORRECTED, actor=AGENT),
        penalize(paris, SignalType.CONTRADICTED_BY_OBSERVATION, actor=AGENT),
        # a human actor named by an agent channel is still the agent
        deprecate(paris, actor=USER, channel=PrincipalKind.AGENT),
        # a system process is a model too
        deprecate(paris, actor=ActorRef(actor_id="cron", actor_type=ActorType.SYSTEM_PROCESS)),
    ]
    for cmd in guarded:
        res = apply(store, cmd)
        assert res.status == "rejected" and res.outcome.error_code == NOT_AUTHORITATIVE, cmd.command
        [op] = res.operations
        assert op.op_type is OpType.COMMAND_REJECTED and op.payload["code"] == "channel_not_authoritative"
    assert _node(store, paris).lifecycle is L.TENTATIVE and _node(store, paris).confidence == 0.80
    # reinforcement and other penalties move numbers, not the set of facts
    assert apply(store, reinforce(paris, actor=AGENT, issued_at=at(2))).status == "applied"
    assert apply(store, penalize(paris, SignalType.TASK_FAILED_WITH, actor=AGENT, issued_at=at(2))).status == "applied"
    # a human channel may do what the agent may not; a measurement (a connector) too
    assert apply(store, contradict(paris, other, actor=USER, channel=PrincipalKind.HUMAN)).status == "applied"
    assert apply(store, resolve(paris, other, actor=AGENT, issued_at=at(3))).outcome.error_code == NOT_AUTHORITATIVE
    assert apply(store, resolve(paris, other, actor=TOOL, issued_at=at(3))).status == "applied"
    assert _node(store, other).lifecycle is L.DEPRECATED


def test_an_agent_manages_its_own_suggestions() -> None:
    store = new_store()
    [guess] = _created(store, claim("user", "likes", "jazz", epistemic=E.INFERRED), role=Role.ASSISTANT)
    assert apply(store, promote(guess, actor=AGENT)).status == "applied"
    assert apply(store, deprecate(guess, actor=AGENT, issued_at=at(1))).status == "applied"
    assert _node(store, guess).lifecycle is L.DEPRECATED


def test_condition_evaluation_of_an_established_claim_needs_a_measurement_or_a_person() -> None:
    store = new_store()
    [cond] = _created(store, claim("user", "joins", "the trip", epistemic=E.CONDITIONAL, condition="if it is sunny"))
    assert apply(store, evaluate(cond, "TRUE", actor=AGENT)).outcome.error_code == NOT_AUTHORITATIVE
    assert apply(store, evaluate(cond, "TRUE", actor=TOOL, issued_at=at(1))).status == "applied"


def test_engine_v1_keeps_the_rules_old_logs_were_written_under() -> None:
    store = new_store()
    reducer = Reducer(ENGINE_V1)
    [paris] = reducer.apply(store, extraction(claim("user", "lives in", "Paris"))).outcome.created_node_ids
    assert _node(store, paris).evidence_kind is None  # not written, so old records keep their bytes
    assert evidence_kind_of(_node(store, paris)) is K.HUMAN_STATEMENT  # derived from the role
    assert reducer.apply(store, deprecate(paris, actor=AGENT)).status == "applied"


# ------------------------------------------------------------------ the end-to-end property
_SUBJECT_PREDICATES = [("user", "lives in"), ("user", "works at"), ("user", "drinks")]
_OBJECTS = ["Paris", "Berlin", "Acme", "coffee", "tea"]


def _established_facts(store: InMemoryStateStore) -> dict[str, tuple[Any, ...]]:
    """What the established context says: every human/measured claim's state and value."""
    return {
        n.node_id: (n.lifecycle, n.epistemic_type, n.object, n.polarity, n.superseded_by, n.contradicts, n.valid_to,
                    n.expires_at)
        for n in store.iter_nodes()
        if is_established(n)
    }


@st.composite
def _suggestion(draw: st.DrawFn, ids: list[str], i: int) -> Any:
    kind = draw(st.sampled_from(["extract", "command"]))
    if kind == "extract" or not ids:
        subject, predicate = draw(st.sampled_from(_SUBJECT_PREDICATES))
        obj = draw(st.sampled_from(_OBJECTS))
        shape = draw(st.sampled_from(["plain", "negative", "update"]))
        et = draw(st.sampled_from([E.ASSERTED, E.OBSERVED, E.INFERRED]))
        if shape == "update":
            c = update(subject, predicate, obj, replaces=draw(st.sampled_from(_OBJECTS)), epistemic=et)
        else:
            pol = Polarity.NEGATIVE if shape == "negative" else Polarity.POSITIVE
            c = claim(subject, predicate, obj, epistemic=et, polarity=pol)
        role, channel = draw(st.sampled_from([
            (Role.ASSISTANT, None), (Role.SYSTEM, None), (Role.USER, PrincipalKind.AGENT),
            (Role.TOOL, PrincipalKind.AGENT), (Role.PARTICIPANT, PrincipalKind.AGENT),
        ]))
        return extraction(c, role=role, channel=channel, event_id=f"sugg-{i}", occurred=at(1 + i))
    target = draw(st.sampled_from(ids))
    other = draw(st.sampled_from(ids))
    actor, channel = draw(st.sampled_from([(AGENT, None), (USER, PrincipalKind.AGENT), (TOOL, PrincipalKind.AGENT),
                                           (ActorRef(actor_id="cron", actor_type=ActorType.SYSTEM_PROCESS), None)]))
    kw = {"actor": actor, "channel": channel, "issued_at": at(1 + i)}
    maker = draw(st.sampled_from(["promote", "deprecate", "archive", "transition", "contradict", "resolve",
                                  "penalize", "reinforce", "evaluate", "revalidate"]))
    if maker == "transition":
        return transition(target, draw(st.sampled_from([E.DEPRECATED, E.OBSERVED, E.HYPOTHETICAL])), **kw)
    if maker in ("contradict", "resolve"):
        return (contradict if maker == "contradict" else resolve)(target, other, **kw)
    if maker == "penalize":
        return penalize(target, draw(st.sampled_from(sorted(SignalType))), **kw)
    if maker == "evaluate":
        return evaluate(target, draw(st.sampled_from(["TRUE", "FALSE", "EXPIRED"])), **kw)
    if maker == "revalidate":  # would make the expired Paris claim current again
        return revalidate(target, at(100), evidence_quote="still so", **kw)
    return {"promote": promote, "deprecate": deprecate, "archive": archive, "reinforce": reinforce}[maker](target, **kw)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), length=st.integers(min_value=1, max_value=25))
def test_no_sequence_of_model_suggestions_changes_the_established_facts(data: st.DataObject, length: int) -> None:
    store = new_store()
    _created(store, claim("user", "lives in", "Paris"), event_id="h-1", expires_at=at(0.5))
    _created(store, claim("user", "works at", "Acme"), event_id="h-2")
    _created(store, claim("user", "drinks", "coffee", polarity=Polarity.NEGATIVE), event_id="h-3")
    _created(store, claim("user", "drinks", "tea", epistemic=E.CONDITIONAL, condition="if it is cold"), event_id="h-4")
    _created(store, claim("build", "status", "green"), role=Role.TOOL, event_id="h-5")
    before = _established_facts(store)
    assert len(before) == 5
    for i in range(length):
        ids = sorted(n.node_id for n in store.iter_nodes())
        item = data.draw(_suggestion(ids, i))
        apply(store, item)
    assert _established_facts(store) == before


def test_the_reducer_refuses_a_constructed_authority_grant() -> None:
    """Validation refuses grants with ``authority_grant``; an input built without it is refused here too."""
    grant = claim("bot", "has", "admin access", evidence_quote="The bot has admin access.")
    ok = claim("user", "uses", "1Password", evidence_quote="I use 1Password.")
    res = apply(new_store(), extraction(grant, ok))
    assert res.outcome.skipped_claims == (0,) and len(res.outcome.created_node_ids) == 1
