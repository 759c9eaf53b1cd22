"""Auth, limits, idempotency and error hygiene at the HTTP edge, against a real runner."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_api_support import Keys, Permission, event, make_client, node_by_event, open_runner, settings_for

from epistream.api import ApiKeyRing, hash_key_scrypt
from epistream.runner import EmbeddedRunner
from schemas.enums import OpType

pytestmark = pytest.mark.integration
SECRET = "zqsecretcontent"


class Edge:
    def __init__(self, client: TestClient, keys: Keys, runner: EmbeddedRunner, nodes: dict[str, str]) -> None:
        self.client, self.keys, self.runner, self.nodes = client, keys, runner, nodes


@pytest.fixture(scope="module")
def edge(chdb_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Edge]:
    data = tmp_path_factory.mktemp("api-edge")
    settings = settings_for(data, api_max_body_bytes=64 * 1024, api_max_batch=5, api_max_page=50,
                            api_auth_failure_delay_s=0.6)
    keys = Keys()
    keys.add("admin", "t1")
    keys.add("reader", "t1", frozenset({Permission.READ}))
    keys.add("writer", "t1", frozenset({Permission.WRITE, Permission.ASSERT}), owners={"u1"})
    keys.add("expired", "t1", expires_at=datetime(2020, 1, 1, tzinfo=UTC))
    keys.add("revoked", "t1", revoked=True)
    with open_runner(chdb_path, data, settings) as runner, make_client(runner, keys, settings) as client:
        r = client.post("/v1/events", json=[
            event("e1", f"I like {SECRET}.", owner="u1"),
            event("e2", "I live in Berlin.", owner="u1", minutes=1),
            event("e3", "I drink coffee.", owner="u1", minutes=2),
        ], headers=keys.auth("admin"))
        assert r.status_code == 200, r.text
        yield Edge(client, keys, runner, node_by_event(runner, "t1", "u1", ""))


def _err(r: Any, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["code"] == code
    return body


# ---------------------------------------------------------------- auth
def test_missing_malformed_and_unknown_keys_are_401(edge: Edge) -> None:
    body = {"query": "tea", "owner_id": "u1"}
    _err(edge.client.post("/v1/retrieve", json=body), 401, "unauthenticated")
    _err(edge.client.post("/v1/retrieve", json=body, headers={"Authorization": "Basic abc"}), 401, "unauthenticated")
    r = edge.client.post("/v1/retrieve", json=body, headers={"Authorization": "Bearer not-a-key"})
    _err(r, 401, "unauthenticated")
    assert r.headers["WWW-Authenticate"] == "Bearer"
    # The hash of a key is not a key.
    stored = edge.keys.entries[0].sha256
    _err(edge.client.post("/v1/retrieve", json=body, headers={"Authorization": f"Bearer {stored}"}), 401,
         "unauthenticated")


def test_missing_permission_is_403(edge: Edge) -> None:
    node = edge.nodes["e2"]
    _err(edge.client.post(f"/v1/nodes/{node}/deprecate", json={}, headers=edge.keys.auth("writer")), 403,
         "permission_denied")
    _err(edge.client.post("/v1/events", json=event("x1", "I have a cat.", owner="u1"),
                          headers=edge.keys.auth("reader")), 403, "permission_denied")
    _err(edge.client.get("/metrics", headers=edge.keys.auth("reader")), 403, "permission_denied")
    _err(edge.client.get("/metrics"), 401, "unauthenticated")
    r = edge.client.post(f"/v1/nodes/{node}/transition", json={"to_type": "DEPRECATED"},
                         headers=edge.keys.auth("writer"))
    _err(r, 403, "permission_denied")
    assert edge.runner.node(node, tenant_id="t1").epistemic_type.value != "DEPRECATED"  # type: ignore[union-attr]


def test_expired_and_revoked_keys_say_so(edge: Edge) -> None:
    body = {"query": "tea", "owner_id": "u1"}
    _err(edge.client.post("/v1/retrieve", json=body, headers=edge.keys.auth("expired")), 401, "key_expired")
    _err(edge.client.post("/v1/retrieve", json=body, headers=edge.keys.auth("revoked")), 401, "key_revoked")


def test_guessing_keys_is_throttled_per_address_and_valid_keys_are_not(edge: Edge) -> None:
    guesser = TestClient(edge.client.app, client=("203.0.113.7", 4000))
    other = TestClient(edge.client.app, client=("203.0.113.8", 4000))
    body = {"query": "tea", "owner_id": "u1"}
    codes = [guesser.post("/v1/retrieve", json=body, headers={"Authorization": f"Bearer guess-{i}"}).status_code
             for i in range(10)]
    assert codes == [401] * 10, codes
    started = time.monotonic()
    r = guesser.post("/v1/retrieve", json=body, headers={"Authorization": "Bearer guess-x"})
    _err(r, 429, "rate_limited")
    assert time.monotonic() - started >= 0.6  # over its budget, the address waits for each refusal
    assert int(r.headers["Retry-After"]) >= 1
    # The same address with a real key, and another address guessing, are unaffected (and not delayed).
    started = time.monotonic()
    assert guesser.post("/v1/retrieve", json=body, headers=edge.keys.auth("reader")).status_code == 200
    _err(other.post("/v1/retrieve", json=body, headers={"Authorization": "Bearer guess-y"}), 401, "unauthenticated")
    assert time.monotonic() - started < 0.6


def test_scrypt_hashed_keys_authenticate(tmp_path: Path) -> None:
    path = tmp_path / "keys.toml"
    hashed = hash_key_scrypt("plain-s", n=2**10)
    path.write_text(f'[[keys]]\nid = "s"\ntenant_id = "t9"\npermissions = ["read"]\nscrypt = "{hashed}"\n')
    ring = ApiKeyRing.from_file(path)
    assert ring.authenticate("Bearer plain-s").tenant_id == "t9"
    assert ring.authenticate("Bearer plain-s").id == "s"  # cached path
    with pytest.raises(Exception) as err:
        ring.authenticate("Bearer plain-t")
    assert getattr(err.value, "code", None) == "unauthenticated"


# ---------------------------------------------------------------- idempotency
def test_command_idempotency_same_key_same_result_different_body_409(edge: Edge) -> None:
    node = edge.nodes["e3"]
    key = str(uuid.uuid4())
    h = {**edge.keys.auth("writer"), "Idempotency-Key": key}
    before = len(edge.runner.log.read_operations(tenant="t1", owner="u1"))
    first = edge.client.post(f"/v1/nodes/{node}/reinforce", json={"signal": "CONFIRMED"}, headers=h)
    assert first.status_code == 200, first.text
    again = edge.client.post(f"/v1/nodes/{node}/reinforce", json={"signal": "CONFIRMED"}, headers=h)
    assert again.status_code == 200
    a, b = first.json(), again.json()
    assert b["outcome"]["retried"] is True
    assert {**a["outcome"], "retried": True} == b["outcome"] and a["command_id"] == b["command_id"]
    ops = edge.runner.log.read_operations(tenant="t1", owner="u1")
    reinforced = [o for o in ops[before:] if o.op_type is OpType.REINFORCE]
    assert len(reinforced) == 1
    assert reinforced[0].actor.actor_id == "writer"
    _err(edge.client.post(f"/v1/nodes/{node}/reinforce", json={"signal": "REFERENCED"}, headers=h), 409,
         "request_id_conflict")
    bad = {**edge.keys.auth("writer"), "Idempotency-Key": "not-a-uuid"}
    _err(edge.client.post(f"/v1/nodes/{node}/reinforce", json={}, headers=bad), 422, "invalid_idempotency_key")


def test_each_command_endpoint_becomes_exactly_one_command(edge: Edge) -> None:
    r = edge.client.post("/v1/events", json=[
        event("c1", "I love jazz.", owner="u1", minutes=5),
        event("c2", "I hate jazz.", owner="u1", minutes=6),
        event("c3", "If it snows, I will ski.", owner="u1", minutes=7),
        event("c4", "Maybe I will buy a piano.", owner="u1", minutes=8),
    ], headers=edge.keys.auth("admin"))
    assert r.status_code == 200, r.text
    n = node_by_event(edge.runner, "t1", "u1", "")
    auth = edge.keys.auth("admin")
    calls: list[tuple[str, str, dict[str, Any]]] = [
        ("PUT", f"/v1/nodes/{n['c3']}/condition", {"state": "TRUE"}),
        ("POST", f"/v1/nodes/{n['c4']}/transition", {"to_type": "ASSERTED"}),
        ("POST", f"/v1/nodes/{n['e2']}/promote", {}),
        ("POST", f"/v1/nodes/{n['e2']}/penalize", {"signal": "CORRECTED"}),
        ("POST", "/v1/contradictions/resolve", {"winner_id": n["c1"], "loser_id": n["c2"]}),
        ("POST", f"/v1/nodes/{n['c3']}/archive", {"policy_ref": "retention"}),
    ]
    for method, path, body in calls:
        before = {o.caused_by for o in edge.runner.log.read_operations(tenant="t1", owner="u1")}
        r = edge.client.request(method, path, json=body, headers=auth)
        assert r.status_code in (200, 409), (path, r.text)
        ops = [o for o in edge.runner.log.read_operations(tenant="t1", owner="u1") if o.caused_by not in before]
        if r.status_code == 200:
            assert {o.caused_by for o in ops} == {f"command:t1/{r.json().get('command_id')}"}
        assert all(o.actor.actor_id == "admin" for o in ops)
    assert edge.runner.node(n["c4"], tenant_id="t1").epistemic_type.value == "ASSERTED"  # type: ignore[union-attr]
    assert edge.runner.node(n["c2"], tenant_id="t1").lifecycle.value == "DEPRECATED"  # type: ignore[union-attr]


def test_event_idempotency_key_replays_and_conflicts(edge: Edge) -> None:
    h = {**edge.keys.auth("admin"), "Idempotency-Key": str(uuid.uuid4())}
    body = [event("i1", "I have a cat.", owner="u1", minutes=20)]
    first = edge.client.post("/v1/events", json=body, headers=h)
    second = edge.client.post("/v1/events", json=body, headers=h)
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json() and first.json()["accepted"] == 1
    _err(edge.client.post("/v1/events", json=[event("i2", "I have a fish.", owner="u1")], headers=h), 409,
         "request_id_conflict")
    plain = edge.client.post("/v1/events", json=body, headers=edge.keys.auth("admin"))
    assert plain.json()["results"][0]["status"] == "duplicate"


def test_invalid_events_get_per_item_stable_codes(edge: Edge) -> None:
    items: list[Any] = [
        event("v1", "I have a hamster.", owner="u1", minutes=30),
        {**event("v2", "x", owner="u1"), "occurred_at": "2026-03-01T09:00:00"},
        {**event("v3", "x", owner="u1"), "role": "robot"},
        "not an object",
        event("v5", "I have a parrot.", owner="someone-else"),
    ]
    r = edge.client.post("/v1/events", json={"events": items}, headers=edge.keys.auth("writer"))
    assert r.status_code == 207
    codes = [(x["status"], x["code"]) for x in r.json()["results"]]
    assert codes == [("accepted", None), ("rejected", "naive_timestamp"), ("rejected", "unknown_role"),
                     ("rejected", "not_an_object"), ("rejected", "permission_denied")]


# ---------------------------------------------------------------- limits
def test_body_batch_and_page_limits(edge: Edge) -> None:
    auth = edge.keys.auth("admin")
    big = event("big", "I like " + "a" * 70_000, owner="u1")
    _err(edge.client.post("/v1/events", json=big, headers=auth), 413, "payload_too_large")
    batch = [event(f"b{i}", "I have a cat.", owner="u1") for i in range(6)]
    _err(edge.client.post("/v1/events", json=batch, headers=auth), 413, "batch_too_large")
    node = edge.nodes["e2"]
    _err(edge.client.get(f"/v1/nodes/{node}/provenance", params={"limit": 51}, headers=auth), 422,
         "validation_failed")
    page = edge.client.get(f"/v1/nodes/{node}/provenance", params={"limit": 1}, headers=auth)
    assert page.status_code == 200 and len(page.json()["operations"]) == 1
    cursor = page.json()["next_operation_cursor"]
    assert cursor is not None
    nxt = edge.client.get(f"/v1/nodes/{node}/provenance", params={"limit": 50, "cursor": cursor}, headers=auth)
    assert nxt.status_code == 200
    assert page.json()["operations"][0]["id"] not in {o["id"] for o in nxt.json()["operations"]}
    _err(edge.client.get(f"/v1/nodes/{node}/provenance", params={"cursor": "%%%"}, headers=auth), 422,
         "invalid_cursor")


def test_rate_limit_answers_429_with_retry_after(chdb_path: Path, tmp_path: Path) -> None:
    settings = settings_for(tmp_path, api_rate_limit_per_s=0.5, api_rate_burst=3)
    keys = Keys()
    keys.add("k", "t1")
    keys.add("other", "t1")
    with open_runner(chdb_path, tmp_path, settings) as runner, make_client(runner, keys, settings) as client:
        statuses = [client.get("/v1/nodes/nope", headers=keys.auth("k")).status_code for _ in range(5)]
        assert statuses[:3] == [404, 404, 404] and statuses[3:] == [429, 429]
        r = client.get("/v1/nodes/nope", headers=keys.auth("k"))
        _err(r, 429, "rate_limited")
        assert int(r.headers["Retry-After"]) >= 1
        # Buckets are per key.
        assert client.get("/v1/nodes/nope", headers=keys.auth("other")).status_code == 404


# ---------------------------------------------------------------- hygiene
def test_errors_never_echo_stored_content_or_request_bodies(edge: Edge) -> None:
    auth = edge.keys.auth("admin")
    node = edge.nodes["e1"]
    responses = [
        edge.client.post("/v1/retrieve", json={"query": SECRET, "owner_id": "u1", "limit": 5000}, headers=auth),
        edge.client.post("/v1/retrieve", json={"query": SECRET, "owner_id": "u1", "bogus": SECRET}, headers=auth),
        edge.client.post(f"/v1/nodes/{node}/transition", json={"to_type": "HYPOTHETICAL", "reason": SECRET},
                         headers=auth),
        edge.client.post("/v1/events", json=[{**event("h1", SECRET, owner="u1"), "role": SECRET}], headers=auth),
        edge.client.post("/v1/contradictions", json={"node_a": node, "node_b": node, "description": SECRET},
                         headers=auth),
        edge.client.post("/v1/retrieve", content=b'{"query": "' + SECRET.encode() + b'"', headers=auth),
    ]
    for r in responses:
        assert r.status_code >= 400 or r.status_code == 207, r.text
        assert SECRET not in r.text
        assert edge.keys.tokens["admin"] not in r.text


def test_health_and_metrics(edge: Edge) -> None:
    r = edge.client.get("/v1/health")
    assert r.status_code == 200
    assert {k: v["ok"] for k, v in r.json()["checks"].items()} == {"chdb": True, "index": True}
    edge.client.post("/v1/retrieve", json={"query": "Berlin", "owner_id": "u1", "debug": True},
                     headers=edge.keys.auth("admin"))
    text = edge.client.get("/metrics", headers=edge.keys.auth("admin")).text
    assert 'epistream_http_requests_total{method="POST",route="/v1/retrieve",status="200"}' in text
    assert 'route="/v1/nodes/{node_id}' in text
    assert "epistream_retrieval_candidates_count" in text
    assert "epistream_ingestion_lag_seconds_count" in text
    assert SECRET not in text
