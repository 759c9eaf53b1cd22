"""The API in distributed mode against the real broker, a real worker and OpenSearch.

Writes go to Kafka (``conversation.events``, ``memory.commands``) and a worker
subprocess applies them (own topic prefix, consumer group, OpenSearch alias and
chDB dir, see ``test_stream_pipeline.Deployment``). The API resolves command
targets from the OpenSearch alias the worker writes, and a ``?wait=true``
command answers with the outcome derived from the worker's batch on
``memory.operations``: it must equal what the in-process reducer produces on
the same inputs. Services missing => the tests FAIL (``ensure_up`` raises).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from opensearchpy import OpenSearch
from test_api_support import Keys, open_runner, settings_for
from test_opensearch_support import drop_alias
from test_stream_pipeline import Deployment, start_services

from engine.reducer import Reducer
from engine.store import InMemoryStateStore
from epistream.api import create_app
from epistream.runner import EmbeddedRunner
from extractors.base import get_extractor
from retrieval.world import world_context
from schemas.commands import ReinforceCommand
from schemas.events import ConversationEvent
from sinks.embedding import HashEmbedder
from streams import agents

pytestmark = pytest.mark.integration

TENANT = "t-dist"
ISSUED = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
VISIBLE_TIMEOUT_S = 45.0

EVENTS: list[dict[str, Any]] = [
    {"event_id": "d-1", "owner_id": "u1", "scope": "personal", "role": "user", "content": "I'm vegetarian.",
     "occurred_at": "2026-03-01T10:00:00+00:00", "received_at": "2026-03-01T10:00:01+00:00"},
    {"event_id": "d-2", "owner_id": "u1", "scope": "personal", "role": "user", "content": "I live in Lisbon.",
     "occurred_at": "2026-03-01T10:01:00+00:00", "received_at": "2026-03-01T10:01:01+00:00"},
]


@dataclass
class Env:
    client: TestClient
    keys: Keys
    runner: EmbeddedRunner
    dep: Deployment
    store: InMemoryStateStore  # what the embedded path holds after the same events
    node_id: str  # the node of EVENTS[0]


def expected_store() -> InMemoryStateStore:
    extractor, reducer, store = get_extractor("rules"), Reducer(), InMemoryStateStore()
    for body in EVENTS:
        event = ConversationEvent.model_validate({**body, "tenant_id": TENANT})
        agents.materialize(store, reducer, agents.extract(extractor, event))
    return store


@pytest.fixture(scope="module")
def env(chdb_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    bootstrap, os_url = start_services()
    tmp = tmp_path_factory.mktemp("api-distributed")
    dep = Deployment(bootstrap, os_url, tmp)
    settings = settings_for(
        tmp / "api",
        api_mode="distributed",
        kafka_bootstrap=bootstrap,
        kafka_topic_prefix=dep.prefix,
        partitions=dep.topics.partitions,
        opensearch_url=os_url,
        opensearch_index=dep.alias,
        api_command_wait_max_s=20.0,
    )
    keys = Keys()
    keys.add("writer", TENANT)
    store = expected_store()
    node_id = next(n.node_id for n in store.iter_nodes() if "d-1" in n.evidence_refs)
    try:
        with open_runner(chdb_path, tmp / "api", settings) as runner:  # creates the alias the worker fills
            # ClickHouse rows wait up to 30 s behind the stream here, longer than a command call may wait
            # (20 s): a take holding a command must be written, and its outcome published, at once.
            dep.start(options=("clickhouse_within_s=30",))
            app = create_app(runner, api_keys=keys.ring(), settings=settings, clock=lambda: ISSUED)
            with TestClient(app) as client:
                yield Env(client, keys, runner, dep, store, node_id)
    finally:
        dep.stop()
        drop_alias(OpenSearch(hosts=[os_url], timeout=30), dep.alias)


def wait_visible(env: Env, node_id: str) -> dict[str, Any]:
    """Until the worker's node reached the OpenSearch alias the API reads command targets from."""
    deadline = time.monotonic() + VISIBLE_TIMEOUT_S
    while time.monotonic() < deadline:
        for p in env.dep.procs:
            assert p.poll() is None, f"worker exited\n{env.dep.log_tail()}"
        r = env.client.get(f"/v1/nodes/{node_id}", headers=env.keys.auth("writer"))
        if r.status_code == 200:
            body: dict[str, Any] = r.json()
            return body
        assert r.status_code == 404, r.text
        time.sleep(0.3)
    raise AssertionError(f"node never became visible\n{env.dep.log_tail()}")


