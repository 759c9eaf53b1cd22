"""The faust pipeline against the real broker, real OpenSearch and chDB.

Each test runs real worker processes (``python -m streams.faust_app worker``)
on its own topic prefix, consumer group, OpenSearch alias and chDB data dir, and
compares what they stored with what the shared agent steps produce in-process
(``streams.agents`` + ``InMemoryStateStore``) on the same input: operation ids
and checksums, final node states, and OpenSearch documents.

The worker's chDB directory is read after the worker stopped, by a separate
process (chDB allows one engine path per process and this pytest process may
already use the session path). Services missing => the tests FAIL (ensure_up raises).
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from opensearchpy import OpenSearch
from test_opensearch_support import create_mismatched_index

from engine.reducer import Reducer
from engine.store import InMemoryStateStore
from extractors.base import get_extractor
from extractors.secrets.admission import mask_bytes
from schemas.enums import EpistemicType
from schemas.events import ConversationEvent
from schemas.excerpts import excerpt_id_for
from schemas.nodes import MemoryNode
from schemas.search import SearchFilter
from sinks.documents import excerpt_alias, is_excerpt
from sinks.embedding import HashEmbedder
from sinks.opensearch_index import OpenSearchIndex
from streams import agents
from streams import topics as tn
from streams.faust_app import consumer_lag, dlq_list, dlq_replay, enrich
from streams.publisher import PublishReport, publish_command, publish_lines
from tests.prometheus_text import samples

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
PARTITIONS = 4
IDLE_TIMEOUT_S = 90.0


def _load_services() -> Any:
    name = "epistream_local_services"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "deploy" / "local" / "services.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def start_services() -> tuple[str, str]:
    svc = _load_services()
    svc.ensure_up()  # raises ServiceError -> test error, never a skip
    return svc.kafka_bootstrap(), svc.opensearch_url()


@pytest.fixture(scope="module")
def services() -> tuple[str, str]:
    return start_services()


def sample_events(n_labelled: int = 160, n_pairs: int = 40) -> list[bytes]:
    """Realistic chat events over ~50 owners (several partitions, contradictions included)."""
    out: list[bytes] = []
    with (DATA / "extraction_labelled.jsonl").open() as f:
        for line in list(f)[:n_labelled]:
            out.append(json.dumps(json.loads(line)["event"]).encode())
    with (DATA / "contradiction_pairs.jsonl").open() as f:
        for line in list(f)[:n_pairs]:
            pair = json.loads(line)
            out.append(json.dumps(pair["first"]).encode())
            out.append(json.dumps(pair["second"]).encode())
    return out


class Deployment:
    """One isolated pipeline: topics, group, alias and chDB dir of its own."""

    def __init__(self, bootstrap: str, os_url: str, tmp: Path, partitions: int = PARTITIONS) -> None:
        tag = uuid.uuid4().hex[:8]
        self.bootstrap = bootstrap
        self.os_url = os_url
        self.prefix = f"it-{tag}-"
        self.topics = tn.Topics(prefix=self.prefix, partitions=partitions)
        self.alias = f"it-{tag}-nodes"
        self.data_dir = tmp / f"worker-{tag}"
        self.tmp = tmp
        self.procs: list[subprocess.Popen[bytes]] = []
        self._starts = 0
        tn.ensure_topics(bootstrap, self.topics)

    def app_id(self, run: int = 0) -> str:
        return f"app{run}"

    def group(self, run: int = 0) -> str:
        """The core stages' consumer group: the topic prefix and the app id (``WorkerOptions.group_id``)."""
        return f"{self.prefix}{self.app_id(run)}"

    def index_group(self, run: int = 0) -> str:
        return f"{self.group(run)}-index"

    def start(
        self,
        run: int = 0,
        *,
        data_dir: Path | None = None,
        role: str = "all",
        options: tuple[str, ...] = (),
        metrics_port: int | None = None,
    ) -> subprocess.Popen[bytes]:
        self._starts += 1  # one log per start: a restarted worker must not overwrite the killed one's log
        logf = (self.tmp / f"{self.group(run)}-{self._starts}.log").open("wb")
        proc = subprocess.Popen(
            [
                sys.executable, "-m", "streams.faust_app", "worker",
                "--app-id", self.app_id(run), "--prefix", self.prefix,
                "--partitions", str(self.topics.partitions), "--bootstrap", self.bootstrap,
                "--data-dir", str(data_dir or self.data_dir), "--opensearch-url", self.os_url,
                "--index", self.alias, "--embedder", "hash", "--loglevel", "info", "--session-timeout", "6",
                "--role", role, *(arg for option in options for arg in ("--option", option)),
                *(() if metrics_port is None else ("--metrics-port", str(metrics_port))),
            ],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=logf,
            stderr=subprocess.STDOUT,
        )
        self.procs.append(proc)
        return proc

    def log_tail(self) -> str:
        tails = []
        for path in sorted(self.tmp.glob(f"{self.prefix}*.log")):
            tails.append(f"--- {path.name}\n" + path.read_text(errors="replace")[-3000:])
        return "\n".join(tails)

    def wait_idle(self, run: int = 0, *, expect_events: int) -> None:
        """Until every topic is fully consumed by its group (in pipeline order, so lag 0 is causal).

        The core group reads the inputs and the dead letters; memory.nodes is read by the index
        stage's own group (``<group>-index``), asked after the core group: the snapshots it produced
        are all on the topic by then.
        """
        names = [self.topics.events, self.topics.commands, self.topics.extractions, *self.topics.dlqs]
        deadline = time.monotonic() + IDLE_TIMEOUT_S
        lag: dict[str, int] = {}
        while time.monotonic() < deadline:
            for p in self.procs:
                assert p.poll() is None, f"worker exited with {p.returncode}\n{self.log_tail()}"
            lag = consumer_lag(self.bootstrap, self.group(run), names)
            lag |= consumer_lag(self.bootstrap, self.index_group(run), [self.topics.nodes])
            if sum(lag.values()) == 0 and self.committed_events(run) >= expect_events:
                return
            time.sleep(0.5)
        raise AssertionError(f"pipeline not idle after {IDLE_TIMEOUT_S}s: {lag}\n{self.log_tail()}")

    def wait_for_members(self, n: int, run: int = 0, timeout_s: float = 90.0) -> None:
        """Until the group is Stable with ``n`` members (each then holds its share of partitions)."""

        async def state() -> tuple[str, int]:
            from aiokafka.admin import AIOKafkaAdminClient

            admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap)
            await admin.start()
            try:
                [response] = await admin.describe_consumer_groups([self.group(run)])
            finally:
                await admin.close()
            group = response.groups[0]
            return group[2], len(group[5])

        deadline = time.monotonic() + timeout_s
        seen: tuple[str, int] = ("", 0)
        while time.monotonic() < deadline:
            for p in self.procs:
                assert p.poll() is None, f"worker exited with {p.returncode}\n{self.log_tail()}"
            seen = asyncio.run(state())
            if seen == ("Stable", n):
                return
            time.sleep(0.5)
        raise AssertionError(f"group not stable with {n} members after {timeout_s}s: {seen}\n{self.log_tail()}")

    def committed_events(self, run: int) -> int:
        async def go() -> int:
            from aiokafka.admin import AIOKafkaAdminClient

            admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap)
            await admin.start()
            try:
                offs = await admin.list_consumer_group_offsets(self.group(run))
            finally:
                await admin.close()
            return sum(m.offset for tp, m in offs.items() if tp.topic == self.topics.events and m.offset > 0)

        return asyncio.run(go())

    def stop(self, sig: int = signal.SIGTERM) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(sig)
        for p in self.procs:
            try:
                p.wait(timeout=40)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs.clear()

    def run_until_idle(self, *, expect_events: int) -> dict[str, Any]:
        """Start one worker, wait until it has consumed everything (and is still alive), stop, dump."""
        self.start()
        try:
            self.wait_idle(expect_events=expect_events)
            assert all(p.poll() is None for p in self.procs), self.log_tail()
        finally:
            self.stop()
        return self.dump()

    def dump(self, data_dir: Path | None = None) -> dict[str, Any]:
        out = subprocess.run(
            [sys.executable, "-m", "streams.faust_app", "dump", "--data-dir", str(data_dir or self.data_dir)],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            check=False,
        )
        assert out.returncode == 0, out.stderr.decode(errors="replace")[-3000:]
        result: dict[str, Any] = json.loads(out.stdout)
        return result

    def index(self) -> OpenSearchIndex:
        return OpenSearchIndex(self.os_url, self.alias, HashEmbedder())

    def publish(self, lines: list[bytes]) -> PublishReport:
        return publish_lines(lines, self.bootstrap, self.topics.events)


