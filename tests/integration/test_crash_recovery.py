"""Nothing lost after a crash: ``epistream ingest`` and ``epistream api`` killed at random points, and a
full disk, leave the search indexes catching up with the log, on the embedded index and on OpenSearch.

The log is written before the indexes, so a kill between the two used to leave reduced events out of the
index for good (the next run took them for duplicates). Every scenario ends with: every live node in the
index at the version the log gives it, one excerpt per stored event, and ``replay --verify`` clean.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_opensearch_support import drop_alias, opensearch_client, unique_alias

from epistream.api import generate_key, hash_key_sha256
from epistream.runner import EmbeddedRunner
from schemas.settings import Settings

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def _events(n: int, tag: str) -> list[str]:
    sys.path.insert(0, str(ROOT / "bench"))
    from ingest_embedded import lines

    out = []
    for raw in lines(n):
        event = json.loads(raw)
        event["event_id"] = f"{tag}-{event['event_id']}"
        out.append(json.dumps(event))
    return out


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "EPISTREAM_EMBEDDER": "hash", "EPISTREAM_LOG_BATCH_ROWS": "256",
            "EPISTREAM_BATCH_SIZE": "128", "EPISTREAM_RETRIEVAL_RECEIPTS": "false", **extra}  # fmt: skip


def _cli(*args: str, env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "epistream.cli", *args], env=env, capture_output=True, text=True,
                          timeout=600, check=check)  # fmt: skip


def _kill_during(args: list[str], env: dict[str, str], after_s: float) -> int:
    proc = subprocess.Popen([sys.executable, "-m", "epistream.cli", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        proc.wait(timeout=after_s)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    return proc.returncode


def _assert_consistent(data_dir: Path, env: dict[str, str], events: int) -> None:
    done = _cli("replay", "--verify", "--data-dir", str(data_dir), "--json", env=env, check=False)
    assert done.returncode == 0, (done.stdout[-4000:], done.stderr[-4000:])
    verify = json.loads(done.stdout)
    assert verify["identical"] and verify["index_drift"] == [], verify
    settings = Settings(data_dir=data_dir, embedder="hash", opensearch_url=env.get("EPISTREAM_OPENSEARCH_URL"),
                        opensearch_index=env.get("EPISTREAM_OPENSEARCH_INDEX", "epistream-nodes"))  # fmt: skip
    with EmbeddedRunner(data_dir, settings, repair_projections=False) as runner:
        held = runner.index.versions()  # type: ignore[attr-defined]
        live = {n.node_id: n.version for n in runner.store.iter_nodes()}
        assert live and held == live
        assert runner.log.event_count() == events
        assert len(runner.excerpts.versions()) == events  # type: ignore[attr-defined]


@pytest.fixture(params=["embedded", "opensearch"])
def backend(request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    if request.param == "embedded":
        yield {}
        return
    client = opensearch_client()
    alias = unique_alias("it-crash")
    url = f"http://{client.transport.hosts[0]['host']}:{client.transport.hosts[0]['port']}"
    try:
        yield {"EPISTREAM_OPENSEARCH_URL": url, "EPISTREAM_OPENSEARCH_INDEX": alias}
    finally:
        drop_alias(client, alias)
        drop_alias(client, f"{alias}-excerpts")


def test_ingest_killed_at_random_points_then_rerun_loses_nothing(tmp_path: Path, backend: dict[str, str]) -> None:
    env = _env(**backend)
    events = _events(6000, "k")
    source = tmp_path / "events.jsonl"
    source.write_text("\n".join(events) + "\n")
    data_dir = tmp_path / "data"
    rng = random.Random(7)
    killed = 0
    for _ in range(3):
        if _kill_during(["ingest", str(source), "--data-dir", str(data_dir), "--json"], env,
                        rng.uniform(1.5, 3.5)) == -signal.SIGKILL:  # fmt: skip
            killed += 1
    assert killed >= 1
    done = json.loads(_cli("ingest", str(source), "--data-dir", str(data_dir), "--json", env=env).stdout)
    assert done["events"] + done["duplicates"] == len(events)
    _assert_consistent(data_dir, env, len(events))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(data_dir: Path, env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    log = data_dir.parent / f"api-{time.monotonic_ns()}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "epistream.cli", "api", "--port", str(port), "--data-dir",
                                 str(data_dir)], env=env, stdout=out, stderr=subprocess.STDOUT)  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=2).status_code in (200, 503):
                return proc
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    raise AssertionError("the API did not start:\n" + log.read_text("utf-8", "replace")[-4000:])


def test_api_killed_during_posts_then_retried_loses_nothing(tmp_path: Path) -> None:
    token = generate_key()
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"keys": [{"id": "w", "tenant_id": "t", "sha256": hash_key_sha256(token),
                                          "permissions": ["read", "write", "admin"]}]}))  # fmt: skip
    env = _env(EPISTREAM_API_KEYS_FILE=str(keys))
    data_dir, port = tmp_path / "data", _free_port()
    events = [json.loads(e) for e in _events(1500, "a")]
    batches = [events[i : i + 250] for i in range(0, len(events), 250)]
    keys_of = [f"00000000-0000-4000-8000-{i:012d}" for i in range(len(batches))]
    headers = {"Authorization": f"Bearer {token}"}
    server = _serve(data_dir, env, port)
    sent = 0
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
            for i, batch in enumerate(batches):
                if i == 2:  # kill -9 while this batch is being written
                    killer = subprocess.Popen(["sh", "-c", f"sleep 0.15; kill -9 {server.pid}"])
                    # usually cut off half-way; if it was quick, the kill comes right after it
                    with contextlib.suppress(httpx.HTTPError):
                        http.post("/v1/events", json=batch, headers={**headers, "Idempotency-Key": keys_of[i]})
                    killer.wait()
                    assert server.wait(timeout=30) == -signal.SIGKILL
                    break
                assert http.post("/v1/events", json=batch,
                                 headers={**headers, "Idempotency-Key": keys_of[i]}).status_code == 200  # fmt: skip
                sent += 1
    finally:
        server.kill()
        server.wait()
    server = _serve(data_dir, env, port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
            for i, batch in enumerate(batches[sent:], start=sent):  # the client retries with the same keys
                r = http.post("/v1/events", json=batch, headers={**headers, "Idempotency-Key": keys_of[i]})
                assert r.status_code == 200, r.text
            probe = events[650]
            body = {"query": probe["content"], "owner_id": probe["owner_id"], "sources": "excerpts"}
            found = http.post("/v1/retrieve", json=body, headers=headers).json()
            assert events[650]["event_id"] in [i["event_id"] for i in found["items"]]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
    _assert_consistent(data_dir, env, len(events))


def test_a_full_disk_ends_with_a_typed_report_and_the_next_run_completes(tmp_path: Path) -> None:
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)], check=True)
    try:
        env = _env(EPISTREAM_LOG_BATCH_ROWS="4096")
        events = _events(3000, "f")
        source = tmp_path / "events.jsonl"
        source.write_text("\n".join(events) + "\n")
        data_dir = mount / "data"
        full = _cli("ingest", str(source), "--data-dir", str(data_dir), "--json", env=env, check=False)
        assert full.returncode == 2 and "Traceback" not in full.stderr + full.stdout
        error: dict[str, Any] = json.loads(full.stdout)["error"]
        assert error["code"] == "storage_full" and error["details"]["report"]["received"] > 0
        subprocess.run(["mount", "-o", "remount,size=96m", str(mount)], check=True)
        done = json.loads(_cli("ingest", str(source), "--data-dir", str(data_dir), "--json", env=env).stdout)
        assert done["events"] + done["duplicates"] == len(events)
        _assert_consistent(data_dir, env, len(events))
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_an_index_ahead_of_the_log_is_brought_back_to_the_log_on_open(tmp_path: Path) -> None:
    # What a log that lost rows after the index took them left behind: the index holds a version the
    # log does not. The log is the truth, so opening writes the log's version back over the newer one.
    data_dir = tmp_path / "data"
    settings = Settings(data_dir=data_dir, embedder="hash", retrieval_receipts=False)
    with EmbeddedRunner(data_dir, settings) as runner:
        runner.ingest_lines(_events(300, "h"))
        node = next(iter(runner.store.iter_nodes()))
        forged = node.model_copy(update={"version": node.version + 1, "content": "a version the log never held"})
        runner.index.upsert([forged])
        runner.index.commit()
        assert runner.index.versions()[node.node_id] == node.version + 1  # type: ignore[attr-defined]
        assert runner.verify_projections() == [
            f"index: node {node.node_id} at version {node.version + 1} (log: version {node.version})"
        ]
    with EmbeddedRunner(data_dir, settings) as runner:
        assert runner.verify_projections() == []
        assert runner.index.versions()[node.node_id] == node.version  # type: ignore[attr-defined]
        (held,) = runner.index.get([node.node_id])
        assert held.content == node.content