def expected_reinforce_ops(env: Env, command_id: str, request_id: str) -> tuple[str, ...]:
    """The op ids the in-process reducer emits for the command the API must have published."""
    node = env.store.get_node(env.node_id)
    assert node is not None
    command = ReinforceCommand(
        tenant_id=TENANT, owner_id=node.owner_id, scope=node.scope, scope_id=node.scope_id,
        command_id=command_id, request_id=request_id, actor=env.keys.entries[0].actor,
        issued_at=ISSUED, node_id=env.node_id,
    )
    result = agents.materialize(expected_store(), Reducer(), command)
    return tuple(op.op_id for op in result.operations)


def test_events_publish_and_wait_for_command_outcomes(env: Env) -> None:
    auth = env.keys.auth("writer")
    r = env.client.post("/v1/events", json={"events": [*EVENTS, EVENTS[0]]}, headers=auth)
    assert r.status_code == 200, r.text
    body = r.json()
    # Published, not applied here: the repeat within the request is the only duplicate the API can see.
    assert (body["accepted"], body["duplicates"], body["operations"]) == (2, 1, 0)
    node = wait_visible(env, env.node_id)
    assert node["tenant_id"] == TENANT and node["version"] == env.store.get_node(env.node_id).version

    key = str(uuid.uuid4())
    url = f"/v1/nodes/{env.node_id}/reinforce?wait=true"
    first = env.client.post(url, json={}, headers={**auth, "Idempotency-Key": key})
    assert first.status_code == 200, first.text
    out = first.json()
    expected = expected_reinforce_ops(env, out["command_id"], key)
    assert expected  # the reinforce really changes the node
    assert out["outcome"]["status"] == "applied"
    assert tuple(out["outcome"]["op_ids"]) == expected
    assert out["outcome"]["node_ids"] == [env.node_id]
    assert out["outcome"]["input_id"] == f"command:{TENANT}/{out['command_id']}"

    retry = env.client.post(url, json={}, headers={**auth, "Idempotency-Key": key})
    assert retry.status_code == 200, retry.text
    assert retry.json()["command_id"] == out["command_id"]
    assert retry.json()["outcome"]["op_ids"] == out["outcome"]["op_ids"]
    assert retry.json()["outcome"]["retried"] is True

    # Same key, different body: the worker journals the conflict; the API maps its outcome to 409.
    conflict = env.client.post(url, json={"reason": "again"}, headers={**auth, "Idempotency-Key": key})
    assert conflict.status_code == 409, conflict.text
    assert conflict.json()["error"]["code"] == "request_id_conflict"


def test_command_without_wait_is_accepted_then_seen(env: Env) -> None:
    auth = env.keys.auth("writer")
    wait_visible(env, env.node_id)
    key = str(uuid.uuid4())
    url = f"/v1/nodes/{env.node_id}/penalize"
    r = env.client.post(url, json={"session_id": "s-1"}, headers={**auth, "Idempotency-Key": key})
    assert r.status_code == 202, r.text
    pending = r.json()
    assert pending["code"] == "pending" and pending["command"] == "penalize"
    # Waiting on the same key later finds the one application (from the follower, not a second apply).
    again = env.client.post(f"{url}?wait=true", json={"session_id": "s-1"}, headers={**auth, "Idempotency-Key": key})
    assert again.status_code == 200, again.text
    assert again.json()["command_id"] == pending["command_id"]
    assert again.json()["outcome"]["status"] == "applied"
    assert len(again.json()["outcome"]["op_ids"]) >= 1