def expected_state(lines: list[bytes], report: PublishReport) -> tuple[set[tuple[str, str]], dict[str, Any]]:
    """What the embedded path produces on the same records (same received_at = record timestamp)."""
    extractor = get_extractor("rules")
    reducer = Reducer()
    store = InMemoryStateStore()
    ops: set[tuple[str, str]] = set()
    assert len(report.records) == len(lines)
    for raw, (_, _, ts_ms) in zip(lines, report.records, strict=True):
        event = agents.admit(raw, source="expected", received_at=enrich_time(ts_ms), stamp=True)
        assert not isinstance(event, agents.Rejected)
        result = agents.materialize(store, reducer, agents.extract(extractor, enrich(event, ts_ms / 1000)))
        ops.update((op.op_id, op.checksum) for op in result.operations)
    nodes = {n.node_id: n.model_dump(mode="json") for n in store.iter_nodes()}
    return ops, nodes


def enrich_time(ts_ms: int) -> Any:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(ts_ms / 1000, UTC)


def assert_matches(dep: Deployment, got: dict[str, Any], ops: set[tuple[str, str]], nodes: dict[str, Any]) -> None:
    got_ops = {(a, b) for a, b in got["operations"]}
    assert len(got["operations"]) == len(got_ops), "an operation was read twice after dedup"
    assert got_ops == ops
    assert got["counts"]["operations"] == len(ops)
    assert got["nodes"] == nodes
    # OpenSearch holds exactly the latest version of every node, and the same node state.
    index = dep.index()
    index.refresh()
    docs = index.get(sorted(nodes))
    assert {d.node_id: d.model_dump(mode="json") for d in docs} == nodes
    assert index.count() == len(nodes)


