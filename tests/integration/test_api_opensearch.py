"""The API over a runner whose search index is OpenSearch (``opensearch_url`` set), driven over HTTP.

A subset of the embedded-backend API tests: DEFAULT vs EXPLICIT exclusions, tenant/owner isolation
with forged fields, and a command whose effect retrieval sees at once. Isolation matters most here:
the tenant/owner filter is pushed into the OpenSearch query, so a wrong clause would leak across
tenants that share one alias. OpenSearch comes from deploy/local/services; the tests fail without it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from opensearchpy import OpenSearch
from test_api_support import (
    OWNERS,
    TENANTS,
    Keys,
    build_corpus,
    make_client,
    open_runner,
    secret_marker,
    settings_for,
)
from test_opensearch_support import drop_alias, load_services

from epistream.runner import EmbeddedRunner
from retrieval.policy import search_filter_for
from schemas.retrieval import RetrievalRequest
from schemas.search import SearchFilter
from sinks.opensearch_index import OpenSearchIndex

pytestmark = pytest.mark.integration
A, B = TENANTS

EXCLUDED_KINDS = {
    "rust_maybe": "epistemic_filtered:hypothetical",
    "deprecated": "",  # deprecated through a command: any deprecation reason
    "superseded": "lifecycle_filtered:superseded",
    "cond_unknown": "condition_filtered:unknown",
    "cond_false": "condition_filtered:false",
    "cond_expired": "condition_filtered:expired",
    "unverified_low": "unverified_below_threshold",
}
CONTENT = {
    "rust_maybe": "Maybe I will learn Rust.",
    "deprecated": "I own a boat.",
    "superseded": "I work at Acme.",
    "cond_unknown": "If it rains tomorrow, I will take the bus.",
    "cond_false": "If the office is open, I will work at the office.",
    "cond_expired": "If the sale is still on, I will buy a bike.",
    "unverified_low": "web search: Carol lives in Oslo",
}


class World:
    def __init__(self, client: TestClient, keys: Keys, runner: EmbeddedRunner, ids: dict[tuple[str, str], Any]):
        self.client, self.keys, self.runner, self.ids = client, keys, runner, ids


@pytest.fixture(scope="module")
def world(chdb_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    url = str(load_services().ensure_up()["opensearch"])
    alias = f"it-api-{uuid.uuid4().hex[:10]}"
    data = tmp_path_factory.mktemp("api-opensearch")
    settings = settings_for(data, opensearch_url=url, opensearch_index=alias)
    keys = Keys()
    keys.add("admin-a", A)
    keys.add("admin-b", B)
    keys.add("a-o1", A, owners={"o1"}, scopes={"personal"})
    try:
        with open_runner(chdb_path, data, settings) as runner, make_client(runner, keys, settings) as client:
            ids = build_corpus(client, keys, runner, {A: "admin-a", B: "admin-b"})
            yield World(client, keys, runner, ids)
    finally:
        os_client = OpenSearch(hosts=[url], timeout=30)
        drop_alias(os_client, alias)
        os_client.close()


def _retrieve(w: World, key: str, body: dict[str, Any]) -> dict[str, Any]:
    r = w.client.post("/v1/retrieve", json=body, headers=w.keys.auth(key))
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def test_runner_searches_opensearch_and_health_checks_it(world: World) -> None:
    index = world.runner.index
    assert isinstance(index, OpenSearchIndex)
    # Every node of every tenant is in the alias, at the version the store holds.
    nodes = list(world.runner.store.iter_nodes())
    assert index.count() == len(nodes) >= 4 * 16
    assert {n.node_id: n.version for n in index.get([n.node_id for n in nodes])} == {
        n.node_id: n.version for n in nodes
    }
    r = world.client.get("/v1/health", headers=world.keys.auth("admin-a"))
    assert r.status_code == 200, r.text
    assert "index" in r.text


def test_default_hides_and_explicit_explains_every_excluded_kind(world: World) -> None:
    for tenant, key in ((A, "admin-a"), (B, "admin-b")):
        for owner in OWNERS:
            nodes = world.ids[(tenant, owner)]
            for kind, reason in EXCLUDED_KINDS.items():
                body = {"query": CONTENT[kind], "owner_id": owner}
                default = _retrieve(world, key, body)
                assert nodes[kind] not in {i["node_id"] for i in default["items"]}, (tenant, owner, kind)
                assert default["excluded"] == []
                explicit = _retrieve(world, key, {**body, "mode": "explicit"})
                assert nodes[kind] in {i["node_id"] for i in explicit["items"]}, (tenant, owner, kind)
                reasons = {e["node_id"]: e["reason"] for e in explicit["excluded"] if e["included"]}
                assert reasons[nodes[kind]].startswith(reason), (kind, reasons[nodes[kind]])
            # A plain fact is found in DEFAULT mode through the OpenSearch candidates.
            found = _retrieve(world, key, {"query": "where do I live Berlin", "owner_id": owner})
            assert nodes["berlin"] in {i["node_id"] for i in found["items"]}


def test_no_request_of_one_tenant_returns_another_tenants_memory(world: World) -> None:
    for key, tenant, other in (("admin-a", A, B), ("admin-b", B, A)):
        for owner in OWNERS:
            for victim in OWNERS:
                marker = secret_marker(other, victim)
                r = world.client.post(
                    "/v1/retrieve",
                    json={"query": f"I like {marker}", "owner_id": owner, "mode": "explicit", "limit": 100},
                    headers=world.keys.auth(key),
                )
                assert r.status_code == 200
                assert marker not in r.text
                for item in r.json()["items"]:
                    node = world.runner.store.get_node(item["node_id"])
                    assert node is not None and (node.tenant_id, node.owner_id) == (tenant, owner)
    # The pushed-down filter itself: the other tenant's marker is in the alias but never a candidate.
    index = world.runner.index
    marker_b = secret_marker(B, "o1")
    assert index.lexical(marker_b, SearchFilter(tenant_id=B, owner_id="o1"), 10)
    assert index.lexical(marker_b, SearchFilter(tenant_id=A, owner_id="o1"), 10) == []
    assert index.vector(marker_b, SearchFilter(tenant_id=A, owner_id="o1"), 10) != []  # a real k-NN answer...
    assert {h.node_id for h in index.vector(marker_b, SearchFilter(tenant_id=A, owner_id="o1"), 50)} <= {
        n.node_id for n in world.runner.nodes_of(tenant_id=A, owner_id="o1")
    }  # ...from tenant A's own nodes only


def test_forged_owner_and_scope_are_denied(world: World) -> None:
    auth = world.keys.auth("a-o1")
    # another owner of the tenant: only its shared records could be read (TRUST-FACTS §6); o2 shared none
    r = world.client.post("/v1/retrieve", json={"query": f"I like {secret_marker(A, 'o2')} tea", "owner_id": "o2",
                                                "mode": "explicit"}, headers=auth)  # fmt: skip
    assert r.status_code == 200 and r.json()["items"] == []
    assert secret_marker(A, "o2") not in r.text
    r = world.client.post("/v1/retrieve", json={"query": "tea", "owner_id": "o1", "tenant_id": B}, headers=auth)
    assert r.status_code == 422
    own = _retrieve(world, "a-o1", {"query": f"I like {secret_marker(A, 'o2')} tea", "mode": "explicit"})
    assert secret_marker(A, "o2") not in str(own)
    assert own["items"] and {world.runner.store.get_node(i["node_id"]).owner_id for i in own["items"]} == {"o1"}  # type: ignore[union-attr]


def test_command_then_retrieve_sees_the_new_state(world: World) -> None:
    nodes = world.ids[(A, "o2")]
    coffee = nodes["coffee"]
    body = {"query": "I drink coffee", "owner_id": "o2"}
    assert coffee in {i["node_id"] for i in _retrieve(world, "admin-a", body)["items"]}
    r = world.client.post(f"/v1/nodes/{coffee}/deprecate", json={"reason": "wrong"},
                          headers={**world.keys.auth("admin-a"), "Idempotency-Key": str(uuid.uuid4())})
    assert r.status_code == 200, r.text
    # The command's write is searchable immediately: the OpenSearch document has the new version and
    # the DEFAULT filter pushed into OpenSearch no longer matches it.
    node = world.runner.store.get_node(coffee)
    assert node is not None
    index = world.runner.index
    assert [n.version for n in index.get([coffee])] == [node.version]
    request = RetrievalRequest(query="I drink coffee", tenant_id=A, owner_id="o2")
    flt = search_filter_for(request, 0.3)
    assert coffee not in {h.node_id for h in index.lexical("I drink coffee", flt, 50)}
    assert coffee not in {i["node_id"] for i in _retrieve(world, "admin-a", body)["items"]}
    explicit = _retrieve(world, "admin-a", {**body, "mode": "explicit"})
    assert coffee in {e["node_id"] for e in explicit["excluded"]}
