"""Event ids name an event within its stream: no oracle across owners, conflicts refused, old ids honoured."""

from __future__ import annotations

from engine_factories import T0, claim, event_ref, extraction, new_store

from engine.event_identity import event_status
from engine.reducer import apply
from schemas.claims import EVENT_ID_SCHEME, EventRef, event_input_id
from schemas.common import ScopeRef
from schemas.enums import Role, Scope
from schemas.events import ConversationEvent

ALICE = ScopeRef(tenant_id="t1", owner_id="alice", scope=Scope.PERSONAL)
BOB = ScopeRef(tenant_id="t1", owner_id="bob", scope=Scope.PERSONAL)


def _v2(event_id: str, digest: str = "0" * 64, **scope: object) -> EventRef:
    return event_ref(event_id, **scope).model_copy(update={"id_scheme": EVENT_ID_SCHEME, "content_sha256": digest})


def test_new_events_get_stream_scoped_input_ids() -> None:
    event = ConversationEvent(event_id="a1", tenant_id="t1", owner_id="alice", scope=Scope.PROJECT, scope_id="p9",
                              role=Role.USER, content="I like tea.", occurred_at=T0)  # fmt: skip
    ref = EventRef.of(event)
    assert ref.id_scheme == 2
    assert ref.input_id == "event2:t1/alice/project:p9/a1"
    # An event reduced before scheme 2 keeps its tenant-scoped id (the field is absent from its record).
    legacy = event_ref("a1")
    assert legacy.id_scheme is None and legacy.input_id == "event:t1/a1" == event_input_id("t1", "a1")
    assert "id_scheme" not in legacy.model_dump(mode="json")


def test_the_same_id_in_another_owners_stream_is_another_event() -> None:
    store = new_store()
    alice = apply(store, extraction(claim("user", "likes", "tea"), event=_v2("a1")))
    bob = apply(store, extraction(claim("user", "likes", "coffee"), event=_v2("a1", owner_id="bob")))
    assert alice.status == "applied" and bob.status == "applied"
    assert alice.outcome.input_id == "event2:t1/alice/personal/a1"
    assert bob.outcome.input_id == "event2:t1/bob/personal/a1"
    assert set(alice.outcome.node_ids).isdisjoint(bob.outcome.node_ids)
    assert event_status(store, BOB, "a2", "0" * 64) == ("new", "event2:t1/bob/personal/a2")
    # Bob's events say nothing about Alice's ids and the other way round.
    carol = ScopeRef(tenant_id="t1", owner_id="carol", scope=Scope.PERSONAL)
    assert event_status(store, carol, "a1", "0" * 64)[0] == "new"


def test_a_redelivery_is_a_duplicate_and_a_reused_id_with_other_content_a_conflict() -> None:
    store = new_store()
    first = apply(store, extraction(claim("user", "likes", "tea"), event=_v2("a1", "1" * 64)))
    again = apply(store, extraction(claim("user", "likes", "tea"), event=_v2("a1", "1" * 64)))
    assert again.status == "duplicate" and again.operations == [] and again.outcome.input_id == first.outcome.input_id
    other = apply(store, extraction(claim("user", "likes", "gin"), event=_v2("a1", "2" * 64)))
    assert other.status == "rejected" and other.operations == []
    assert other.outcome.error_code == "event_id_conflict" and other.outcome.error_class == "EventIdConflict"
    assert event_status(store, ALICE, "a1", "2" * 64) == ("conflict", first.outcome.input_id)
    assert [n.content for n in store.owner_nodes("t1", "alice")] == [first_node_content(store)]
    # The same id in another scope of the same owner is a separate stream.
    work = apply(store, extraction(claim("user", "likes", "gin"), event=_v2("a1", "2" * 64, scope="project",
                                                                            scope_id="w")))  # fmt: skip
    assert work.status == "applied" and work.outcome.input_id == "event2:t1/alice/project:w/a1"


def first_node_content(store: object) -> str:
    (node,) = store.owner_nodes("t1", "alice")  # type: ignore[attr-defined]
    return str(node.content)


def test_an_event_logged_under_the_old_scheme_is_still_recognised() -> None:
    store = new_store()
    legacy = apply(store, extraction(claim("user", "likes", "tea"), event=event_ref("a1")))
    assert legacy.outcome.input_id == "event:t1/a1"
    # The same message delivered again after the change (the extractor now writes scheme 2).
    redelivered = apply(store, extraction(claim("user", "likes", "tea"), event=_v2("a1")))
    assert redelivered.status == "duplicate" and redelivered.outcome.input_id == "event:t1/a1"
    assert redelivered.operations == []
    # Another owner's event a1 is not shadowed by the old tenant-wide id.
    bob = apply(store, extraction(claim("user", "likes", "tea"), event=_v2("a1", owner_id="bob")))
    assert bob.status == "applied"


def test_a_conflict_changes_nothing_and_replay_reproduces_the_state() -> None:
    store = new_store()
    ops = apply(store, extraction(claim("user", "likes", "tea"), event=_v2("a1", "1" * 64))).operations
    before = store.snapshot()
    apply(store, extraction(claim("user", "likes", "gin"), event=_v2("a1", "2" * 64)))
    assert store.snapshot() == before
    replayed = new_store()
    replayed.apply_all(ops)
    assert replayed.snapshot() == before
    assert event_status(replayed, ALICE, "a1", "2" * 64)[0] == "conflict"
