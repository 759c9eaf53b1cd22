"""What a caller cannot forge: other owners' event ids, another key's idempotency, receipts, and time."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_api_support import Keys, Permission, event, open_runner, settings_for

from epistream.api import create_app
from epistream.runner import EmbeddedRunner

pytestmark = pytest.mark.integration
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


class World:
    def __init__(self, client: TestClient, keys: Keys, runner: EmbeddedRunner) -> None:
        self.client, self.keys, self.runner = client, keys, runner

    def post(self, who: str, body: Any, **headers: str) -> Any:
        return self.client.post("/v1/events", json=body, headers={**self.keys.auth(who), **headers})

    def contents(self, owner: str) -> list[str]:
        return sorted(n.content for n in self.runner.store.owner_nodes("t1", owner))


@pytest.fixture(scope="module")
def world(chdb_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    data = tmp_path_factory.mktemp("api-boundaries")
    settings = settings_for(data)
    keys = Keys()
    keys.add("alice", "t1", frozenset({Permission.READ, Permission.WRITE, Permission.ASSERT}), owners={"alice"})
    keys.add("bob", "t1", frozenset({Permission.READ, Permission.WRITE, Permission.ASSERT}), owners={"bob"})
    keys.add("alice-bot", "t1", frozenset({Permission.READ, Permission.WRITE, Permission.ASSERT}), owners={"alice"})
    keys.add("admin", "t1")
    with open_runner(chdb_path, data, settings) as runner:
        app = create_app(runner, api_keys=keys.ring(), settings=settings, clock=lambda: NOW)
        with TestClient(app) as client:
            yield World(client, keys, runner)


def _result(r: Any) -> dict[str, Any]:
    body: dict[str, Any] = r.json()
    (only,) = body["results"]
    return dict(only)


def test_another_owners_event_ids_are_neither_revealed_nor_taken(world: World) -> None:
    assert _result(world.post("alice", event("x-1", "I grow tomatoes.", owner="alice")))["status"] == "accepted"
    # Bob sending Alice's id learns nothing: it is a new event of his own stream.
    r = world.post("bob", event("x-1", "I grow peppers.", owner="bob"))
    assert _result(r)["status"] == "accepted"
    # Bob taking an id first does not drop Alice's later event of the same id.
    assert _result(world.post("bob", event("x-2", "I keep bees.", owner="bob")))["status"] == "accepted"
    assert _result(world.post("alice", event("x-2", "I keep chickens.", owner="alice")))["status"] == "accepted"
    assert "I keep chickens." in " ".join(world.contents("alice"))
    assert "I keep bees." in " ".join(world.contents("bob"))
    assert not any("peppers" in c or "bees" in c for c in world.contents("alice"))


def test_a_reused_id_with_other_content_is_a_conflict_and_kept_as_a_dead_letter(world: World) -> None:
    assert _result(world.post("alice", event("y-1", "I play the cello.", owner="alice")))["status"] == "accepted"
    again = _result(world.post("alice", event("y-1", "I play the cello.", owner="alice")))
    assert again["status"] == "duplicate"
    r = world.post("alice", event("y-1", "I play the drums.", owner="alice"))
    assert r.status_code == 207
    assert _result(r)["status"] == "rejected" and _result(r)["code"] == "event_id_conflict"
    assert not any("drums" in c for c in world.contents("alice"))
    letters = world.runner.log.list_dead_letters(reason_code="event_id_conflict")
    assert len(letters) == 1 and b"I play the drums." in letters[0].masked_bytes


def test_an_idempotency_key_belongs_to_the_key_that_sent_it(world: World) -> None:
    idem = str(uuid.uuid4())
    first = world.post("alice", event("z-1", "I run on Sundays.", owner="alice"), **{"Idempotency-Key": idem})
    assert first.status_code == 200 and _result(first)["status"] == "accepted"
    # The same Idempotency-Key from another key is a new request: never the first caller's cached
    # answer, never a conflict with it.
    other = world.post("alice-bot", event("z-2", "I swim on Mondays.", owner="alice"), **{"Idempotency-Key": idem})
    assert other.status_code == 200 and _result(other)["event_id"] == "z-2" and _result(other)["status"] == "accepted"
    replay = world.post("bob", event("z-1", "I run on Sundays.", owner="alice"), **{"Idempotency-Key": idem})
    assert replay.status_code == 207 and _result(replay)["code"] == "permission_denied"
    # The caller's own retry still answers its first result.
    retry = world.post("alice", event("z-1", "I run on Sundays.", owner="alice"), **{"Idempotency-Key": idem})
    assert retry.json() == first.json()


def test_a_command_retry_by_another_key_is_a_new_request(world: World) -> None:
    world.post("alice", event("c-1", "I like jazz.", owner="alice"))
    (node,) = [n for n in world.runner.store.owner_nodes("t1", "alice") if "jazz" in n.content]
    idem = {"Idempotency-Key": str(uuid.uuid4())}
    url = f"/v1/nodes/{node.node_id}/reinforce"
    mine = world.client.post(url, json={"signal": "CONFIRMED"}, headers={**world.keys.auth("alice"), **idem})
    assert mine.status_code == 200, mine.text
    theirs = world.client.post(url, json={"signal": "REFERENCED"}, headers={**world.keys.auth("alice-bot"), **idem})
    assert theirs.status_code == 200, theirs.text  # not request_id_conflict with alice's request
    assert theirs.json()["outcome"]["retried"] is False and theirs.json()["command_id"] != mine.json()["command_id"]
    again = world.client.post(url, json={"signal": "CONFIRMED"}, headers={**world.keys.auth("alice"), **idem})
    assert again.json()["outcome"]["retried"] is True


def test_knowledge_time_is_the_servers_not_the_callers(world: World) -> None:
    forged = {**event("t-1", "I live in Lisbon.", owner="alice"), "received_at": "1990-01-01T00:00:00Z"}
    assert _result(world.post("alice", forged))["status"] == "accepted"
    (node,) = [n for n in world.runner.store.owner_nodes("t1", "alice") if "Lisbon" in n.content]
    assert node.recorded_at == NOW
    ahead = {**event("t-2", "I live in Porto.", owner="alice"), "received_at": "2999-01-01T00:00:00Z"}
    world.post("alice", ahead)
    (later,) = [n for n in world.runner.store.owner_nodes("t1", "alice") if "Porto" in n.content]
    assert later.recorded_at == NOW


@pytest.mark.parametrize(
    ("occurred", "code"),
    [
        ((NOW + timedelta(days=2)).isoformat(), "occurred_at_in_future"),
        ("9999-12-31T00:00:00Z", "occurred_at_in_future"),
        ("1990-06-01T00:00:00Z", "occurred_at_before_floor"),
    ],
)  # fmt: skip
def test_events_dated_out_of_bounds_are_rejected(world: World, occurred: str, code: str) -> None:
    body = {**event(f"o-{code}-{occurred[:4]}", "I moved to Paris.", owner="alice"), "occurred_at": occurred}
    r = world.post("alice", body)
    assert r.status_code == 207 and _result(r)["code"] == code
    assert not any(n.evidence_refs == (body["event_id"],) for n in world.runner.store.owner_nodes("t1", "alice"))


def test_a_receipt_belongs_to_its_caller(world: World) -> None:
    chosen = str(uuid.uuid4())
    body = {"query": "what do I grow", "owner_id": "alice"}
    mine = world.client.post("/v1/retrieve", json=body, headers={**world.keys.auth("alice"), "Idempotency-Key": chosen})
    rid = mine.json()["receipt_id"]
    assert rid is not None
    # Another key of the same owner reusing the Idempotency-Key gets a receipt of its own.
    theirs = world.client.post("/v1/retrieve", json={**body, "query": "what do I keep"},
                               headers={**world.keys.auth("alice-bot"), "Idempotency-Key": chosen})  # fmt: skip
    assert theirs.json()["receipt_id"] not in (None, rid)
    # A retry by the same caller keeps the first receipt: receipts are immutable once written.
    world.client.post("/v1/retrieve", json={**body, "query": "something else entirely"},
                      headers={**world.keys.auth("alice"), "Idempotency-Key": chosen})  # fmt: skip
    assert world.client.app.state.api.receipts.flush()  # type: ignore[attr-defined]
    got = world.client.get(f"/v1/retrievals/{rid}", headers=world.keys.auth("alice"))
    assert got.status_code == 200 and got.json()["query"] == "what do I grow"
    # Only its creator (or an admin of the tenant) reads it.
    assert world.client.get(f"/v1/retrievals/{rid}", headers=world.keys.auth("alice-bot")).status_code == 404
    assert world.client.get(f"/v1/retrievals/{rid}", headers=world.keys.auth("admin")).status_code == 200


def test_events_the_api_refuses_are_kept_as_masked_dead_letters(world: World) -> None:
    secret = "sk-live-" + "9f3Kd82LmQ0zXv7TnB4wRy6u"
    bad = {"event_id": "z-1", "tenant_id": "t1", "owner_id": "alice", "scope": "personal", "role": "user",
           "content": f"my key is {secret}", "occurred_at": "9999-01-01T00:00:00Z"}  # fmt: skip
    malformed = {"event_id": "z-2", "tenant_id": "t1", "owner_id": "alice", "scope": "personal", "role": "user",
                 "content": 42, "occurred_at": "2026-02-01T00:00:00Z"}  # fmt: skip
    r = world.post("alice", [bad, malformed, event("z-3", "I cycle to work.", owner="alice")])
    assert r.status_code == 207
    codes = [item.get("code") for item in r.json()["results"]]
    assert codes == ["occurred_at_in_future", "schema_violation", None]

    def letters_of(event_id: str, code: str) -> list[Any]:
        quoted = f'"{event_id}"'.encode()
        return [d for d in world.runner.log.list_dead_letters(reason_code=code) if quoted in d.masked_bytes]

    future = letters_of("z-1", "occurred_at_in_future")
    assert [d.source for d in future] == ["api"]
    assert b"9999-01-01" in future[0].masked_bytes and secret.encode() not in future[0].masked_bytes
    assert [d.source for d in letters_of("z-2", "schema_violation")] == ["api"]
    # A refusal by permission is the caller's problem, not bad input: not an operator's dead letter.
    before = len(world.runner.log.list_dead_letters())
    assert _result(world.post("bob", event("z-4", "I cycle too.", owner="alice")))["code"] == "permission_denied"
    assert len(world.runner.log.list_dead_letters()) == before
