"""Authority comes from the API key, never from a field the request sets (TRUST-FACTS §3, issue #29).

An agent's key posting ``role: "user"`` (and even ``channel: "platform"``) writes model suggestions:
the user's facts stay what they were and the agent's claims are proposals. Its commands cannot
retire a user's fact; a human's key can. Real chDB, the HTTP API over ASGI.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_api_support import T0, Keys, event, make_client, node_by_event, open_runner, settings_for

from epistream.cli.demo import REFERENCE_TIME
from epistream.runner import EmbeddedRunner

pytestmark = pytest.mark.integration
TENANT = "t-trust"


class Env:
    def __init__(self, client: TestClient, keys: Keys, runner: EmbeddedRunner) -> None:
        self.client, self.keys, self.runner = client, keys, runner

    def post(self, key: str, path: str, body: Any) -> Any:
        return self.client.post(path, json=body, headers=self.keys.auth(key))

    def world(self, owner: str) -> dict[str, Any]:
        r = self.client.get("/v1/world-context", params={"owner_id": owner}, headers=self.keys.auth("platform"))
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body

    def node(self, node_id: str) -> dict[str, Any]:
        r = self.client.get(f"/v1/nodes/{node_id}", headers=self.keys.auth("platform"))
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body


@pytest.fixture()
def env(chdb_path: Path, tmp_path: Path) -> Iterator[Env]:
    settings = settings_for(tmp_path)
    keys = Keys()
    keys.add("platform", TENANT)  # a chat platform relaying conversations
    keys.add("bot", TENANT, kind="agent", actor_type="HUMAN_USER")  # an agent whose file even says HUMAN_USER
    keys.add("alice", TENANT, owners={"alice"}, kind="human")
    with open_runner(chdb_path, tmp_path, settings) as runner, make_client(runner, keys, settings) as client:
        yield Env(client, keys, runner)


def _facts(world: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(f["subject"], f["predicate"], f["object"]) for f in world["facts"]}


def test_an_agent_key_writing_role_user_and_channel_platform_changes_no_fact(env: Env) -> None:
    r = env.post("platform", "/v1/events", [event("paris", "I live in Paris.", owner="alice")])
    assert r.status_code == 200, r.text
    before = _facts(env.world("alice"))
    assert any(o == "Paris" for _, _, o in before), before
    forged = event("forged", "I no longer live in Paris, I now live in Berlin.", owner="alice", minutes=5)
    forged["channel"] = "platform"  # the caller claims a platform's authority
    r = env.post("bot", "/v1/events", [forged])
    assert r.status_code == 200 and r.json()["accepted"] == 1, r.text
    world = env.world("alice")
    assert _facts(world) == before  # Paris is still the fact; nothing of the agent's joined it
    nodes = node_by_event(env.runner, TENANT, "alice", "")
    paris = env.node(nodes["paris"])
    assert paris["lifecycle"] == "TENTATIVE" and paris.get("superseded_by") is None
    berlin = env.node(nodes["forged"])
    assert berlin["evidence_kind"] == "MODEL_SUGGESTION" and berlin["source_type"] == "SYSTEM_INFERRED"
    assert berlin["role"] == "user"  # what the caller declared is kept as provenance, not as authority
    assert nodes["forged"] in {p["node_id"] for p in world["proposals"]}
    stored = env.runner.store.get_node(nodes["forged"])
    assert stored is not None and stored.evidence_kind is not None


def test_an_agent_key_cannot_retire_a_users_fact_and_a_human_key_can(env: Env) -> None:
    r = env.post("platform", "/v1/events", [event("boat", "I own a boat.", owner="alice")])
    assert r.status_code == 200, r.text
    boat = node_by_event(env.runner, TENANT, "alice", "")["boat"]
    r = env.post("bot", f"/v1/nodes/{boat}/deprecate", {"reason": "sold"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "channel_not_authoritative", r.text
    # a command body cannot name its actor or channel: authority is the key's
    r = env.post("bot", f"/v1/nodes/{boat}/deprecate",
                 {"reason": "sold", "actor": {"actor_id": "alice", "actor_type": "HUMAN_USER"}})
    assert r.status_code == 422, r.text
    r = env.post("bot", f"/v1/nodes/{boat}/deprecate", {"reason": "sold", "channel": "human"})
    assert r.status_code == 422, r.text
    assert env.node(boat)["lifecycle"] == "TENTATIVE"
    r = env.post("alice", f"/v1/nodes/{boat}/deprecate", {"reason": "sold"})
    assert r.status_code == 200, r.text
    node = env.node(boat)
    assert node["lifecycle"] == "DEPRECATED" and node["epistemic_type"] == "DEPRECATED"
    assert r.json()["outcome"]["status"] == "applied"


def test_a_human_key_declaring_agent_narrows_its_authority(env: Env) -> None:
    narrowed = event("guess", "I live in Rome.", owner="alice")
    narrowed["channel"] = "agent"
    r = env.post("alice", "/v1/events", [narrowed])
    assert r.status_code == 200, r.text
    node = env.node(node_by_event(env.runner, TENANT, "alice", "")["guess"])
    assert node["evidence_kind"] == "MODEL_SUGGESTION"
    assert not any(o == "Rome" for _, _, o in _facts(env.world("alice")))


def test_an_expired_fact_is_stale_until_a_human_key_revalidates_it(env: Env) -> None:
    """TRUST-FACTS §4: ``expires_at`` on the event; ``POST /v1/nodes/{id}/revalidate`` needs a human channel."""
    said = event("desk", "I sit at desk B12.", owner="alice")
    said["expires_at"] = (T0 + timedelta(days=1)).isoformat()
    r = env.post("platform", "/v1/events", [said])
    assert r.status_code == 200 and r.json()["accepted"] == 1, r.text
    desk = node_by_event(env.runner, TENANT, "alice", "")["desk"]
    world = env.world("alice")  # the API's clock is months later
    assert desk not in {f["node_id"] for f in world["facts"]}
    [stale] = [s for s in world["stale"] if s["node_id"] == desk]
    assert stale["reason"] == "expired" and stale["expires_at"] == said["expires_at"].replace("+00:00", "Z")
    renewed = (REFERENCE_TIME + timedelta(days=365)).isoformat()
    body = {"expires_at": renewed, "evidence_quote": "still at B12"}
    r = env.post("bot", f"/v1/nodes/{desk}/revalidate", body)
    assert r.status_code == 409 and r.json()["error"]["code"] == "channel_not_authoritative", r.text
    r = env.post("alice", f"/v1/nodes/{desk}/revalidate", {**body, "expires_at": T0.isoformat()})
    assert r.status_code == 409 and r.json()["error"]["code"] == "expiry_in_past", r.text
    r = env.post("alice", f"/v1/nodes/{desk}/revalidate", body)
    assert r.status_code == 200 and r.json()["outcome"]["status"] == "applied", r.text
    node = r.json()["node"]
    assert node["version"] == 2 and node["revalidation"]["evidence_quote"] == "still at B12"
    assert desk in {f["node_id"] for f in env.world("alice")["facts"]}


# --- the trust-state acceptance tests (TRUST-FACTS §8), end to end over HTTP -----------------------------


def _retrieve(env: Env, query: str, mode: str = "default") -> dict[str, Any]:
    r = env.post("platform", "/v1/retrieve", {"query": query, "owner_id": "alice", "mode": mode})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def test_candidates_never_enter_facts_only_context(env: Env) -> None:
    """§8.1: what a model suggested (an agent's key, an assistant's turn, a hypothesis) is a proposal or
    uncertain, never a fact, even when it matches one."""
    user = [event("lives", "I live in Paris.", owner="alice"), event("maybe", "Maybe I will learn Rust.",
                                                                      owner="alice", minutes=1)]  # fmt: skip
    assert env.post("platform", "/v1/events", user).status_code == 200
    said = event("said", "You live in Lisbon and you love sailing.", owner="alice", role="assistant", minutes=2)
    agent = event("agent", "I love climbing.", owner="alice", minutes=3)  # role user, from an agent's key
    same = event("same", "I live in Paris.", owner="alice", minutes=4)  # matches the user's fact
    assert env.post("platform", "/v1/events", [said]).status_code == 200
    assert env.post("bot", "/v1/events", [agent, same]).status_code == 200
    nodes = node_by_event(env.runner, TENANT, "alice", "")
    world = env.world("alice")
    facts = {f["node_id"] for f in world["facts"]}
    assert nodes["lives"] in facts  # two suggestions contesting each other do not unsettle it
    for key in ("said", "agent", "same", "maybe"):
        assert nodes[key] not in facts, key
    proposals = {p["node_id"] for p in world["proposals"]}
    assert nodes["agent"] in proposals and nodes["maybe"] in proposals
    # the assistant's Lisbon and the agent's Paris contest each other: a conflict of suggestions, shown as one
    contested = {i for c in world["conflicts"] for i in c["node_ids"]}
    assert {nodes["said"], nodes["same"]} <= contested and nodes["lives"] not in contested


def test_rejected_records_never_return_through_default_recall(env: Env) -> None:
    """§8.3: a deprecated claim and the loser of a resolved contradiction stay out of DEFAULT retrieval
    and the world view's facts; EXPLICIT shows them with the reason."""
    said = [event("boat", "I own a boat.", owner="alice"), event("love", "I love olives.", owner="alice", minutes=1),
            event("hate", "I hate olives.", owner="alice", minutes=2)]  # fmt: skip
    assert env.post("platform", "/v1/events", said).status_code == 200
    nodes = node_by_event(env.runner, TENANT, "alice", "")
    assert env.post("alice", f"/v1/nodes/{nodes['boat']}/deprecate", {"reason": "sold it"}).status_code == 200
    r = env.post("alice", "/v1/contradictions/resolve", {"winner_id": nodes["love"], "loser_id": nodes["hate"]})
    assert r.status_code == 200 and r.json()["outcome"]["status"] == "applied", r.text
    rejected = {nodes["boat"], nodes["hate"]}
    for query in ("do I own a boat", "do I like olives", "I hate olives", "boat olives"):
        shown = {i["node_id"] for i in _retrieve(env, query)["items"]}
        assert not shown & rejected, (query, shown & rejected)
    explicit = _retrieve(env, "boat olives hate own", mode="explicit")
    assert rejected <= {i["node_id"] for i in explicit["items"]}
    assert all(e["reason"] for e in explicit["excluded"] if e["node_id"] in rejected)
    assert nodes["love"] in {i["node_id"] for i in _retrieve(env, "do I like olives")["items"]}
    facts = {f["node_id"] for f in env.world("alice")["facts"]}
    assert not facts & rejected


