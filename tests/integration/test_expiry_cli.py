"""Explicit expiry and revalidation end to end (TRUST-FACTS §4, §8 test 5), through the CLI over real chDB.

An event says until when it holds (``expires_at``); the world view at a later time shows the claim as
stale (``expired``) and DEFAULT retrieval leaves it out; ``epistream revalidate`` with new evidence and a
new expiry makes it a fact again; the log alone replays to the same state.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

SAID = "2026-09-20T09:00:00Z"
EXPIRES = "2026-09-25T00:00:00Z"
NOW = "2026-10-01T12:00:00Z"  # every process's clock: after the expiry
RENEWED = "2027-01-01T00:00:00Z"
EVENTS = [
    {"event_id": "job-1", "tenant_id": "acme", "owner_id": "alice", "scope": "personal", "role": "user",
     "content": "I work at Acme.", "occurred_at": SAID, "expires_at": EXPIRES},
    {"event_id": "job-2", "tenant_id": "acme", "owner_id": "alice", "scope": "personal", "role": "user",
     "content": "Still at the same place, nothing changed.", "occurred_at": "2026-09-30T09:00:00Z"},
]  # fmt: skip


def cli(data_dir: Path, *args: str, stdin: bytes | None = None, expect: int = 0) -> Any:
    proc = subprocess.run(
        [sys.executable, "-m", "epistream.cli", *args, "--data-dir", str(data_dir), "--json"],
        input=stdin, capture_output=True, timeout=120, check=False,
        env={"EPISTREAM_CLOCK": NOW, "EPISTREAM_EMBEDDER": "hash", "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert proc.returncode == expect, proc.stderr.decode()[-2000:]
    out = proc.stdout.decode().strip()
    return json.loads(out) if out else None


def _world(data_dir: Path, at: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    view = cli(data_dir, "world", "--tenant", "acme", "--owner", "alice", *(("--at", at) if at else ()))
    return {c["node_id"]: c for c in view["facts"]}, {c["node_id"]: c for c in view["stale"]}


def test_an_expired_claim_is_stale_until_revalidated_and_replays(tmp_path: Path) -> None:
    data = tmp_path / "data"
    report = cli(data, "ingest", "-", stdin="\n".join(json.dumps(e) for e in EVENTS).encode())
    assert report["events"] == 2 and report["dead_letters"] == 0 and report["claims"] >= 1

    facts, stale = _world(data, "2026-09-22T00:00:00Z")
    [job] = [c for c in facts.values() if c["predicate"] == "works_at"]
    node_id = job["node_id"]
    assert job["expires_at"] == EXPIRES and not stale

    facts, stale = _world(data)  # now: past the expiry
    assert node_id not in facts
    assert stale[node_id]["reason"] == "expired" and stale[node_id]["expires_at"] == EXPIRES
    query = ("query", "where does alice work", "--tenant", "acme", "--owner", "alice")
    assert node_id not in {i["node_id"] for i in cli(data, *query)["items"]}
    explicit = cli(data, *query, "--mode", "explicit")
    assert ("expired" in next(i["flags"] for i in explicit["items"] if i["node_id"] == node_id))

    revalidate = ("revalidate", node_id, "--tenant", "acme")
    past = cli(data, *revalidate, "--expires-at", "2026-09-30T00:00:00Z", "--quote", "yes", expect=1)
    assert past["error_code"] == "expiry_in_past"
    bare = cli(data, *revalidate, "--expires-at", RENEWED, expect=1)
    assert bare["error_code"] == "evidence_required"
    applied = cli(data, *revalidate, "--expires-at", RENEWED, "--evidence", "job-2",
                  "--quote", "Still at the same place", "--reason", "she said so")  # fmt: skip
    assert applied["status"] == "applied" and applied["node_ids"] == [node_id]

    facts, stale = _world(data)
    assert node_id in facts and node_id not in stale and facts[node_id]["expires_at"] == RENEWED
    assert facts[node_id]["label"]["evidence_event_ids"] == ["job-1", "job-2"]
    assert node_id in {i["node_id"] for i in cli(data, *query)["items"]}

    trail = cli(data, "provenance", node_id, "--tenant", "acme", "--owner", "alice")
    ops = [op for op in trail["operations"] if op["op_type"] in ("ASSERT", "REVALIDATED")]
    assert [op["op_type"] for op in ops] == ["ASSERT", "REVALIDATED"]
    assert trail["node"]["version"] == 2
    assert trail["node"]["revalidation"]["previous_expires_at"] == EXPIRES

    assert cli(data, "replay", "--verify") == {
        "nodes": 1, "identical": True, "differences": [], "index_drift": [], "repaired": False,
    }  # fmt: skip