def test_end_to_end_matches_embedded_path(services: tuple[str, str], tmp_path: Path) -> None:
    dep = Deployment(*services, tmp_path)
    lines = sample_events()
    report = dep.publish(lines)
    assert report.ok and report.sent == len(lines)
    ops, nodes = expected_state(lines, report)
    assert len(ops) > len(lines) and len(nodes) > 50  # the sample really produces memory
    dep.start()
    try:
        dep.wait_idle(expect_events=len(lines))
    finally:
        dep.stop()
    got = dep.dump()
    assert_matches(dep, got, ops, nodes)
    assert got["counts"]["raw_events"] == len(lines)
    assert got["counts"]["extraction_journal"] == len(lines)
    assert got["dead_letters"] == []
    # Epistemic filters pushed into OpenSearch select exactly the expected nodes per owner and type.
    index = dep.index()
    per = Counter(
        (n["tenant_id"], n["owner_id"], n["epistemic_type"]) for n in nodes.values()
    )
    for (tenant, owner, etype), count in sorted(per.items())[:12]:
        flt = SearchFilter(tenant_id=tenant, owner_id=owner, epistemic_types=frozenset({EpistemicType(etype)}))
        assert index.count(flt) == count
    # Hybrid retrieval reaches the nodes: a node's own subject finds it lexically.
    some = MemoryNode.model_validate(next(iter(sorted(nodes.values(), key=lambda n: n["node_id"]))))
    flt = SearchFilter(tenant_id=some.tenant_id, owner_id=some.owner_id)
    assert some.node_id in {h.node_id for h in index.lexical(some.content, flt, 50)}
    # Every admitted message is an excerpt in the deployment's excerpt collection, quoting its text.
    said = OpenSearchIndex(dep.os_url, excerpt_alias(dep.alias), HashEmbedder())
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and said.count() < len(lines):
        time.sleep(0.5)
    assert said.count() == len(lines)
    first = json.loads(lines[0])
    (doc,) = said.get([excerpt_id_for(ConversationEvent.model_validate(first), first["event_id"])])
    assert is_excerpt(doc) and doc.evidence_refs == (first["event_id"],)
    flt = SearchFilter(tenant_id=doc.tenant_id, owner_id=doc.owner_id)
    assert doc.node_id in {h.node_id for h in said.lexical(doc.content, flt, 50)}


