"""Admission sorts a batch per stream, refuses reused ids and far-off times, and stamps knowledge time."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from engine.reducer import Reducer
from engine.store import InMemoryStateStore
from extractors.rules import RuleExtractor
from schemas.errors import InvalidEvent
from schemas.events import ConversationEvent, TimeBounds
from streams import agents

T = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _event(event_id: str, content: str, owner: str = "alice", **extra: object) -> ConversationEvent:
    return ConversationEvent.model_validate({
        "event_id": event_id, "tenant_id": "t1", "owner_id": owner, "scope": "personal", "role": "user",
        "content": content, "occurred_at": T.isoformat(), **extra,
    })  # fmt: skip


def _reduce(store: InMemoryStateStore, events: list[ConversationEvent]) -> None:
    reducer, extractor = Reducer(), RuleExtractor()
    for e in events:
        agents.materialize(store, reducer, agents.extract(extractor, e))


def test_a_batch_is_sorted_per_stream() -> None:
    store = InMemoryStateStore()
    _reduce(store, [_event("a1", "I like tea.")])
    batch = [
        _event("a1", "I like tea."),  # redelivery of the log
        _event("a1", "I like gin."),  # reused id, other content
        _event("a1", "I like tea.", owner="bob"),  # bob's own a1: a new event
        _event("b2", "I drink milk."),
        _event("b2", "I drink milk."),  # repeated within the batch
        _event("b2", "I drink beer."),  # reused within the batch
    ]
    out = agents.sort_events(batch, store)
    assert [(e.owner_id, e.content) for e in out.fresh] == [("bob", "I like tea."), ("alice", "I drink milk.")]
    assert out.duplicates == 2
    assert [e.content for e in out.conflicts] == ["I like gin.", "I drink beer."]


def test_a_conflict_letter_names_the_reason_and_keeps_the_masked_event() -> None:
    letter = agents.conflict_letter(_event("a1", "I like gin."), T)
    assert letter.reason_code == "event_id_conflict" and letter.source == "admission"
    assert json.loads(letter.masked_bytes)["content"] == "I like gin."


@pytest.mark.parametrize(
    ("occurred", "code"),
    [
        (T + timedelta(hours=24, seconds=1), "occurred_at_in_future"),
        (datetime(9999, 1, 1, tzinfo=UTC), "occurred_at_in_future"),
        (datetime(1999, 12, 31, 23, 59, tzinfo=UTC), "occurred_at_before_floor"),
    ],
)
def test_times_out_of_bounds_are_refused(occurred: datetime, code: str) -> None:
    event = _event("a1", "I live in Paris.").model_copy(update={"occurred_at": occurred})
    with pytest.raises(InvalidEvent) as err:
        TimeBounds().check(event, T)
    assert err.value.code == code


def test_times_within_bounds_pass_and_the_receive_time_is_the_reference() -> None:
    bounds = TimeBounds()
    bounds.check(_event("a1", "x").model_copy(update={"occurred_at": T + timedelta(hours=23)}), T)
    bounds.check(_event("a1", "x").model_copy(update={"occurred_at": datetime(2000, 1, 1, tzinfo=UTC)}), T)
    # The event's own receive time, when it has one, is what occurred_at is measured against.
    late = _event("a1", "x", received_at=(T + timedelta(days=3)).isoformat())
    bounds.check(late.model_copy(update={"occurred_at": T + timedelta(days=3, hours=1)}), T)


def test_admission_stamps_the_receive_time_and_refuses_far_future_events() -> None:
    fields = {"event_id": "a1", "tenant_id": "t1", "owner_id": "alice", "scope": "personal", "role": "user",
              "content": "hi", "occurred_at": T.isoformat(), "received_at": "1990-01-01T00:00:00Z"}  # fmt: skip
    raw = json.dumps(fields).encode()
    now = T + timedelta(minutes=5)
    kept = agents.admit(raw, source="kafka", received_at=now, bounds=TimeBounds(), stamp=True)
    assert isinstance(kept, ConversationEvent) and kept.received_at == now and kept.recorded_at == now
    # Not stamped (a file the operator imports): the event's own receive time stays, and is checked.
    forged = agents.admit(raw, source="file", received_at=now, bounds=TimeBounds())
    assert isinstance(forged, agents.Rejected) and forged.letter.reason_code == "occurred_at_in_future"
    imported = raw.replace(b"1990-01-01T00:00:00Z", b"2026-03-02T09:00:00Z")
    kept_time = agents.admit(imported, source="file", received_at=now, bounds=TimeBounds())
    assert isinstance(kept_time, ConversationEvent) and kept_time.received_at == datetime(2026, 3, 2, 9, tzinfo=UTC)
    future = raw.replace(T.isoformat().encode(), b"9999-01-01T00:00:00+00:00")
    refused = agents.admit(future, source="kafka", received_at=now, bounds=TimeBounds(), stamp=True)
    assert isinstance(refused, agents.Rejected) and refused.letter.reason_code == "occurred_at_in_future"
