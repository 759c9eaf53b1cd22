"""End-to-end throughput and publish-to-retrievable latency of the faust pipeline.

For each worker count (1 and 2 by default) two fresh runs (new topics, group and index; workers
already running before the first event):

* **capacity**: events published faster than the workers can take them (``--capacity-rate``); the
  figure is events / (first publish -> every topic fully consumed and committed by the group), i.e.
  operations, raw events and journals in ClickHouse and node documents in OpenSearch. A run must be
  long (default 16,000 events): the pipeline's fill and drain (commit interval, index window, the
  watcher's lag polls: ``tail_s``) cost a few seconds whatever the run length, which on a 3,000-event
  run is a third of the time and made capacity look like 300-400/s;
* **latency**: events published at ``--rate`` (the target, 500/s); p50/p95 publish-to-retrievable
  latency of a sample of events: the publisher's acknowledgement to the event's first node being
  returned by an OpenSearch *search* (which sees a document only after the index refreshed, as an
  assistant's retrieval does). ``readable_*`` is the earlier moment a realtime get by id returns it,
  and ``hops_p50_p95_s`` splits the path by stage. The watcher polls every ``--poll-s``; its
  realtime gets make OpenSearch refresh its internal reader, and with the ids searches they cost
  the search node ~0.1-0.25 ms of CPU per indexed document at 20 polls/s (measured beside a bulk
  load), so ``--readable-every N`` probes them on every Nth poll only (0: never). Latency means
  something only at a rate the workers sustain; above capacity it measures the backlog.

Workers run the rule extractor and the deterministic hash embedder (``--embedder hash``): the
figure is the pipeline's, not an embedding model's. ``worker_cpu_ms_per_event`` (user + system
CPU of the worker processes and their extraction processes / events) is printed too, because
events/s on this shared 2-core box moves with whatever else runs (``load_avg_1m``).
``EPISTREAM_PROFILE=/tmp/w.prof`` makes each worker write a cProfile (event-loop thread CPU) on
exit; py-spy (``py-spy record --pid``) distorts less.

A throwaway warm-up run comes first (``--warmup-events``): the services are JVMs and measure far
slower for their first minutes after a start.

``--index-workers N`` runs the index sink in N processes of its own (``--role index``) beside
the workers, which then run ``--role core``; their CPU is counted in ``worker_cpu_ms_per_event``.

Run:  deploy/local/services up && .venv/bin/python bench/stream_throughput.py [--events 16000]
      [--rate 500] [--capacity-rate 1000] [--workers 1,2] [--phases capacity,latency]
      [--warmup-events 6000] [--worker-option within_s=0.1 ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.reducer import Reducer  # noqa: E402
from engine.store import InMemoryStateStore  # noqa: E402
from extractors.base import get_extractor  # noqa: E402
from sinks.embedding import HashEmbedder  # noqa: E402
from sinks.opensearch_index import OpenSearchIndex  # noqa: E402
from sinks.opensearch_mapping import DEFAULT_REFRESH_INTERVAL  # noqa: E402
from streams import agents  # noqa: E402
from streams import topics as tn  # noqa: E402
from streams.faust_app import consumer_lag  # noqa: E402
from streams.publisher import EventPublisher  # noqa: E402


def make_events(n: int) -> list[bytes]:
    base = [json.loads(line)["event"] for line in (ROOT / "tests/data/extraction_labelled.jsonl").open()]
    out = []
    for i in range(n):
        ev = dict(base[i % len(base)])
        ev["event_id"] = f"b-{i}"
        ev["owner_id"] = f"{ev['owner_id']}-{i % 64}"
        ev["received_at"] = datetime.now(UTC).isoformat()
        out.append(json.dumps(ev).encode())
    return out


def first_nodes(lines: list[bytes]) -> dict[int, str]:
    """Index of event -> id of the first node it creates (embedded path, same rules)."""
    ex, red, store = get_extractor("rules"), Reducer(), InMemoryStateStore()
    out: dict[int, str] = {}
    for i, raw in enumerate(lines):
        ev = agents.admit(raw, source="bench", received_at=datetime.now(UTC))
        assert not isinstance(ev, agents.Rejected)
        res = agents.materialize(store, red, agents.extract(ex, ev))
        nodes = agents.latest_nodes(res.operations)
        if nodes:
            out[i] = nodes[0].node_id
    return out


def run(n_events: int, rate: float, workers: int, bootstrap: str, os_url: str, partitions: int,
        latency_dump: Path | None = None, worker_options: tuple[str, ...] = (),
        refresh_interval: str = DEFAULT_REFRESH_INTERVAL, keep_data: bool = False,
        poll_s: float = 0.05, readable_every: int = 1, index_workers: int = 0) -> dict[str, Any]:
    tag = uuid.uuid4().hex[:8]
    prefix = f"bench-{tag}-"
    topics = tn.Topics(prefix=prefix, partitions=partitions)
    tn.ensure_topics(bootstrap, topics)
    alias = f"bench-{tag}-nodes"
    app_id = "app"
    group = prefix + app_id  # the workers' group carries the topic prefix (WorkerOptions.group_id)
    tmp = Path(tempfile.mkdtemp(prefix="epistream-bench-"))
    # Created here, before the workers (which would create it with the default refresh interval).
    index = OpenSearchIndex(os_url, alias, HashEmbedder(), refresh_interval=refresh_interval)
    procs = []
    # With index workers the workers run the core agents and the index sink runs in processes of its
    # own (``--role index``); the index stage consumes in <group>-index whatever the roles.
    roles = [("core" if index_workers else "all", f"w{w}") for w in range(workers)]
    roles += [("index", f"i{w}") for w in range(index_workers)]
    for role, name in roles:
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "streams.faust_app", "worker", "--app-id", app_id, "--prefix", prefix,
                 "--partitions", str(partitions), "--bootstrap", bootstrap, "--data-dir", str(tmp / name),
                 "--opensearch-url", os_url, "--index", alias, "--embedder", "hash", "--session-timeout", "6",
                 "--role", role, *(arg for option in worker_options for arg in ("--option", option))],
                cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                stdout=(tmp / f"{name}.log").open("wb"), stderr=subprocess.STDOUT,
            )
        )

    def lag() -> int:
        total = sum(consumer_lag(bootstrap, group, core_names).values())
        return total + sum(consumer_lag(bootstrap, group + "-index", [topics.nodes]).values())

    lines = make_events(n_events)
    targets = first_nodes(lines)
    names = [topics.events, topics.extractions, topics.nodes, *topics.dlqs]
    core_names = [n for n in names if n != topics.nodes]
    # warm up: wait for the group to form (a probe event must come through)
    warm = make_events(1)[0].replace(b'"b-0"', b'"warm"')
    asyncio.run(_publish([warm], bootstrap, topics.events, rate))
    deadline = time.monotonic() + 120
    while lag() or not _committed(bootstrap, group, topics.events):
        if time.monotonic() > deadline:
            raise SystemExit("workers did not start; see " + str(tmp))
        time.sleep(0.5)
    cpu0 = sum(_cpu_s(p.pid) for p in procs)
    services_cpu0 = {name: _cpu_s(pid) for name, pid in _service_pids().items()}
    own_cpu0 = time.process_time()
    sample = {i: targets[i] for i in list(targets)[:: max(1, len(targets) // 200)]}
    seen: dict[int, float] = {}  # searchable (what retrieval can return)
    readable: dict[int, float] = {}  # readable by id (realtime get)
    publishing = threading.Event()
    publishing.set()

    def searchable_ids(ids: list[str]) -> set[str]:
        # A search sees a document only after the shard refreshed (refresh_interval): the moment an
        # assistant's retrieval can return it. A realtime get sees it as soon as it is written.
        body = {"query": {"ids": {"values": ids}}, "_source": False, "size": len(ids)}
        hits = index.client.search(index=alias, body=body)["hits"]["hits"]
        return {h["_id"] for h in hits}

    def watch() -> None:
        # Polls while the publisher runs: a node that became visible early is seen early,
        # so latency below capacity is not inflated by the length of the publishing phase.
        polls = 0
        while time.monotonic() - t0 < 300:
            pending = [i for i in sample if i not in seen]
            polls += 1
            if pending:
                probe = readable_every > 0 and polls % readable_every == 0
                unread = [i for i in pending if i not in readable] if probe else []
                found_read = {n.node_id for n in index.get([sample[i] for i in unread])} if unread else set()
                found = searchable_ids([sample[i] for i in pending])
                now = time.monotonic()
                for i in unread:
                    if sample[i] in found_read or sample[i] in found:
                        readable[i] = now
                for i in pending:
                    if sample[i] in found:
                        seen[i] = now
                        readable.setdefault(i, now)
            if not pending and not publishing.is_set() and lag() == 0:
                return
            time.sleep(poll_s)

    t0 = time.monotonic()
    wall_offset = time.time() - t0  # Kafka record timestamps are wall clock (ms)
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    acked = asyncio.run(_publish(lines, bootstrap, topics.events, rate))
    publish_s = time.monotonic() - t0
    publishing.clear()
    watcher.join()
    total_s = time.monotonic() - t0
    cpu_s = sum(_cpu_s(p.pid) for p in procs) - cpu0
    services_cpu_s = {name: _cpu_s(pid) - services_cpu0[name] for name, pid in _service_pids().items()
                      if name in services_cpu0}
    own_cpu_s = time.process_time() - own_cpu0
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait(60)
    lat = sorted(seen[i] - acked[i] for i in seen)
    read_lat = sorted(readable[i] - acked[i] for i in readable)
    hops = _hops(bootstrap, topics, {i: sample[i] for i in seen}, acked, readable, seen, wall_offset)
    if not keep_data:
        _drop_run_data(bootstrap, prefix, index, alias)
        shutil.rmtree(tmp, ignore_errors=True)
    if latency_dump is not None:  # (publish time since start, latency) per sampled event: where the slow ones are
        latency_dump.write_text(json.dumps(sorted((acked[i] - t0, seen[i] - acked[i]) for i in seen)))
    return {
        "workers": workers,
        "index_workers": index_workers,
        "events": n_events,
        "partitions": partitions,
        "target_rate": rate,
        "publish_s": round(publish_s, 2),
        "end_to_end_s": round(total_s, 2),
        "events_per_s": round(n_events / total_s, 1),
        # after the last acknowledgement: the drain of the backlog plus the fixed fill/drain cost
        "tail_s": round(total_s - publish_s, 2),
        "latency_p50_s": round(statistics.median(lat), 3) if lat else None,
        "latency_p95_s": round(lat[int(0.95 * (len(lat) - 1))], 3) if lat else None,
        "latency_samples": len(lat),
        # the same events readable by id (realtime get), before the refresh makes them searchable
        "readable_p50_s": round(statistics.median(read_lat), 3) if read_lat else None,
        "readable_p95_s": round(read_lat[int(0.95 * (len(read_lat) - 1))], 3) if read_lat else None,
        # p50/p95 of each stage for the sampled events, from the Kafka record timestamps: where the
        # latency is spent (publish -> extraction record -> node record -> readable in OpenSearch).
        "hops_p50_p95_s": hops,
        # CPU the workers used per event: the figure that does not depend on what else the box runs.
        "worker_cpu_ms_per_event": round(1000 * cpu_s / n_events, 2),
        # The publisher and the watcher (OpenSearch gets, lag queries) share the box with the workers.
        "bench_cpu_ms_per_event": round(1000 * own_cpu_s / n_events, 2),
        # The broker and the search node run on the same two cores: where the rest of the box went.
        **{f"{name}_cpu_ms_per_event": round(1000 * v / n_events, 2) for name, v in services_cpu_s.items()},
        "embedder": "hash",
        "extractor": "rules",
        "load_avg_1m": round(os.getloadavg()[0], 2),
        **({"worker_options": list(worker_options)} if worker_options else {}),
    }


def _hops(bootstrap: str, topics: tn.Topics, nodes: dict[int, str], acked: dict[int, float],
          readable: dict[int, float], seen: dict[int, float], wall_offset: float) -> dict[str, list[float]]:
    """Per-stage latency of the sampled events from the record timestamps of the topics in between."""
    event_index = {f"b-{i}": i for i in nodes}
    node_index = {node_id: i for i, node_id in nodes.items()}
    extracted: dict[int, float] = {}
    materialized: dict[int, float] = {}

    async def scan() -> None:
        from aiokafka import AIOKafkaConsumer, TopicPartition

        consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
        await consumer.start()
        try:
            for topic, on_record in ((topics.extractions, on_extraction), (topics.nodes, on_node)):
                parts = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic) or ()]
                if not parts:
                    parts = [TopicPartition(topic, p) for p in range(topics.partitions)]
                consumer.assign(parts)
                await consumer.seek_to_beginning(*parts)
                end = await consumer.end_offsets(parts)
                while any([await consumer.position(tp) < end[tp] for tp in parts]):
                    for records in (await consumer.getmany(timeout_ms=1000)).values():
                        for r in records:
                            on_record(r.value or b"", r.timestamp / 1000 - wall_offset)
        finally:
            await consumer.stop()

    def on_extraction(raw: bytes, at: float) -> None:
        for result in json.loads(raw).get("results", []):
            i = event_index.get(result["event"]["event_id"])
            if i is not None:
                extracted.setdefault(i, at)

    def on_node(raw: bytes, at: float) -> None:
        i = node_index.get(json.loads(raw).get("node_id", ""))
        if i is not None:
            materialized.setdefault(i, at)

    asyncio.run(scan())

    def p50_p95(values: list[float]) -> list[float]:
        values = sorted(values)
        return [round(statistics.median(values), 3), round(values[int(0.95 * (len(values) - 1))], 3)] if values else []

    staged = [i for i in nodes if i in extracted and i in materialized]
    both = [i for i in staged if i in readable]  # none when the realtime-get probe is off
    return {
        "publish_to_extracted": p50_p95([extracted[i] - acked[i] for i in staged]),
        "extracted_to_node_record": p50_p95([materialized[i] - extracted[i] for i in staged]),
        "node_record_to_readable": p50_p95([readable[i] - materialized[i] for i in both]),
        "readable_to_searchable": p50_p95([seen[i] - readable[i] for i in both]),
    }


def _drop_run_data(bootstrap: str, prefix: str, index: OpenSearchIndex, alias: str) -> None:
    """Delete the run's topics (faust's internal ones included) and node index.

    Left behind, every run adds ~80 partitions to the broker and an index to the search node, and
    the services measured slower the longer a session of benchmark runs went on.
    """
    from aiokafka.admin import AIOKafkaAdminClient

    async def drop_topics() -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
        await admin.start()
        try:
            names = [t for t in await admin.list_topics() if t.startswith(prefix)]
            if names:
                await admin.delete_topics(names)
        finally:
            await admin.close()

    asyncio.run(drop_topics())
    index.client.indices.delete(index=f"{alias}-v*", params={"ignore_unavailable": "true", "expand_wildcards": "all"})
    if index.client.indices.exists_index_template(name=f"{alias}-template"):
        index.client.indices.delete_index_template(name=f"{alias}-template")


def _service_pids() -> dict[str, int]:
    """Kafka and OpenSearch as started by ``deploy/local/services`` (none when run elsewhere)."""
    out: dict[str, int] = {}
    for name in ("kafka", "opensearch"):
        try:
            out[name] = int((ROOT / "build" / "services" / "pids" / f"{name}.pid").read_text().strip())
        except (OSError, ValueError):
            continue
    return out


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads) and of its live child processes
    (the worker's extraction processes), from /proc."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # exited meanwhile
        if int(entry.name) == pid or int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _committed(bootstrap: str, group: str, topic: str) -> bool:
    lag = consumer_lag(bootstrap, group, [topic])
    return lag[topic] == 0


async def _publish(lines: list[bytes], bootstrap: str, topic: str, rate: float) -> dict[int, float]:
    """Publish at ``rate`` events/s in 50 ms ticks; returns each event's acknowledgement time."""
    acked: dict[int, float] = {}
    async with EventPublisher(bootstrap, topic) as pub:
        per_tick = max(1, int(rate * 0.05))
        start = time.monotonic()
        futures = []
        for k in range(0, len(lines), per_tick):
            for i in range(k, min(k + per_tick, len(lines))):
                fut = await pub.send(lines[i])
                fut.add_done_callback(lambda _f, i=i: acked.__setitem__(i, time.monotonic()))
                futures.append(fut)
            wait = start + (k // per_tick + 1) * 0.05 - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
        await asyncio.gather(*futures)
    return acked


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=16000)
    ap.add_argument("--rate", type=float, default=500.0, help="publish rate of the latency phase (events/s)")
    ap.add_argument("--capacity-rate", type=float, default=1000.0,
                    help="publish rate of the capacity phase: above what the workers can take")
    ap.add_argument("--partitions", type=int, default=12)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--index-workers", type=int, default=0,
                    help="extra processes that run only the index sink (the workers then run --role core)")
    ap.add_argument("--phases", default="capacity,latency")
    ap.add_argument("--warmup-events", type=int, default=6000,
                    help="first push this many events through a throwaway 1-worker run (0: none); see below")
    ap.add_argument("--latency-dump", type=Path, help="write (publish time, latency) of each sampled event as JSON")
    ap.add_argument("--worker-option", action="append", default=[], metavar="NAME=VALUE",
                    help="passed to each worker as --option (WorkerOptions windows and sizes)")
    ap.add_argument("--keep-data", action="store_true",
                    help="keep each run's topics, node index and worker logs (deleted by default)")
    ap.add_argument("--refresh-interval", default=DEFAULT_REFRESH_INTERVAL,
                    help="the node index's refresh_interval: how soon a written document becomes searchable")
    ap.add_argument("--poll-s", type=float, default=0.05, help="how often the watcher searches for the sampled events")
    ap.add_argument("--readable-every", type=int, default=1,
                    help="probe realtime gets on every Nth poll (0: never)")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "deploy" / "local"))
    import services  # type: ignore[import-not-found]

    services.ensure_up()
    rates = {"capacity": args.capacity_rate, "latency": args.rate}
    if args.warmup_events:
        # Kafka and OpenSearch are JVMs: for their first minutes after a start (JIT, caches) they
        # answer slower, and the worker, waiting on them, gets smaller batches and spends more CPU
        # per event. Measured here: 380-430 events/s and p95 over 10 s right after a restart, against
        # 540-640 and under 2 s once warm. Production services run warm, so the figures below do too.
        figures = run(args.warmup_events, args.capacity_rate, 1, services.kafka_bootstrap(),
                      services.opensearch_url(), args.partitions, None, tuple(args.worker_option),
                      args.refresh_interval, args.keep_data, args.poll_s, args.readable_every)
        print(json.dumps({"phase": "warmup (not a result)", **figures}), flush=True)
    for w in (int(x) for x in args.workers.split(",")):
        for phase in args.phases.split(","):
            figures = run(args.events, rates[phase], w, services.kafka_bootstrap(), services.opensearch_url(),
                          args.partitions, args.latency_dump, tuple(args.worker_option), args.refresh_interval,
                          args.keep_data, args.poll_s, args.readable_every, args.index_workers)
            print(json.dumps({"phase": phase, **figures}), flush=True)


if __name__ == "__main__":
    main()