def test_duplicate_delivery_and_replay_change_nothing(services: tuple[str, str], tmp_path: Path) -> None:
    dep = Deployment(*services, tmp_path)
    lines = sample_events(n_labelled=80, n_pairs=20)
    first = dep.publish(lines)
    second = dep.publish(lines)  # every event twice, later record timestamps
    assert first.ok and second.ok
    ops, nodes = expected_state(lines, first)
    dep.start(run=0)
    try:
        dep.wait_idle(run=0, expect_events=2 * len(lines))
    finally:
        dep.stop()
    assert_matches(dep, dep.dump(), ops, nodes)
    # A new consumer group replays every topic from offset 0 into the same stores.
    dep.start(run=1)
    try:
        dep.wait_idle(run=1, expect_events=2 * len(lines))
    finally:
        dep.stop()
    got = dep.dump()
    assert_matches(dep, got, ops, nodes)
    assert got["counts"]["raw_events"] == len(lines)


POISON: list[tuple[bytes, str]] = [
    (b'{"event_id": "p1", "tenant_id": ', "invalid_json"),
    (b'["not", "an", "object"]', "not_an_object"),
    (json.dumps({"event_id": "p2", "tenant_id": "t", "owner_id": "o", "scope": "personal", "role": "user",
                 "content": "x" * 40_000, "occurred_at": "2024-01-01T00:00:00Z"}).encode(), "content_too_large"),
    (json.dumps({"event_id": "p3", "tenant_id": "t", "owner_id": "o", "scope": "personal", "role": "user",
                 "content": "I like tea.", "occurred_at": "2024-01-01T00:00:00"}).encode(), "naive_timestamp"),
    (json.dumps({"event_id": "p4", "tenant_id": "t", "owner_id": "o", "scope": "personal", "role": "robot",
                 "content": "I like tea.", "occurred_at": "2024-01-01T00:00:00Z"}).encode(), "unknown_role"),
    (json.dumps({"event_id": "p5", "tenant_id": "t", "owner_id": "o", "scope": "personal", "role": "user",
                 "occurred_at": "2024-01-01T00:00:00Z"}).encode(), "missing_field"),
    (b'{"event_id": "p6", "content": "caf\xe9"}', "invalid_utf8"),
]


async def _send_raw(
    bootstrap: str, topic: str, records: list[bytes] | list[tuple[bytes | None, bytes | None]]
) -> list[tuple[int, int]]:
    """Records as another producer writes them: values keyed ``t/o/personal``, or (key, value) pairs."""
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, enable_idempotence=True, acks="all")
    await producer.start()
    try:
        out = []
        for record in records:
            key, raw = record if isinstance(record, tuple) else (b"t/o/personal", record)
            md = await producer.send_and_wait(topic, raw, key=key)
            out.append((md.partition, md.offset))
        return out
    finally:
        await producer.stop()


