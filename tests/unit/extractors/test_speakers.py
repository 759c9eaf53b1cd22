"""Who said it: two named people in one conversation, each claim about the right one, the speaker as given."""

from __future__ import annotations

import json
from typing import Any

from engine.reducer import Reducer
from engine.store import InMemoryStateStore
from extractors.rules import RuleExtractor
from schemas.events import parse_event
from schemas.nodes import MemoryNode
from sinks.documents import lexical_texts


def _event(i: int, content: str, role: str, speaker: str, speaker_id: str, **extra: Any) -> Any:
    return parse_event(json.dumps({
        "event_id": f"sp-{i}", "tenant_id": "t", "owner_id": "maya", "scope": "personal", "conversation_id": "c",
        "session_id": "s1", "role": role, "speaker": speaker, "speaker_id": speaker_id, "content": content,
        "occurred_at": f"2024-04-0{i}T18:00:00+02:00", **extra,
    }))  # fmt: skip


CHAT = [
    _event(1, "i just adopted a beagle called Pip", "user", "Maya", "maya"),
    _event(2, "omg cute!! I live in Porto now btw", "participant", "Jon", "jon"),
    _event(3, "I work as a nurse at the children's hospital", "participant", "Jon", "jon"),
    _event(4, "I work at a bakery", "user", "Maya", "maya"),
]


def _nodes() -> list[MemoryNode]:
    reducer, store, extractor = Reducer(), InMemoryStateStore(), RuleExtractor()
    for event in CHAT:
        reducer.apply(store, extractor.extract(event))
    return store.owner_nodes("t", "maya")


def _about(nodes: list[MemoryNode], predicate: str) -> dict[str, MemoryNode]:
    return {n.subject: n for n in nodes if n.predicate == predicate}


def test_a_participants_first_person_claims_are_about_them_not_the_owner() -> None:
    nodes = _nodes()
    lives = _about(nodes, "lives_in")
    assert list(lives) == ["Jon"] and lives["Jon"].object == "Porto"
    assert _about(nodes, "works_as")["Jon"].object == "nurse"  # Jon's job and Maya's (the owner's) stay apart
    assert list(_about(nodes, "works_at")) == ["user"] and _about(nodes, "works_at")["user"].object == "bakery"


def test_claims_record_the_speaker_as_the_event_gives_it() -> None:
    by_subject = {(n.subject, n.predicate): n for n in _nodes()}
    jon = by_subject[("Jon", "lives_in")]
    assert (jon.asserted_by.actor_id, jon.speaker, jon.role.value) == ("jon", "Jon", "participant")  # type: ignore[union-attr]
    maya = by_subject[("user", "works_at")]
    assert (maya.asserted_by.actor_id, maya.speaker) == ("maya", "Maya")


def test_without_a_speaker_id_the_display_name_is_the_actor() -> None:
    event = parse_event(json.dumps({
        "event_id": "n-1", "tenant_id": "t", "owner_id": "maya", "scope": "personal", "role": "participant",
        "speaker": "Ana", "content": "I live in Braga.", "occurred_at": "2024-04-01T10:00:00Z",
    }))  # fmt: skip
    store = InMemoryStateStore()
    Reducer().apply(store, RuleExtractor().extract(event))
    (node,) = store.owner_nodes("t", "maya")
    assert (node.subject, node.asserted_by.actor_id, node.speaker) == ("Ana", "Ana", "Ana")


def test_a_question_naming_the_owner_meets_the_owners_claims() -> None:
    """The owner's claims are about "user"; their display name is indexed beside them."""
    maya = next(n for n in _nodes() if n.subject == "user" and n.predicate == "works_at")
    assert "Maya" in lexical_texts(maya)["context"]


def test_a_claim_keeps_the_date_its_sentence_refers_to() -> None:
    event = _event(5, "we moved into the new flat yesterday. I love the balcony", "participant", "Jon", "jon")
    result = RuleExtractor().extract(event)
    dated = {c.predicate: c.event_dates for c in result.claims}
    assert ("2024-04-04",) in dated.values()  # sent on the 5th, local time: the move was the 4th
    assert () in dated.values()  # "I love the balcony" says no date
