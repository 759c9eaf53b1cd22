"""Erasure in the reducer: what goes, what survives, and that a shredded log replays to the live state."""

from __future__ import annotations

from engine.erasure import as_erased, node_unit, owner_unit, payload_unit, units_of_erasure
from engine.reducer import Reducer
from engine.replay import replay
from engine.store import InMemoryStateStore
from schemas.commands import EraseCommand
from schemas.enums import OpType, Role
from schemas.erasure import ErasureScope
from schemas.operations import Operation
from tests.unit.engine.factories import AGENT, at, claim, event_ref, extraction, reinforce

R = Reducer()


def _erase(kind: str, *, owner: str = "alice", events: tuple[str, ...] = (), **kw: object) -> EraseCommand:
    scope = {"tenant_id": "t1", "kind": kind, **({"owner_id": owner} if kind != "speaker" else {}), **kw}
    if kind == "event":
        scope["event_id"] = events[0].partition("/")[2]
    erasure_id = ErasureScope.model_validate(scope).erasure_id()
    return EraseCommand(
        tenant_id="t1", owner_id=owner, scope="personal", command_id=f"erase-{kind}-{owner}",
        actor=AGENT, issued_at=at(days=3), erasure_id=erasure_id, kind=kind,
        subject_owner=None if kind == "speaker" else owner, event_ids=events, **kw,
    )  # fmt: skip


def _world() -> tuple[InMemoryStateStore, list[Operation], dict[str, str]]:
    """alice: two messages (one reinforced with the other as evidence); bob: one, said by carol."""
    store = InMemoryStateStore()
    ops: list[Operation] = []
    ids: dict[str, str] = {}
    first = extraction(claim("Alice", "lives_in", "Zanzibarqx"), event=event_ref("ev-a1", conversation_id="c1"))
    second = extraction(claim("Alice", "likes", "Quorbleflux"), event=event_ref("ev-a2", conversation_id="c2"))
    said = extraction(
        claim("Carol", "plays", "Vexmandolin"),
        event=event_ref("ev-b1", owner_id="bob", role=Role.PARTICIPANT, speaker="Carol", speaker_id="carol"),
    )
    for item in (first, second, said):
        result = R.apply(store, item)
        ops.extend(result.operations)
    ids["a1"] = next(n.node_id for n in store.owner_nodes("t1", "alice") if n.object == "Zanzibarqx")
    ids["a2"] = next(n.node_id for n in store.owner_nodes("t1", "alice") if n.object == "Quorbleflux")
    ids["b1"] = store.owner_nodes("t1", "bob")[0].node_id
    ops.extend(R.apply(store, reinforce(ids["a2"], evidence_ids=("ev-a1",), issued_at=at(days=1))).operations)
    return store, ops, ids


def _shredded_replay(ops: list[Operation]) -> InMemoryStateStore:
    destroyed = set().union(*(units_of_erasure(op) for op in ops if op.op_type is OpType.ERASED))
    if any(op.op_type is OpType.ERASED and op.payload.get("kind") == "owner" for op in ops):
        destroyed |= {owner_unit("t1", str(op.payload["subject_owner"])) for op in ops
                      if op.op_type is OpType.ERASED and op.payload.get("kind") == "owner"}  # fmt: skip
    return replay([as_erased(op, destroyed) for op in ops], verify=False)


def test_an_owner_erasure_removes_all_of_their_memory_and_replays_from_the_shredded_log() -> None:
    store, ops, ids = _world()
    result = R.apply(store, _erase("owner", events=("alice/ev-a1", "alice/ev-a2")))
    ops.extend(result.operations)
    erased = result.operations[0]
    assert erased.op_type is OpType.ERASED and erased.target_id == _erase("owner", events=("alice/ev-a1",)).erasure_id
    assert erased.payload["counts"] == {"nodes": 2, "edges": 0, "events": 2, "requests": 0, "evidence_refs": 0}
    assert sorted(erased.payload["nodes"]) == sorted([ids["a1"], ids["a2"]])
    assert store.owner_nodes("t1", "alice") == []
    assert [n.node_id for n in store.owner_nodes("t1", "bob")] == [ids["b1"]]
    assert store.owner_events("t1", "alice", "ev-a1") == () and store.owner_events("t1", "bob", "ev-b1") != ()
    assert "Zanzibarqx" not in str(erased.model_dump())  # ids and counts, never content
    assert _shredded_replay(ops).snapshot() == store.snapshot()
    # a redelivered message of the erased owner is a duplicate: erasure is not undone by the raw topic
    again = extraction(claim("Alice", "lives_in", "Zanzibarqx"), event=event_ref("ev-a1", conversation_id="c1"))
    assert R.apply(store, again).status == "duplicate"


def test_an_event_erasure_keeps_the_claims_citing_it_but_strips_the_reference() -> None:
    store, ops, ids = _world()
    result = R.apply(store, _erase("event", events=("alice/ev-a1",), ))
    ops.extend(result.operations)
    assert store.get_node(ids["a1"]) is None
    survivor = store.get_node(ids["a2"])
    assert survivor is not None and survivor.object == "Quorbleflux"
    assert survivor.evidence_refs == ("ev-a2",) and survivor.erased_evidence_refs == ("ev-a1",)
    assert [op.op_type for op in result.operations] == [OpType.ERASED, OpType.EVIDENCE_ERASED]
    assert result.operations[0].payload["counts"]["evidence_refs"] == 1
    assert _shredded_replay(ops).snapshot() == store.snapshot()


def test_a_speaker_erasure_reaches_every_owner_and_a_conversation_erasure_one() -> None:
    store, ops, ids = _world()
    result = R.apply(store, _erase("speaker", owner="bob", speaker_id="carol", events=("bob/ev-b1",)))
    ops.extend(result.operations)
    assert store.owner_nodes("t1", "bob") == [] and len(store.owner_nodes("t1", "alice")) == 2
    result = R.apply(store, _erase("conversation", conversation_id="c2", events=("alice/ev-a2",)))
    ops.extend(result.operations)
    assert [n.node_id for n in store.owner_nodes("t1", "alice")] == [ids["a1"]]
    assert _shredded_replay(ops).snapshot() == store.snapshot()


def test_a_repeated_erasure_is_a_duplicate_and_a_failed_one_leaves_no_trace() -> None:
    store, _ops, _ids = _world()
    command = _erase("owner", events=("alice/ev-a1", "alice/ev-a2"))
    assert R.apply(store, command).status == "applied"
    before = store.snapshot()
    assert R.apply(store, command).status == "duplicate" and store.snapshot() == before
    fresh, _o, _i = _world()
    snapshot = fresh.snapshot()
    try:
        with fresh.transaction():
            R._erase(fresh, command, __import__("engine.emitter").emitter.Emitter(
                fresh, input_id="x", scope=command, occurred_at=command.issued_at))  # fmt: skip
            raise RuntimeError("fails after the fold")
    except RuntimeError:
        pass
    assert fresh.snapshot() == snapshot


def test_which_key_seals_what() -> None:
    store, ops, ids = _world()
    node = store.get_node(ids["a1"])
    assert node is not None and node_unit(node) == ("t1", "alice", "ev-a1")
    journal = next(op for op in ops if op.op_type is OpType.EXTRACTION_VALIDATED)
    assert payload_unit(journal) == ("t1", "alice", "ev-a1")
    reinforced = next(op for op in ops if op.op_type is OpType.REINFORCE)
    assert payload_unit(reinforced) == ("t1", "alice", "ev-a2")  # the claim's event, not the command's owner