def test_poison_input_goes_to_dead_letters_and_pipeline_keeps_running(
    services: tuple[str, str], tmp_path: Path
) -> None:
    dep = Deployment(*services, tmp_path)
    good = sample_events(n_labelled=30, n_pairs=0)
    # The validating publisher refuses the poison itself, with per-line codes ...
    refused = dep.publish([raw for raw, _ in POISON])
    assert refused.sent == 0
    assert [(e.line, e.code) for e in refused.errors] == [(i + 1, code) for i, (_, code) in enumerate(POISON)]
    # ... so other producers write it: poison interleaved with valid events on the same key.
    coords = asyncio.run(_send_raw(dep.bootstrap, dep.topics.events, [raw for raw, _ in POISON]))
    report = dep.publish(good)
    bad_command = b'{"command": "reinforce", "node_id": "n1"}'
    asyncio.run(_send_raw(dep.bootstrap, dep.topics.commands, [bad_command]))
    ops, nodes = expected_state(good, report)
    port = free_port()
    dep.start(metrics_port=port)
    try:
        dep.wait_idle(expect_events=len(POISON) + len(good))
        counted = scrape(port)
        letters = dlq_list(dep.bootstrap, dep.topics)
        # An operator fixes one letter and re-drives it; the running worker processes it.
        fixed = json.loads(POISON[3][0])
        fixed["occurred_at"] = "2024-01-01T00:00:00Z"
        replay = dlq_replay([json.dumps(fixed)], dep.bootstrap, dep.topics)
        assert replay.ok and replay.sent == 1
        dep.wait_idle(expect_events=len(POISON) + len(good) + 1)
    finally:
        dep.stop()
    by_offset = {(r.letter.partition, r.letter.offset): r.letter for r in letters if r.topic == dep.topics.events_dlq}
    assert len(by_offset) == len(POISON)
    for (raw, code), coord in zip(POISON, coords, strict=True):
        letter = by_offset[coord]
        assert letter.reason_code == code
        assert letter.masked_bytes == mask_bytes(raw) and letter.original_sha256 == hashlib.sha256(raw).hexdigest()
        assert letter.source == dep.topics.events
    cmd_letters = [r.letter for r in letters if r.topic == dep.topics.commands_dlq]
    assert [(c.reason_code, c.masked_bytes) for c in cmd_letters] == [("invalid_command", mask_bytes(bad_command))]
    got = dep.dump()
    table = Counter(d["reason_code"] for d in got["dead_letters"])
    assert table == Counter([code for _, code in POISON] + ["invalid_command"])
    # Valid events around the poison were all processed, exactly as the embedded path does.
    got_ops = {(a, b) for a, b in got["operations"]}
    assert ops <= got_ops
    assert got["counts"]["raw_events"] == len(good) + 1  # + the re-driven event
    assert {k: v for k, v in got["nodes"].items() if k in nodes} == nodes
    # What the worker counted before the re-drive, on its Prometheus endpoint: what it read, what
    # went where and why, equal to what the topics and the log hold.
    assert counted["epistream_events_received_total"] == len(POISON) + len(good)
    assert counted["epistream_events_admitted_total"] == len(good)
    dead = {k: v for k, v in counted.items() if k.startswith("epistream_dead_letters_total{")}
    expected_dead = Counter(f'epistream_dead_letters_total{{reason="{code}",stage="extract"}}' for _, code in POISON)
    expected_dead['epistream_dead_letters_total{reason="invalid_command",stage="materialize"}'] = 1
    assert dead == expected_dead
    extracted = sum(v for k, v in counted.items() if k.startswith("epistream_extractions_total{"))
    assert extracted == counted['epistream_inputs_reduced_total{kind="extraction"}'] == len(good)
    assert sum(v for k, v in counted.items() if k.startswith("epistream_operations_total{")) == len(ops)
    assert counted['epistream_clickhouse_rows_total{table="operations"}'] == len(ops)
    assert counted['epistream_clickhouse_rows_total{table="raw_events"}'] == len(good)
    assert counted['epistream_index_documents_total{outcome="written"}'] >= len(nodes)
    assert not [k for k in counted if k.startswith("epistream_sink_retries_total")]  # no write failed
    # Every admitted event's age at extraction: published before the worker started, so > 0.
    assert counted["epistream_event_age_seconds_count"] == len(good)
    assert counted["epistream_event_age_seconds_sum"] > 0


