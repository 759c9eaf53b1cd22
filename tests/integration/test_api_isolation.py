"""Tenant and owner isolation: nothing a key of tenant A sends ever returns tenant B's (or a barred owner's) data."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_api_support import (
    OWNERS,
    TENANTS,
    Keys,
    Permission,
    build_corpus,
    make_client,
    open_runner,
    secret_marker,
    settings_for,
)

from epistream.runner import EmbeddedRunner

pytestmark = pytest.mark.integration
A, B = TENANTS


class World:
    def __init__(self, client: TestClient, keys: Keys, runner: EmbeddedRunner, ids: dict[tuple[str, str], Any]):
        self.client, self.keys, self.runner, self.ids = client, keys, runner, ids



@pytest.fixture(scope="module")
def world(chdb_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    data = tmp_path_factory.mktemp("api-isolation")
    settings = settings_for(data)
    keys = Keys()
    keys.add("admin-a", A)
    keys.add("admin-b", B)
    # Tenant A, bound to owner o1 and the personal scope only.
    keys.add("a-o1", A, owners={"o1"}, scopes={"personal"})
    keys.add("a-o1-read", A, frozenset({Permission.READ}), owners={"o1"})
    with open_runner(chdb_path, data, settings) as runner, make_client(runner, keys, settings) as client:
        ids = build_corpus(client, keys, runner, {A: "admin-a", B: "admin-b"})
        # One project-scoped memory for o1 that the personal-only key must not see.
        r = client.post(
            "/v1/events",
            json={"event_id": "a-o1-proj", "owner_id": "o1", "scope": "project", "scope_id": "p1", "role": "user",
                  "content": "I like zqprojectsecret.", "occurred_at": "2026-03-01T12:00:00+00:00"},
            headers=keys.auth("admin-a"),
        )
        assert r.status_code == 200, r.text
        yield World(client, keys, runner, ids)


def _leaks(w: World, key: str, text: str, own_tenant: str, own_owners: set[str]) -> list[str]:
    """Markers and node ids of anyone the key may not see, found in a response body."""
    found = []
    for tenant in TENANTS:
        for owner in OWNERS:
            if tenant == own_tenant and owner in own_owners:
                continue
            if secret_marker(tenant, owner) in text:
                found.append(f"marker {tenant}/{owner}")
            found += [f"id {tenant}/{owner}" for i in w.ids[(tenant, owner)].values() if i in text]
    return found


def test_same_content_different_tenants_get_only_their_own(world: World) -> None:
    for key, tenant in (("admin-a", A), ("admin-b", B)):
        r = world.client.post("/v1/retrieve", json={"query": "I live in Berlin", "owner_id": "o1", "mode": "explicit"},
                              headers=world.keys.auth(key))
        assert r.status_code == 200
        items = r.json()["items"]
        assert {i["kind"] for i in items} == {"claim"}  # EXPLICIT: the claims come first
        for item in items:
            node = world.runner.store.get_node(item["node_id"])
            assert node is not None and (node.tenant_id, node.owner_id) == (tenant, "o1")
        said = world.client.post("/v1/retrieve", json={"query": "I live in Berlin", "owner_id": "o1",
                                                        "sources": "excerpts"}, headers=world.keys.auth(key))
        docs = world.runner.excerpts.get([i["node_id"] for i in said.json()["items"]])
        assert docs and {(d.tenant_id, d.owner_id) for d in docs} == {(tenant, "o1")}


def test_forged_tenant_in_body_is_rejected(world: World) -> None:
    r = world.client.post("/v1/retrieve", json={"query": "tea", "owner_id": "o1", "tenant_id": B},
                          headers=world.keys.auth("admin-a"))
    assert r.status_code == 422
    assert secret_marker(B, "o1") not in r.text
    ev = {"event_id": "forged-1", "tenant_id": B, "owner_id": "o1", "scope": "personal", "role": "user",
          "content": "I like forgery.", "occurred_at": "2026-03-01T10:00:00Z"}
    r = world.client.post("/v1/events", json=ev, headers=world.keys.auth("admin-a"))
    assert r.status_code == 207
    assert r.json()["results"][0]["code"] == "permission_denied"
    assert world.runner.store.owner_events(B, "o1", "forged-1") == ()


def test_forged_owner_and_scope_are_denied(world: World) -> None:
    auth = world.keys.auth("a-o1")
    # Another owner of the tenant: only what it shared could be read (TRUST-FACTS §6), and o2 shared nothing.
    r = world.client.post("/v1/retrieve", json={"query": "tea", "owner_id": "o2", "mode": "explicit"}, headers=auth)
    assert r.status_code == 200 and r.json()["items"] == [] and not _leaks(world, "a-o1", r.text, A, {"o1"})
    r = world.client.post("/v1/retrieve", json={"query": "zqprojectsecret", "owner_id": "o1", "scope": "project",
                                                "scope_id": "p1", "mode": "explicit"}, headers=auth)
    assert r.status_code == 403
    r = world.client.get("/v1/world-context", params={"owner_id": "o2"}, headers=auth)
    assert r.status_code == 200 and not _leaks(world, "a-o1", r.text, A, {"o1"})
    assert not any(r.json()[part] for part in ("facts", "conflicts", "proposals", "stale"))
    # Without a scope the key's single scope applies: the project memory stays out.
    r = world.client.post("/v1/retrieve", json={"query": "zqprojectsecret like", "mode": "explicit"}, headers=auth)
    assert r.status_code == 200 and "zqprojectsecret" not in r.text
    assert {i["scope"] for i in r.json()["items"]} <= {"personal"}


def test_lookups_by_id_across_tenants_and_owners_answer_404_like_unknown_ids(world: World) -> None:
    other_tenant = world.ids[(B, "o1")]["berlin"]
    other_owner = world.ids[(A, "o2")]["berlin"]
    mine = world.ids[(A, "o1")]["berlin"]
    auth = world.keys.auth("a-o1")
    unknown = world.client.get("/v1/nodes/does-not-exist", headers=auth)
    assert unknown.status_code == 404
    for node_id in (other_tenant, other_owner):
        for path in (f"/v1/nodes/{node_id}", f"/v1/nodes/{node_id}/provenance"):
            r = world.client.get(path, headers=auth)
            assert r.status_code == 404
            assert r.json()["error"] == {**unknown.json()["error"], "details": r.json()["error"]["details"]}
            assert node_id not in r.text
        r = world.client.post(f"/v1/nodes/{node_id}/reinforce", json={}, headers=auth)
        assert r.status_code == 404
        r = world.client.post("/v1/contradictions", json={"node_a": mine, "node_b": node_id}, headers=auth)
        assert r.status_code == 404
    assert world.client.get(f"/v1/nodes/{mine}", headers=auth).status_code == 200
    prov = world.client.get(f"/v1/nodes/{mine}/provenance", headers=auth)
    assert prov.status_code == 200 and not _leaks(world, "a-o1", prov.text, A, {"o1"})


def test_commands_cannot_touch_another_tenants_node(world: World) -> None:
    target = world.ids[(B, "o2")]["coffee"]
    before = world.runner.node(target, tenant_id=B)
    for path in ("deprecate", "archive", "promote", "penalize"):
        r = world.client.post(f"/v1/nodes/{target}/{path}", json={}, headers=world.keys.auth("admin-a"))
        assert r.status_code == 404
    r = world.client.put(f"/v1/nodes/{target}/condition", json={"state": "FALSE"}, headers=world.keys.auth("admin-a"))
    assert r.status_code == 404
    assert world.runner.node(target, tenant_id=B) == before


REQUEST_KINDS = ("retrieve", "world", "node", "provenance", "assertion", "reinforce")


@st.composite
def forged_requests(draw: st.DrawFn) -> tuple[str, str, dict[str, Any]]:
    kind = draw(st.sampled_from(REQUEST_KINDS))
    owner = draw(st.sampled_from([*OWNERS, "o3", None]))
    scope = draw(st.sampled_from([None, "personal", "project"]))
    body: dict[str, Any] = {}
    if owner is not None:
        body["owner_id"] = owner
    if scope is not None:
        body["scope"] = scope
        if scope == "project" and draw(st.booleans()):
            body["scope_id"] = "p1"
    target_tenant = draw(st.sampled_from(TENANTS))
    target_owner = draw(st.sampled_from(OWNERS))
    target_kind = draw(st.sampled_from(["berlin", "tea_love", "rust_maybe", "marker", "deprecated"]))
    body["_target"] = (target_tenant, target_owner, target_kind)
    body["query"] = draw(st.sampled_from(["tea", "Berlin", "marker like", "zqtbetao1marker", "zqtbetao2marker",
                                          "maybe Rust", "boat"]))
    body["mode"] = draw(st.sampled_from(["default", "explicit"]))
    body["debug"] = draw(st.booleans())
    key = draw(st.sampled_from(["admin-a", "a-o1", "a-o1-read"]))
    return kind, key, body


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(req=forged_requests())
def test_property_no_request_of_tenant_a_returns_foreign_data(world: World, req: tuple[str, str, dict[str, Any]]
                                                              ) -> None:
    kind, key, body = req
    allowed = {"o1"} if key != "admin-a" else set(OWNERS)
    tenant, owner, target_kind = body.pop("_target")
    node_id = world.ids[(tenant, owner)][target_kind]
    auth = world.keys.auth(key)
    c = world.client
    filters = {k: body[k] for k in ("owner_id", "scope", "scope_id") if k in body}
    if kind == "retrieve":
        r = c.post("/v1/retrieve", json={**filters, "query": body["query"], "mode": body["mode"],
                                         "debug": body["debug"]}, headers=auth)
    elif kind == "world":
        r = c.get("/v1/world-context", params=filters, headers=auth)
    elif kind == "node":
        r = c.get(f"/v1/nodes/{node_id}", headers=auth)
    elif kind == "provenance":
        r = c.get(f"/v1/nodes/{node_id}/provenance", headers=auth)
    elif kind == "assertion":
        r = c.post("/v1/assertions/state", json={**filters, "subject": "user", "predicate": "likes",
                                                 "valid_at": "2026-03-02T00:00:00Z"}, headers=auth)
    else:
        r = c.post(f"/v1/nodes/{node_id}/reinforce", json={"signal": "REFERENCED"}, headers=auth)
    assert r.status_code < 500
    assert not _leaks(world, key, r.text, A, allowed)
    if key == "a-o1" and "zqprojectsecret" in r.text:
        pytest.fail("personal-only key saw a project memory")
    if r.status_code == 200 and kind in ("node", "provenance"):
        assert tenant == A and owner in allowed
    if tenant != A or owner not in allowed:
        assert kind not in ("node", "provenance", "reinforce") or r.status_code in (403, 404)
    if r.status_code == 200:
        payload = json.loads(r.text)
        tenants = [payload.get("tenant_id"), (payload.get("node") or {}).get("tenant_id")]
        assert all(t in (None, A) for t in tenants)