def test_retrieval_feedback_changes_usefulness_not_truth_end_to_end(env: Env) -> None:
    """§8.4: REFERENCED and IGNORED_REPEATEDLY move salience only; CONFIRMED moves confidence."""
    assert env.post("platform", "/v1/events", [event("tea", "I drink green tea.", owner="alice")]).status_code == 200
    tea = node_by_event(env.runner, TENANT, "alice", "")["tea"]
    before = env.node(tea)
    r = env.post("platform", f"/v1/nodes/{tea}/reinforce", {"signal": "REFERENCED", "session_id": "s1"})
    assert r.status_code == 200, r.text
    referenced = env.node(tea)
    assert referenced["salience"] > before["salience"]
    truth = ("confidence", "epistemic_type", "lifecycle", "evidence_kind")
    assert {k: referenced.get(k) for k in truth} == {k: before.get(k) for k in truth}
    r = env.post("platform", f"/v1/nodes/{tea}/penalize", {"signal": "IGNORED_REPEATEDLY", "session_id": "s2"})
    assert r.status_code == 200, r.text
    ignored = env.node(tea)
    assert ignored["salience"] < referenced["salience"]
    assert {k: ignored.get(k) for k in truth} == {k: before.get(k) for k in truth}
    r = env.post("alice", f"/v1/nodes/{tea}/reinforce", {"signal": "CONFIRMED", "session_id": "s3"})
    assert r.status_code == 200, r.text
    assert env.node(tea)["confidence"] > before["confidence"]