def test_a_record_without_a_key_or_a_value_is_dead_lettered_as_such(
    services: tuple[str, str], tmp_path: Path
) -> None:
    """A keyless record is ``missing_key`` (not a key mismatch), a tombstone ``null_value`` and an empty
    value ``empty_event``; ``epistream dlq list --json`` says where each came from."""
    import subprocess

    dep = Deployment(*services, tmp_path)
    event = json.dumps({"event_id": "k1", "tenant_id": "t", "owner_id": "o", "scope": "personal", "role": "user",
                        "content": "I like tea.", "occurred_at": "2024-01-01T00:00:00Z"}).encode()  # fmt: skip
    sent = [(None, event), (b"t/o/personal", None), (b"t/o/personal", b"")]
    coords = asyncio.run(_send_raw(dep.bootstrap, dep.topics.events, sent))
    good = sample_events(n_labelled=10, n_pairs=0)
    report = dep.publish(good)
    dep.start()
    try:
        dep.wait_idle(expect_events=len(sent) + len(good))
    finally:
        dep.stop()
    listed = subprocess.run(
        [sys.executable, "-m", "epistream.cli", "dlq", "list", "--json"], capture_output=True, text=True,
        cwd=ROOT, check=False, env={**os.environ, "PYTHONPATH": str(ROOT), "EPISTREAM_KAFKA_BOOTSTRAP": dep.bootstrap,
                                    "EPISTREAM_KAFKA_TOPIC_PREFIX": dep.prefix},
    )  # fmt: skip
    assert listed.returncode == 0, listed.stderr[-2000:]
    rows = {(r["source_partition"], r["source_offset"]): r for r in json.loads(listed.stdout)}
    assert {k: (r["source"], r["reason_code"], r["original_length"]) for k, r in rows.items()} == {
        coords[0]: (dep.topics.events, "missing_key", len(event)),
        coords[1]: (dep.topics.events, "null_value", 0),
        coords[2]: (dep.topics.events, "empty_event", 0),
    }
    got = dep.dump()
    assert got["counts"]["raw_events"] == len(good)  # the keyless event was not admitted on a wrong partition
    ops, _ = expected_state(good, report)
    assert {(a, b) for a, b in got["operations"]} == ops


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def scrape(port: int) -> dict[str, float]:
    """A worker's /metrics as ``{"name{labels}": value}`` (its /healthz must answer too)."""
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as health:
        assert health.read() == b"ok\n"
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        assert answer.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = answer.read().decode()
    return samples(text)


def test_a_broken_node_record_is_dead_lettered_and_the_rest_indexed(
    services: tuple[str, str], tmp_path: Path
) -> None:
    dep = Deployment(*services, tmp_path)
    good = sample_events(n_labelled=30, n_pairs=0)
    report = dep.publish(good)
    ops, nodes = expected_state(good, report)
    junk = [b'{"node_id": "n-broken", "version": 1}', b"\xff\xfe not json"]
    coords = asyncio.run(_send_raw(dep.bootstrap, dep.topics.nodes, junk))
    got = dep.run_until_idle(expect_events=len(good))
    letters = {(d["partition"], d["offset"]): d for d in got["dead_letters"]}
    for coord in coords:
        assert letters[coord]["reason_code"] == "invalid_node_snapshot"
        assert letters[coord]["source"] == dep.topics.nodes
    assert_matches(dep, got, ops, nodes)  # every real node indexed, the junk not


