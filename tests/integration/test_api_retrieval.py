"""Retrieval over HTTP: DEFAULT mode never presents excluded kinds as facts; conflicts stay explicit."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_api_support import OWNERS, TENANTS, Keys, build_corpus, make_client, open_runner, settings_for

from epistream.runner import EmbeddedRunner
from retrieval.policy import default_exclusion_reason
from schemas.excerpts import excerpt_id_for

pytestmark = pytest.mark.integration

EXCLUDED_KINDS = (
    "rust_maybe",  # HYPOTHETICAL
    "bob_jazz",  # HYPOTHETICAL
    "deprecated",  # DEPRECATED
    "superseded",  # SUPERSEDED
    "cond_unknown",  # CONDITIONAL, condition unknown
    "cond_false",  # CONDITIONAL, condition false
    "cond_expired",  # CONDITIONAL, condition expired
    "unverified_low",  # UNVERIFIED at or below the threshold
)
WORDS = (
    "live", "Berlin", "work", "Acme", "Globex", "tea", "love", "hate", "Rust", "learn", "Bob", "jazz", "rain",
    "bus", "office", "sale", "bike", "sunny", "hiking", "boat", "Carol", "Oslo", "Dave", "German", "coffee",
    "dog", "where", "what", "do", "I", "like", "drink", "have", "own", "maybe", "think", "now", "currently",
)


class World:
    def __init__(self, client: TestClient, keys: Keys, runner: EmbeddedRunner, ids: dict[tuple[str, str], Any]):
        self.client, self.keys, self.runner, self.ids = client, keys, runner, ids


@pytest.fixture(scope="module")
def world(chdb_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    data = tmp_path_factory.mktemp("api-retrieval")
    settings = settings_for(data)
    keys = Keys()
    keys.add("admin-alpha", TENANTS[0])
    keys.add("admin-beta", TENANTS[1])
    with open_runner(chdb_path, data, settings) as runner, make_client(runner, keys, settings) as client:
        ids = build_corpus(client, keys, runner, {TENANTS[0]: "admin-alpha", TENANTS[1]: "admin-beta"})
        yield World(client, keys, runner, ids)


def _retrieve(w: World, tenant: str, body: dict[str, Any]) -> dict[str, Any]:
    key = "admin-alpha" if tenant == TENANTS[0] else "admin-beta"
    r = w.client.post("/v1/retrieve", json=body, headers=w.keys.auth(key))
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def test_corpus_holds_every_kind_the_rules_exclude(world: World) -> None:
    nodes = world.ids[(TENANTS[0], OWNERS[0])]
    got = {k: world.runner.node(nodes[k], tenant_id=TENANTS[0]) for k in (*EXCLUDED_KINDS, "tea_love", "tea_hate")}
    assert got["rust_maybe"].epistemic_type.value == "HYPOTHETICAL"  # type: ignore[union-attr]
    assert got["deprecated"].lifecycle.value == "DEPRECATED"  # type: ignore[union-attr]
    assert got["superseded"].lifecycle.value == "SUPERSEDED"  # type: ignore[union-attr]
    assert {got[k].condition_state.value for k in ("cond_unknown", "cond_false", "cond_expired")} == {  # type: ignore[union-attr]
        "UNKNOWN", "FALSE", "EXPIRED"
    }
    low = got["unverified_low"]
    assert low is not None and low.epistemic_type.value == "UNVERIFIED" and low.confidence <= 0.30
    assert got["tea_love"].lifecycle.value == got["tea_hate"].lifecycle.value == "CONTESTED"  # type: ignore[union-attr]


def test_default_mode_excludes_every_excluded_kind_over_1000_queries(world: World) -> None:
    rng = random.Random(20260301)
    excluded: dict[tuple[str, str], dict[str, str]] = {}
    for scope, nodes in world.ids.items():
        excluded[scope] = {nodes[k]: world.runner.node(nodes[k], tenant_id=scope[0]).content  # type: ignore[union-attr]
                           for k in EXCLUDED_KINDS}
    all_excluded_ids = {i for d in excluded.values() for i in d}
    # the messages whose every claim is excluded: their excerpts are excluded too
    silenced: set[str] = set()
    for (tenant, owner), nodes in world.ids.items():
        for k in EXCLUDED_KINDS:
            event = world.runner.node(nodes[k], tenant_id=tenant).evidence_refs[0]  # type: ignore[union-attr]
            of_event = [n for n in world.runner.store.owner_nodes(tenant, owner) if event in n.evidence_refs]
            if all(default_exclusion_reason(n) is not None for n in of_event):
                silenced.add(excerpt_id_for(of_event[0], event))
    assert len(silenced) >= len(EXCLUDED_KINDS)
    seen_items = 0
    conflicts_seen = 0
    excerpts_seen = 0
    for _ in range(1000):
        tenant, owner = rng.choice(TENANTS), rng.choice(OWNERS)
        query = " ".join(rng.sample(WORDS, rng.randint(1, 4)))
        body: dict[str, Any] = {"query": query, "owner_id": owner, "limit": rng.choice([3, 5, 10, 20])}
        if rng.random() < 0.3:
            body["token_budget"] = rng.choice([60, 150, 400, 2000])
        if rng.random() < 0.2:
            body["debug"] = True
        resp = _retrieve(world, tenant, body)
        nodes = world.ids[(tenant, owner)]
        ids = [item["node_id"] for item in resp["items"]]
        seen_items += len(ids)
        assert not set(ids) & all_excluded_ids, (query, ids)
        assert not set(ids) & silenced, (query, ids)
        for item in resp["items"]:
            if item["kind"] == "excerpt":
                excerpts_seen += 1
                claims = [world.runner.node(i, tenant_id=tenant) for i in item["claim_ids"]]
                assert not claims or any(c is not None and default_exclusion_reason(c) is None for c in claims)
        for node_id, content in excluded[(tenant, owner)].items():
            assert node_id not in resp["context"]
            assert content not in resp["context"]
        for item in resp["items"]:
            assert item["label"]["epistemic_type"] not in ("HYPOTHETICAL", "DEPRECATED")
            assert item["label"]["lifecycle"] not in ("SUPERSEDED", "DEPRECATED", "ARCHIVED")
            if item["label"]["epistemic_type"] == "CONDITIONAL":
                assert item["label"]["condition_state"] == "TRUE"
            if item["label"]["epistemic_type"] == "UNVERIFIED":
                assert item["label"]["confidence"] > 0.30
        tea = {nodes["tea_love"], nodes["tea_hate"]}
        present = [item for item in resp["items"] if item["node_id"] in tea]
        if present:
            # A contested claim never appears alone as a plain fact: its partner comes with it, flagged.
            assert {i["node_id"] for i in present} == tea
            flagged = [i for i in present if i["conflict_flag"]]
            assert flagged and all(i["contradicts_id"] in tea - {i["node_id"]} for i in flagged)
            assert all("contested" in i["flags"] or i["conflict_flag"] for i in present)
            if any(i["in_context"] for i in present):
                assert "CONFLICT" in resp["context"]
            conflicts_seen += 1
    assert seen_items > 1000 and conflicts_seen > 20 and excerpts_seen > 500


def test_explicit_mode_keeps_excluded_items_and_says_why(world: World) -> None:
    nodes = world.ids[(TENANTS[0], OWNERS[0])]
    resp = _retrieve(world, TENANTS[0], {"query": "maybe learn Rust", "owner_id": OWNERS[0], "mode": "explicit"})
    reasons = {e["node_id"]: e["reason"] for e in resp["excluded"]}
    assert nodes["rust_maybe"] in [i["node_id"] for i in resp["items"]]
    assert reasons[nodes["rust_maybe"]].startswith("epistemic_filtered")
    default = _retrieve(world, TENANTS[0], {"query": "maybe learn Rust", "owner_id": OWNERS[0]})
    assert nodes["rust_maybe"] not in [i["node_id"] for i in default["items"]]
    assert default["excluded"] == []


def test_world_context_separates_facts_conflicts_proposals_and_stale(world: World) -> None:
    nodes = world.ids[(TENANTS[1], OWNERS[1])]
    r = world.client.get("/v1/world-context", params={"owner_id": OWNERS[1]}, headers=world.keys.auth("admin-beta"))
    assert r.status_code == 200, r.text
    ctx = r.json()
    facts = {f["node_id"] for f in ctx["facts"]}
    assert nodes["berlin"] in facts and nodes["coffee"] in facts
    assert not facts & {nodes[k] for k in (*EXCLUDED_KINDS, "tea_love", "tea_hate")}
    conflict_ids = {i for c in ctx["conflicts"] for i in c["node_ids"]}
    assert {nodes["tea_love"], nodes["tea_hate"]} <= conflict_ids
    proposals = {p["node_id"] for p in ctx["proposals"]}
    assert nodes["rust_maybe"] in proposals
    stale = {p["node_id"] for p in ctx["stale"]}
    assert nodes["cond_false"] in stale or nodes["cond_expired"] in stale
    assert ctx["tenant_id"] == TENANTS[1]


def test_assertion_state_reports_the_contest(world: World) -> None:
    r = world.client.post(
        "/v1/assertions/state",
        json={"owner_id": OWNERS[0], "subject": "user", "predicate": "likes", "valid_at": "2026-03-02T00:00:00Z"},
        headers=world.keys.auth("admin-alpha"),
    )
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "contested"
