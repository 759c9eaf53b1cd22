"""What an operator meets running the distributed mode, against the real broker, OpenSearch and workers.

* A stop (SIGTERM) while OpenSearch is down commits nothing the index did not take: the restarted
  worker indexes every node (it used to commit the pending node documents unwritten: 0 of 35 indexed).
* With ``--role all`` an OpenSearch outage delays only the index stage: extraction, materialize and
  the ClickHouse writes finish every event while OpenSearch is unreachable (the shared faust consumer
  used to stop them all once the index's queue was full).
* A worker whose role needs a backend that is not configured, or whose chDB store another worker
  holds, refuses to start with a typed error naming what to set, instead of retrying forever.
* Workers with a chDB store each (the development topology) leave the log split between the stores;
  ``epistream combine-logs`` gives back one log equal to a single worker's, verified, idempotent.
* OpenSearch or Kafka coming back empty is detected (the index stage waits; a core worker refuses to
  start with ``kafka_state_lost``) and ``epistream repair`` restores it, after which the pipeline
  carries on exactly as if nothing had been lost.

OpenSearch "outages" are a TCP gate in front of the shared node (``test_stream_scaleout._Gate``);
"came back empty" is this test's own indices and topics deleted, never the shared services'.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from opensearchpy import OpenSearch
from test_stream_pipeline import ROOT, Deployment, assert_matches, expected_state, sample_events, start_services
from test_stream_scaleout import _Gate, _merge, several_thousand_events

from sinks.documents import excerpt_alias
from streams.faust_app import consumer_lag
from streams.publisher import PublishReport

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def services() -> tuple[str, str]:
    return start_services()


def cli(
    *args: str, env: dict[str, str], cwd: Path | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "epistream.cli", *args],
        capture_output=True, text=True, timeout=timeout, check=False, cwd=cwd or ROOT,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT), **env},
    )  # fmt: skip


def deployment_env(dep: Deployment, os_url: str | None = None) -> dict[str, str]:
    return {
        "EPISTREAM_KAFKA_BOOTSTRAP": dep.bootstrap,
        "EPISTREAM_KAFKA_TOPIC_PREFIX": dep.prefix,
        "EPISTREAM_PARTITIONS": str(dep.topics.partitions),
        "EPISTREAM_OPENSEARCH_URL": os_url or dep.os_url,
        "EPISTREAM_OPENSEARCH_INDEX": dep.alias,
        "EPISTREAM_EMBEDDER": "hash",
    }


def index_lag(dep: Deployment) -> int:
    return sum(consumer_lag(dep.bootstrap, dep.index_group(), [dep.topics.nodes]).values())


def core_lag(dep: Deployment) -> int:
    names = [dep.topics.events, dep.topics.extractions, dep.topics.commands, *dep.topics.dlqs]
    return sum(consumer_lag(dep.bootstrap, dep.group(), names).values())


def test_an_outage_delays_only_the_index_and_a_stop_during_it_commits_nothing_unwritten(
    services: tuple[str, str], tmp_path: Path
) -> None:
    bootstrap, os_url = services
    gate = _Gate(os_url)  # closed: nothing listens, as when OpenSearch is down
    dep = Deployment(bootstrap, gate.url, tmp_path)
    lines = several_thousand_events(copies=1)
    report = dep.publish(lines)
    assert report.ok
    ops, nodes = expected_state(lines, report)
    try:
        proc = dep.start()
        # (6) The core stages finish every event while the index cannot write: they are not held up by
        # the index stage's backlog, which is far larger than faust's per-agent queue (4,096 records).
        deadline = time.monotonic() + 240
        while dep.committed_events(0) < len(lines) or core_lag(dep):
            assert proc.poll() is None, dep.log_tail()
            assert time.monotonic() < deadline, "the core stages stopped while OpenSearch was down\n" + dep.log_tail()
            time.sleep(0.5)
        pending = index_lag(dep)
        assert pending > 4096, pending  # every node record is still to be indexed
        assert "index sink: OpenSearch write failed" in dep.log_tail()
        # (1) SIGTERM now: a clean stop must not commit the node documents it could not write.
        dep.stop(signal.SIGTERM)
        assert proc.returncode == 0, dep.log_tail()
        assert index_lag(dep) == pending, "the stop committed node documents that were never written"
        gate.open()
        dep.start()
        dep.wait_idle(expect_events=len(lines))
    finally:
        dep.stop()
        gate.close()
    got = dep.dump()
    assert_matches(dep, got, ops, nodes)  # every node in OpenSearch at its latest version
    assert got["counts"]["raw_events"] == len(lines)


def test_a_worker_refuses_to_start_without_its_backend_or_on_a_store_in_use(
    services: tuple[str, str], tmp_path: Path
) -> None:
    bootstrap, os_url = services
    dep = Deployment(bootstrap, os_url, tmp_path)
    env = deployment_env(dep)
    # No OpenSearch URL for a role that indexes: refused at once, naming the setting.
    started = time.monotonic()
    no_index = cli("worker", "--data-dir", str(tmp_path / "w0"), env={**env, "EPISTREAM_OPENSEARCH_URL": ""})
    assert no_index.returncode == 2, no_index.stderr
    assert "not_configured" in no_index.stderr and "EPISTREAM_OPENSEARCH_URL" in no_index.stderr
    assert time.monotonic() - started < 60
    # A second worker on a chDB store in use: refused at once, naming the holder and what to do.
    first = dep.start(data_dir=tmp_path / "shared")
    try:
        dep.wait_for_members(1)
        started = time.monotonic()
        second = cli("worker", "--data-dir", str(tmp_path / "shared"), env=env)
        assert time.monotonic() - started < 60, "the second worker did not fail at start"
        assert second.returncode == 2, second.stderr[-2000:]
        assert "data_dir_locked" in second.stderr
        assert f"epistream worker (pid {first.pid})" in second.stderr
        assert "EPISTREAM_CLICKHOUSE_URL" in second.stderr and "EPISTREAM_WORKER_DATA_DIR" in second.stderr
        # The CLI against that running worker's store fails at once too, saying what to do.
        for command in (("sql", "SELECT count() FROM operations"), ("stats",), ("migrate",), ("rebuild-index",)):
            started = time.monotonic()
            refused = cli(*command, "--data-dir", str(tmp_path / "shared"), "--json", env=env)
            assert refused.returncode == 2, (command, refused.stdout, refused.stderr)
            error = json.loads(refused.stdout)["error"]
            assert error["code"] == "data_dir_locked" and error["details"]["holder"] == "worker", command
            assert "Stop the worker first" in error["message"] and "EPISTREAM_CLICKHOUSE_URL" in error["message"]
            assert time.monotonic() - started < 30, command
        assert first.poll() is None, dep.log_tail()  # the running worker was not disturbed
    finally:
        dep.stop()


def test_combine_logs_gives_back_one_log_from_the_stores_of_two_workers(
    services: tuple[str, str], tmp_path: Path
) -> None:
    dep = Deployment(*services, tmp_path)
    lines = sample_events(n_labelled=200, n_pairs=60)
    dirs = [tmp_path / "w1", tmp_path / "w2"]
    try:
        for d in dirs:
            dep.start(data_dir=d)
        dep.wait_for_members(2)
        report = dep.publish(lines)
        dep.wait_idle(expect_events=len(lines))
    finally:
        dep.stop()
    ops, nodes = expected_state(lines, report)
    dumps = [dep.dump(d) for d in dirs]
    assert all(0 < d["counts"]["operations"] < len(ops) for d in dumps), "each store must hold a part"
    combined = tmp_path / "combined"
    env = deployment_env(dep)
    first = cli("combine-logs", *map(str, dirs), "--data-dir", str(combined), "--json", env=env)
    assert first.returncode == 0, first.stderr[-3000:]
    result = json.loads(first.stdout)
    assert result["chains"]["ok"] and result["chains"]["gaps"] == 0 and result["chains"]["forks"] == 0
    assert result["conflicting_operations"] == 0
    assert result["totals"]["operations"] == len(ops) and result["totals"]["raw_events"] == len(lines)
    assert sum(r["added"]["operations"] for r in result["sources"]) == len(ops)
    # Combined, the log is what one worker writes (operations, latest node states, the index untouched).
    got = dep.dump(combined)
    assert_matches(dep, got, ops, nodes)
    assert _merge(dumps)["operations"] == sorted((op_id, checksum) for op_id, checksum in got["operations"])
    # Again: nothing added (rows are keyed by their derived ids).
    again = cli("combine-logs", *map(str, dirs), "--data-dir", str(combined), "--json", env=env)
    assert again.returncode == 0, again.stderr[-3000:]
    assert all(n == 0 for r in json.loads(again.stdout)["sources"] for n in r["added"].values())
    counted = cli("sql", "SELECT count() FROM operations", "--data-dir", str(combined), "--json", env=env)
    assert json.loads(counted.stdout)["rows"] == [[len(ops)]]


def _delete_indices(client: OpenSearch, alias: str) -> None:
    for name in (alias, excerpt_alias(alias)):
        for index in sorted(client.indices.get_alias(name=name)):
            client.indices.delete(index=index)


def test_opensearch_wiped_is_detected_and_repaired(services: tuple[str, str], tmp_path: Path) -> None:
    dep = Deployment(*services, tmp_path)
    env = deployment_env(dep)
    client = OpenSearch(dep.os_url)
    lines = sample_events(n_labelled=120, n_pairs=30)
    first, later = lines[: len(lines) // 2], lines[len(lines) // 2 :]
    report = dep.publish(first)
    try:
        dep.start()
        dep.wait_idle(expect_events=len(first))
        dep.stop()
        # OpenSearch comes back empty (this deployment's indices only).
        _delete_indices(client, dep.alias)
        checked = cli("repair", "--check", "--json", env=env)
        assert checked.returncode == 1, checked.stderr[-2000:]
        assert json.loads(checked.stdout)["opensearch"]["missing_aliases"] == [dep.alias, excerpt_alias(dep.alias)]
        # A restarted worker does not create an empty index behind the operator's back: it waits and says why.
        proc = dep.start()
        more = dep.publish(later)
        deadline = time.monotonic() + 60
        while "epistream repair" not in dep.log_tail():
            assert proc.poll() is None, dep.log_tail()
            assert time.monotonic() < deadline, "the index stage did not report the missing index\n" + dep.log_tail()
            time.sleep(0.5)
        assert not client.indices.exists_alias(name=dep.alias)
        repaired = cli("repair", "--json", env=env)
        assert repaired.returncode == 0, repaired.stderr[-3000:]
        done = json.loads(repaired.stdout)["opensearch"]["repaired"]
        assert done["source"] == dep.topics.nodes and done["written"] > 0 and done["rejected"] == 0
        dep.wait_idle(expect_events=len(lines))
    finally:
        dep.stop()
    merged = PublishReport()
    merged.records.extend(report.records)
    merged.records.extend(more.records)
    ops, nodes = expected_state(lines, merged)
    assert_matches(dep, dep.dump(), ops, nodes)  # every node indexed again, the later ones too
    assert json.loads(cli("repair", "--check", "--json", env=env).stdout)["needed"] == []


async def _delete_topics(bootstrap: str, names: list[str]) -> None:
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.delete_topics(names)
    finally:
        await admin.close()
    for _ in range(60):  # deletion is asynchronous on the broker
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
        await admin.start()
        try:
            if not set(names) & set(await admin.list_topics()):
                return
        finally:
            await admin.close()
        await asyncio.sleep(0.5)
    raise AssertionError("topics were not deleted")


def test_kafka_wiped_is_detected_and_repaired_from_the_log(services: tuple[str, str], tmp_path: Path) -> None:
    """After the repair the workers carry on from the restored state: later events contradict and
    supersede earlier ones exactly as in one uninterrupted run."""
    dep = Deployment(*services, tmp_path)
    env = deployment_env(dep)
    lines = sample_events(n_labelled=120, n_pairs=60)
    # The pairs' second halves come after the wipe: their contradictions need the restored state.
    first = [*lines[:120], *lines[120::2]]
    later = lines[121::2]
    report = dep.publish(first)
    try:
        dep.start()
        dep.wait_idle(expect_events=len(first))
    finally:
        dep.stop()
    asyncio.run(_delete_topics(dep.bootstrap, sorted(dep.topics.all())))  # Kafka came back empty
    refused = dep.start()
    refused.wait(timeout=120)
    dep.procs.clear()
    assert refused.returncode == 2, dep.log_tail()
    assert "kafka_state_lost" in dep.log_tail() and "epistream repair" in dep.log_tail()
    repaired = cli("repair", "--data-dir", str(dep.data_dir), "--json", env=env)
    assert repaired.returncode == 0, repaired.stderr[-3000:]
    restored = json.loads(repaired.stdout)["kafka"]["restored"]
    got_before = dep.dump()
    assert restored["operations"] == got_before["counts"]["operations"] and restored["chains"]["ok"]
    try:
        dep.start()
        more = dep.publish(later)
        # the group's offsets went with the topics: the worker starts from the restored beginning
        dep.wait_idle(expect_events=len(later))
    finally:
        dep.stop()
    merged = PublishReport()
    merged.records.extend(report.records)
    merged.records.extend(more.records)
    ops, nodes = expected_state([*first, *later], merged)
    assert_matches(dep, dep.dump(), ops, nodes)


def _wait_http(url: str, proc: subprocess.Popen[bytes], log: Path, timeout_s: float = 90) -> Any:
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text(errors="replace")[-3000:]
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            return json.loads(exc.read())
        except OSError:
            time.sleep(0.5)
    raise AssertionError("the API did not answer\n" + log.read_text(errors="replace")[-3000:])


def test_the_api_and_a_worker_run_side_by_side_with_the_readme_commands(
    services: tuple[str, str], tmp_path: Path
) -> None:
    """``epistream worker`` and ``epistream api`` in one directory, defaults only: no data-dir collision."""
    from test_stream_pipeline import free_port

    dep = Deployment(*services, tmp_path)
    dep.app_id = lambda run=0: "epistream"  # type: ignore[method-assign]  # the CLI's default app id
    env = {**os.environ, "PYTHONPATH": str(ROOT), **deployment_env(dep)}
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"keys": []}))
    port = free_port()
    worker_log, api_log = tmp_path / f"{dep.prefix}w.log", tmp_path / "api.log"
    worker = subprocess.Popen([sys.executable, "-m", "epistream.cli", "worker", "--loglevel", "info"], cwd=tmp_path,
                              env=env, stdout=worker_log.open("wb"), stderr=subprocess.STDOUT)  # fmt: skip
    dep.procs.append(worker)
    api = subprocess.Popen([sys.executable, "-m", "epistream.cli", "api", "--port", str(port)], cwd=tmp_path,
                           env={**env, "EPISTREAM_API_KEYS_FILE": str(keys), "EPISTREAM_OPENSEARCH_URL": ""},
                           stdout=api_log.open("wb"), stderr=subprocess.STDOUT)  # fmt: skip
    try:
        health = _wait_http(f"http://127.0.0.1:{port}/v1/health", api, api_log)
        assert health["status"] == "ok", health
        dep.wait_for_members(1, run=0)
        report = dep.publish(sample_events(n_labelled=20, n_pairs=0))
        dep.wait_idle(expect_events=report.sent)
        assert worker.poll() is None and api.poll() is None
        assert (tmp_path / ".epistream-worker" / "chdb").is_dir() and (tmp_path / ".epistream" / "chdb").is_dir()
    finally:
        api.send_signal(signal.SIGTERM)
        api.wait(timeout=60)
        dep.stop()