def test_a_node_document_opensearch_refuses_is_dead_lettered_and_the_rest_indexed(
    services: tuple[str, str], tmp_path: Path
) -> None:
    """One unacceptable document must not stall the index sink (it used to be retried forever)."""
    dep = Deployment(*services, tmp_path)
    # The alias already points at an index (another version's, say) where `condition` is numeric:
    # OpenSearch refuses every conditional claim's document and takes the others.
    create_mismatched_index(OpenSearch(dep.os_url), dep.alias, HashEmbedder(), "condition")
    good = sample_events(n_labelled=80, n_pairs=0)
    report = dep.publish(good)
    ops, nodes = expected_state(good, report)
    conditional = {node_id for node_id, node in nodes.items() if node["condition"]}
    assert conditional and len(conditional) < len(nodes)  # the sample has both kinds
    got = dep.run_until_idle(expect_events=len(good))
    refused = [d for d in got["dead_letters"] if d["reason_code"] == "index_rejected"]
    assert refused and all(d["source"] == dep.topics.nodes for d in refused)
    assert {json.loads(d["masked"])["node_id"] for d in refused} == conditional
    # The log is complete (every operation and snapshot in ClickHouse) ...
    assert {(a, b) for a, b in got["operations"]} == ops
    assert got["nodes"] == nodes
    # ... and the index holds every node but the refused ones.
    index = dep.index()
    index.refresh()
    docs = index.get(sorted(nodes))
    assert {d.node_id: d.model_dump(mode="json") for d in docs} == {
        node_id: node for node_id, node in nodes.items() if node_id not in conditional
    }


def test_a_worker_opens_its_sinks_at_start_before_any_event(services: tuple[str, str], tmp_path: Path) -> None:
    """The node index exists and both sinks report open while no event has been published.

    Opened lazily, the first events after every start or restart paid for loading chDB, the
    migrations and the index check, and a sink that could not be opened went unnoticed until
    traffic arrived.
    """
    dep = Deployment(*services, tmp_path)
    client = OpenSearch(dep.os_url)
    assert not client.indices.exists_alias(name=dep.alias)
    dep.start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not client.indices.exists_alias(name=dep.alias):
            assert all(p.poll() is None for p in dep.procs), dep.log_tail()
            time.sleep(0.25)
        assert client.indices.exists_alias(name=dep.alias), dep.log_tail()

        def full_log() -> str:  # the whole log: the lines come early and faust logs a lot after them
            return "".join(path.read_text(errors="replace") for path in sorted(tmp_path.glob(f"{dep.prefix}*.log")))

        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and full_log().count("sink open") < 2:
            time.sleep(0.25)
        logged = full_log()
        assert "ClickHouse sink open" in logged and "OpenSearch sink open" in logged, dep.log_tail()
    finally:
        dep.stop()


def test_valid_command_reaches_the_reducer(services: tuple[str, str], tmp_path: Path) -> None:
    """memory.commands is co-partitioned with extractions: a reinforce lands on the node's state."""
    dep = Deployment(*services, tmp_path)
    lines = [
        json.dumps({"event_id": "c-1", "tenant_id": "t-cmd", "owner_id": "u1", "scope": "personal",
                    "role": "user", "content": "I'm vegetarian.", "occurred_at": "2024-02-01T10:00:00Z",
                    "received_at": "2024-02-01T10:00:01Z"}).encode()
    ]
    report = dep.publish(lines)
    _, nodes = expected_state(lines, report)
    assert len(nodes) == 1
    node_id, node = next(iter(nodes.items()))
    dep.start()
    try:
        dep.wait_idle(expect_events=1)
        publish_command(
            {"command": "reinforce", "command_id": "cmd-1", "tenant_id": "t-cmd", "owner_id": "u1",
             "scope": "personal", "node_id": node_id, "issued_at": "2024-02-02T10:00:00Z",
             "actor": {"actor_id": "assistant-1", "actor_type": "AI_AGENT"}},
            dep.bootstrap,
            dep.topics.commands,
        )
        deadline = time.monotonic() + 30
        index = dep.index()
        while time.monotonic() < deadline:
            docs = index.get([node_id])
            if docs and docs[0].version > node["version"]:
                break
            time.sleep(0.3)
        else:
            raise AssertionError("reinforcement never reached OpenSearch\n" + dep.log_tail())
    finally:
        dep.stop()
    assert docs[0].confidence >= node["confidence"]
