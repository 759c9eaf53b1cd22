"""The task continuation capsule end to end (TRUST-FACTS §5, issue #29), real chDB.

The CLI part runs each command as its own process over one data directory, so every call after the
first is a restart: the capsule must come back from the operation log, ``replay --verify`` must find
the rebuild identical, and ``epistream world --task T --json`` must return it. The API part reads it
through ``GET /v1/world-context?continuation_task_id=T`` before and after reopening the runner.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from test_api_support import Keys, make_client, reference_clock, settings_for
from test_cli import cli

from epistream.cli.demo import REFERENCE_TIME
from epistream.runner import EmbeddedRunner
from sinks.clickhouse import OperationLog
from sinks.embedding import HashEmbedder

pytestmark = pytest.mark.integration
DIGEST = "cd" * 32


def _event(event_id: str, content: str, hours_ago: float, **kw: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "event_id": event_id, "tenant_id": "acme", "owner_id": "alice", "scope": "personal", "role": "user",
        "content": content, "occurred_at": (REFERENCE_TIME - timedelta(hours=hours_ago)).isoformat(),
        "session_id": "sess-1",
    }  # fmt: skip
    body.update(kw)
    return body


def _capsule(**kw: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "task_id": "T-1",
        "objective": "Migrate the billing database to Postgres",
        "state": "active",
        "last_verified_step": {"step": "schema restored", "outcome": "passed", "measurement_id": "ci-41"},
        "open_questions": ["Which Postgres version for billing?"],
        "next_step": "Copy the invoices table",
    }
    body.update(kw)
    return body


def _lines(*events: dict[str, Any]) -> bytes:
    return "".join(json.dumps(e) + "\n" for e in events).encode()


def test_the_capsule_survives_restart_and_replay_and_the_cli_returns_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = tmp_path / "first.jsonl"
    first.write_bytes(_lines(
        _event("d1", "We decided to use Postgres 16 for billing because it supports logical replication.", 5),
        _event("c1", "Status of the migration.", 4, task_state=_capsule()),
        _event("s1", "I think the migration is paused.", 3, role="assistant",
               task_state=_capsule(task_id="T-2", state="paused")),
        _event("bad", "All done.", 2, task_state=_capsule(state="completed", open_questions=[], next_step=None)),
    ))  # fmt: skip
    report = cli(data, "ingest", str(first))
    assert report["events"] == 3 and report["dead_letters"] == 1
    assert [e["code"] for e in report["errors"]] == ["task_completion_unverified"]

    world = cli(data, "world", "--tenant", "acme", "--owner", "alice", "--task", "T-1")  # a new process
    cont = world["continuation"]
    [capsule] = cont["resumable"]
    assert (capsule["task_id"], capsule["state"], capsule["next_step"]) == ("T-1", "active", "Copy the invoices table")
    assert capsule["evidence_kind"] == "HUMAN_STATEMENT" and capsule["event_ids"] == ["c1"]
    assert capsule["session_id"] == "sess-1" and cont["selected_task_id"] == "T-1"
    context = world["task_context"]
    assert context["task_id"] == "T-1"
    assert any(c["knowledge_kind"] == "decision" and c["rationale"] == "it supports logical replication"
               for c in context["claims"])  # fmt: skip
    # the assistant's capsule is a proposal, never resumable work
    everything = cli(data, "world", "--tenant", "acme", "--owner", "alice")
    assert [c["task_id"] for c in everything["continuation"]["resumable"]] == ["T-1"]
    assert any(p["subject"] == "T-2" and p["knowledge_kind"] == "task_state" for p in everything["proposals"])

    second = tmp_path / "second.jsonl"
    done = _capsule(state="completed", open_questions=[], next_step=None, supersedes=["c1"],
                    last_verified_step={"step": "row counts match", "outcome": "passed", "measurement_id": "ci-57",
                                        "measurement_sha256": DIGEST})  # fmt: skip
    second.write_bytes(_lines(_event("c2", "ci: migration verified", 1, role="tool", task_state=done)))
    assert cli(data, "ingest", str(second))["events"] == 1
    world = cli(data, "world", "--tenant", "acme", "--owner", "alice", "--task", "T-1")
    assert world["continuation"]["resumable"] == [] and world["task_context"] is None
    [finished] = world["continuation"]["completed"]
    assert finished["evidence_kind"] == "OBJECTIVE_MEASUREMENT" and finished["supersedes"] == [capsule["node_id"]]
    verified = cli(data, "replay", "--verify")
    assert verified["identical"] is True and verified["differences"] == []


def test_the_api_returns_the_capsule_before_and_after_a_restart(chdb_path: Path, tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    keys = Keys()
    keys.add("platform", "acme")
    database = f"capsule_{tmp_path.name[-12:].replace('-', '_')}"

    def runner() -> EmbeddedRunner:
        log = OperationLog.connect(None, path=chdb_path, database=database)
        return EmbeddedRunner(tmp_path, settings, embedder=HashEmbedder(), log=log, clock=reference_clock)

    def continuation(client: Any) -> dict[str, Any]:
        got = client.get("/v1/world-context", params={"owner_id": "alice", "continuation_task_id": "T-1"},
                         headers=keys.auth("platform"))  # fmt: skip
        assert got.status_code == 200, got.text
        body: dict[str, Any] = got.json()
        return body

    r = runner()
    try:
        with make_client(r, keys, settings) as client:
            posted = client.post("/v1/events", headers=keys.auth("platform"), json={"events": [
                _event("c1", "Status of the migration.", 4, task_state=_capsule()),
                _event("x", "done", 3, task_state=_capsule(state="completed", open_questions=[], next_step=None)),
            ]})  # fmt: skip
            assert posted.status_code == 207, posted.text  # one accepted, one refused
            codes = [e["code"] for e in posted.json()["results"]]
            assert codes == [None, "task_completion_unverified"], posted.json()
            before = continuation(client)
        assert [c["task_id"] for c in before["continuation"]["resumable"]] == ["T-1"]
        assert before["task_context"]["capsule"]["next_step"] == "Copy the invoices table"
    finally:
        r.close()
        r.log.close()
    again = runner()  # a restart: the store comes back from the operation log
    try:
        with make_client(again, keys, settings) as client:
            after = continuation(client)
        assert after["continuation"] == before["continuation"]
        assert again.verify_replay() == []
    finally:
        again.close()
        again.log.close()