def test_unknown_target_is_404_and_not_published(env: Env) -> None:
    r = env.client.post("/v1/nodes/no-such-node/reinforce?wait=true", json={}, headers=env.keys.auth("writer"))
    assert r.status_code == 404
    assert r.json()["error"]["code"] == "node_not_found"


def test_world_context_shows_what_the_workers_wrote(env: Env) -> None:
    """The API process ingested nothing itself: its world view comes from the workers' index."""
    auth = env.keys.auth("writer")
    r = env.client.post("/v1/events", json={"events": EVENTS}, headers=auth)
    assert r.status_code == 200, r.text
    wait_visible(env, env.node_id)
    # The workers date each event by the broker's receipt (LogAppendTime), not by the API's clock.
    now = datetime.now(UTC)
    expected = world_context(
        env.store.iter_nodes(), tuple(env.store.iter_edges()), tenant_id=TENANT, owner_id="u1", reference_time=now
    )
    assert {c.node_id for c in expected.facts} >= {env.node_id}
    deadline = time.monotonic() + VISIBLE_TIMEOUT_S
    facts: set[str] = set()
    while time.monotonic() < deadline:  # search visibility follows the index refresh (~1 s)
        w = env.client.get("/v1/world-context", params={"owner_id": "u1", "at": now.isoformat()}, headers=auth)
        assert w.status_code == 200, w.text
        facts = {c["node_id"] for c in w.json()["facts"]}
        if facts >= {c.node_id for c in expected.facts}:
            break
        time.sleep(0.3)
    assert facts >= {c.node_id for c in expected.facts}
    assert not env.runner.nodes_of(tenant_id=TENANT, owner_id="u1")  # nothing came from the API's own store


def test_without_the_workers_log_reads_that_need_it_say_so(env: Env, tmp_path: Path) -> None:
    """No EPISTREAM_CLICKHOUSE_URL: the node the index returns is never a 404 in provenance, nor its
    value an "exhaustive" unknown; those reads answer 503 ``not_configured`` naming the setting."""
    auth = env.keys.auth("writer")
    r = env.client.post("/v1/events", json={"events": EVENTS}, headers=auth)
    assert r.status_code == 200, r.text
    wait_visible(env, env.node_id)
    settings = env.runner.settings.model_copy(update={"clickhouse_url": None})
    runner = EmbeddedRunner(tmp_path / "api-without-log", settings, embedder=HashEmbedder())
    try:
        assert not runner.keeps_log
        app = create_app(runner, api_keys=env.keys.ring(), settings=settings, clock=lambda: ISSUED)
        with TestClient(app) as client:
            node = client.get(f"/v1/nodes/{env.node_id}", headers=auth)
            assert node.status_code == 200, node.text  # from the index the workers write
            answers = {
                "provenance": client.get(f"/v1/nodes/{env.node_id}/provenance", headers=auth),
                "assertion": client.post("/v1/assertions/state", headers=auth, json={
                    "owner_id": "u1", "subject": "user", "predicate": "lives_in", "valid_at": ISSUED.isoformat()}),
                "receipt": client.get(f"/v1/retrievals/{uuid.uuid4()}", headers=auth),
                "world": client.get("/v1/world-context", params={"owner_id": "u1"}, headers=auth),
            }  # fmt: skip
            for what, answer in answers.items():
                assert answer.status_code == 503, (what, answer.text)
                error = answer.json()["error"]
                assert error["code"] == "not_configured", (what, error)
                assert "EPISTREAM_CLICKHOUSE_URL" in error["message"], (what, error)
            health = client.get("/v1/health")
            assert health.status_code == 200 and "chdb" not in health.json()["checks"], health.text
            found = client.post("/v1/retrieve", headers=auth, json={"owner_id": "u1", "query": "vegetarian"})
            assert found.status_code == 200, found.text  # retrieval needs no log
    finally:
        runner.close()
