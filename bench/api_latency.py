"""Latency of POST /v1/retrieve under concurrent clients, over real HTTP, on the embedded backend.

Builds a corpus of N memory nodes for one tenant (events through the real
pipeline: rule extractor, reducer, chDB log, embedded index), serves the app
with uvicorn on a free local port, then runs C concurrent clients issuing
retrievals for a fixed duration and prints p50/p95/p99 and throughput.

    .venv/bin/python bench/api_latency.py [--nodes 10000 --nodes 100000] [--clients 16] [--requests 2000]
        [--embedder hash|minilm] [--owners 4]

Two runs per corpus: closed loop (latency at saturation, where p95 is about clients x CPU per
request / cores) and paced at ``--paced`` x the saturation rate (latency of a server that keeps up).
Target (issue 6): p95 <= 50 ms at 100k nodes. ``--mode mixed`` measures retrievals with one request in
four a write beside them against read-only rounds (target: p95 <= 2x); ``--mode garbage`` measures them
while 16 clients send garbage bearer tokens to a server whose keys are scrypt-hashed.
Writes are serialised on one runner thread; retrievals run on ``--readers`` threads concurrently with each other, so the
figure includes queueing behind the other clients for the GIL and the cores. The
clients are raw keep-alive sockets in a separate process (see ``load``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import random
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

with contextlib.suppress(ImportError):
    import onnxruntime  # noqa: F401  (must load before usearch; see sinks/embedded_index.py)

import uvicorn

from epistream.api import ApiKey, ApiKeyRing, Permission, create_app, hash_key_scrypt, hash_key_sha256
from epistream.api.gate import DEFAULT_READERS
from epistream.runner import EmbeddedRunner
from schemas.events import validate_event
from schemas.settings import Settings
from sinks.embedding import default_embedder
from streams.runtime import freeze_loaded_heap, tune_gc_for_throughput

T0 = datetime(2025, 1, 1, tzinfo=UTC)
TEMPLATES = (
    "I like {w}.",
    "I use {w} at work.",
    "I have a {w}.",
    "I drink {w}.",
    "I play {w}.",
    "I speak {w}.",
    "I live in {W}.",
    "My favorite color is {w}.",
    "Maybe I will learn {W}.",
    "If it rains, I will visit {W}.",
)
SYLLABLES = ("ka", "lo", "mi", "ren", "to", "sa", "vi", "nor", "bel", "qua", "zen", "dri", "po", "lum")


def word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def build_corpus(runner: EmbeddedRunner, nodes: int, owners: int, seed: int) -> float:
    rng = random.Random(seed)
    start = time.perf_counter()
    batch = []
    for i in range(nodes):
        w = word(rng)
        text = rng.choice(TEMPLATES).format(w=w, W=w.capitalize())
        batch.append(validate_event({
            "event_id": f"bench-{i}", "tenant_id": "bench", "owner_id": f"o{i % owners}", "scope": "personal",
            "role": "user", "content": text, "occurred_at": (T0 + timedelta(seconds=i)).isoformat(),
        }))
        if len(batch) >= 2000:
            runner.ingest_events(batch)
            batch = []
    if batch:
        runner.ingest_events(batch)
    return time.perf_counter() - start


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _post(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: bytes, body: bytes
                ) -> tuple[int, bytes]:
    """One keep-alive HTTP/1.1 exchange; the server always answers with a Content-Length."""
    writer.write(head + str(len(body)).encode() + b"\r\n\r\n" + body)
    status_line = await reader.readline()
    status = int(status_line.split(b" ", 2)[1])
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return status, await reader.readexactly(length)


async def load(host: str, port: int, token: str, clients: int, requests: int, owners: int, seed: int,
               rate: float = 0.0, write_every: int = 0) -> list[float]:
    """Clients over raw keep-alive sockets: closed loop (``rate`` 0) or paced at ``rate`` requests/s.

    Closed loop, each client sends its next request as soon as the last one returns, so the figure is
    the latency at saturation (about clients x CPU per request / cores). Paced, requests are due at a
    fixed rate spread over the same connections and latency counts from the time a request was due,
    so time spent waiting for a free connection is included (no coordinated omission).

    A full HTTP client (httpx) costs about as much CPU per request as the server's HTTP layer; on a
    2-core machine that CPU comes out of the server's share and inflates the very latency being measured.
    """
    rng = random.Random(seed)
    queries = [" ".join(word(rng) for _ in range(rng.randint(1, 3))) + " " + rng.choice(["like", "use", "live", ""])
               for _ in range(512)]
    latencies: list[float] = []
    counter = iter(range(requests))
    head = (f"POST /v1/retrieve HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\nContent-Length: ").encode()
    write_head = head.replace(b"/v1/retrieve", b"/v1/events")

    async def worker(n: int) -> None:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            for i in counter:
                writing = write_every > 0 and i % write_every == write_every - 1
                if writing:  # one new message, as a chat platform posts them
                    w = word(rng)
                    body = json.dumps({"event_id": f"mix-{seed}-{i}", "owner_id": f"o{i % owners}", "scope": "personal",
                                       "role": "user", "content": f"I like {w} and I use {word(rng)}.",
                                       "occurred_at": (T0 + timedelta(seconds=i)).isoformat()}).encode()
                else:
                    body = json.dumps({"query": queries[(i * 7 + n) % len(queries)], "owner_id": f"o{i % owners}",
                                       "limit": 10, "token_budget": 1024}).encode()
                t = time.perf_counter()
                if rate > 0:
                    due = started + i / rate
                    if due > t:
                        await asyncio.sleep(due - t)
                    t = due
                status, payload = await _post(reader, writer, write_head if writing else head, body)
                if not writing:  # the figure is the retrievals' latency; writes are the load beside them
                    latencies.append(time.perf_counter() - t)
                if status != 200:
                    raise RuntimeError(f"{'events' if writing else 'retrieve'} failed: {status} {payload[:200]!r}")
                if i == 0 and "items" not in json.loads(payload):
                    raise RuntimeError("retrieve answered without items")
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker(n) for n in range(clients)))
    return latencies


def run_load(host: str, port: int, token: str, clients: int, requests: int, owners: int, seed: int,
             rate: float = 0.0, write_every: int = 0) -> list[float]:
    with contextlib.suppress(ImportError):
        import uvloop

        return uvloop.run(load(host, port, token, clients, requests, owners, seed, rate, write_every))
    return asyncio.run(load(host, port, token, clients, requests, owners, seed, rate, write_every))


async def flood(host: str, port: int, clients: int, seconds: float) -> int:
    """Garbage bearer tokens from ``clients`` connections for ``seconds`` (answers 401, then 429)."""
    head = (f"POST /v1/retrieve HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer garbage-%d\r\n"
            "Content-Type: application/json\r\nContent-Length: ")
    body = b'{"query": "x", "owner_id": "o0"}'
    sent = 0
    stop = time.perf_counter() + seconds

    async def worker(n: int) -> None:
        nonlocal sent
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while time.perf_counter() < stop:
                status, _ = await _post(reader, writer, (head % (n * 1_000_000 + sent)).encode(), body)
                if status not in (401, 429):
                    raise RuntimeError(f"a garbage token was answered {status}")
                sent += 1
        finally:
            writer.close()

    await asyncio.gather(*(worker(n) for n in range(clients)))
    return sent


def run_flood(host: str, port: int, clients: int, seconds: float) -> int:
    return asyncio.run(flood(host, port, clients, seconds))


def quantiles(latencies: list[float]) -> tuple[float, float]:
    """(p50, p95) in milliseconds."""
    q = statistics.quantiles(sorted(x * 1000 for x in latencies), n=100)
    return q[49], q[94]


def run_mixed(runner: EmbeddedRunner, settings: Settings, args: argparse.Namespace) -> None:
    """Retrievals paced at a fixed rate, read-only and with 1 request in ``--write-every`` a new event.

    Rounds alternate (read-only, mixed, read-only, ...) so both see the same machine; the figure is
    the retrievals' p95 with writes over their read-only p95, per round pair and pooled.
    """
    token = "bench-writer"
    ring = ApiKeyRing([ApiKey(id="bench-w", tenant_id="bench", sha256=hash_key_sha256(token),
                              permissions=frozenset({Permission.READ, Permission.WRITE}))])
    with serving(runner, settings, ring, args.readers) as port, ProcessPoolExecutor(
        max_workers=1, mp_context=multiprocessing.get_context("spawn")
    ) as pool:
        pool.submit(run_load, "127.0.0.1", port, token, args.clients, 200, args.owners, args.seed).result()
        pooled: dict[str, list[float]] = {"read": [], "mixed": []}
        for round_ in range(args.rounds):
            for kind in ("read", "mixed"):
                every = args.write_every if kind == "mixed" else 0
                lat = pool.submit(run_load, "127.0.0.1", port, token, args.clients, args.requests, args.owners,
                                  args.seed + 10 * round_ + (kind == "mixed"), args.rate, every).result()
                pooled[kind] += lat
                p50, p95 = quantiles(lat)
                writes = f", 1 in {every} a write" if every else ""
                print(f"  round {round_ + 1} {kind:5}: retrieve p50={p50:.1f} ms p95={p95:.1f} ms "
                      f"({len(lat)} retrievals at {args.rate:.0f} req/s{writes})")
        (r50, r95), (m50, m95) = quantiles(pooled["read"]), quantiles(pooled["mixed"])
        print(f"mixed 1-in-{args.write_every} writes: retrieve p95 {m95:.1f} ms vs read-only {r95:.1f} ms = "
              f"{m95 / r95:.2f}x (target <= 2x); p50 {m50:.1f} vs {r50:.1f} ms")


def run_garbage(runner: EmbeddedRunner, settings: Settings, args: argparse.Namespace) -> None:
    """Valid retrievals (paced) with and without garbage-token clients, against a scrypt-keyed ring."""
    token = "bench-scrypt"
    ring = ApiKeyRing([ApiKey(id="bench-s", tenant_id="bench", scrypt=hash_key_scrypt(token),
                              permissions=frozenset({Permission.READ}))])
    ctx = multiprocessing.get_context("spawn")
    with serving(runner, settings, ring, args.readers) as port, ProcessPoolExecutor(max_workers=2,
                                                                                   mp_context=ctx) as pool:
        pool.submit(run_load, "127.0.0.1", port, token, args.clients, 200, args.owners, args.seed).result()
        quiet = pool.submit(run_load, "127.0.0.1", port, token, args.clients, args.requests, args.owners,
                            args.seed + 1, args.rate).result()
        duration = args.requests / args.rate + 5
        flooding = pool.submit(run_flood, "127.0.0.1", port, 16, duration)
        time.sleep(1.0)
        noisy = pool.submit(run_load, "127.0.0.1", port, token, args.clients, args.requests, args.owners,
                            args.seed + 2, args.rate).result()
        garbage = flooding.result()
        (q50, q95), (n50, n95) = quantiles(quiet), quantiles(noisy)
        print(f"garbage tokens ({garbage} sent by 16 clients, scrypt-hashed keys): retrieve p50={n50:.1f} ms "
              f"p95={n95:.1f} ms vs quiet p50={q50:.1f} ms p95={q95:.1f} ms = {n95 / q95:.2f}x")


@contextlib.contextmanager
def serving(runner: EmbeddedRunner, settings: Settings, ring: ApiKeyRing, readers: int) -> Iterator[int]:
    app = create_app(runner, api_keys=ring, settings=settings, readers=readers)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def run(nodes: int, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="epistream-bench-") as tmp:
        settings = Settings(data_dir=Path(tmp), embedder=args.embedder, extractor="rules",
                            api_rate_limit_per_s=0.0, batch_size=2000)
        runner = EmbeddedRunner(Path(tmp), settings, embedder=default_embedder(
            {"hash": "hash", "minilm": "minilm"}[args.embedder]))
        try:
            took = build_corpus(runner, nodes, args.owners, args.seed)
            count = sum(1 for _ in runner.store.iter_nodes())
            freeze_loaded_heap()  # as ``epistream api`` does once its runner has loaded
            if args.mode != "read":
                print(f"nodes={count} (built in {took:.1f}s) clients={args.clients} embedder={args.embedder}")
                (run_mixed if args.mode == "mixed" else run_garbage)(runner, settings, args)
                return
            token = "bench-token"
            ring = ApiKeyRing([ApiKey(id="bench", tenant_id="bench", permissions=frozenset({Permission.READ}),
                                      sha256=hash_key_sha256(token))])
            app = create_app(runner, api_keys=ring, settings=settings, readers=args.readers)
            port = free_port()
            # "auto" picks httptools and uvloop when installed; no access log, as in ``epistream api``.
            server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                                   access_log=False))
            thread = threading.Thread(target=server.run, daemon=True)
            thread.start()
            while not server.started:
                time.sleep(0.05)
            # The clients run in another process so they do not compete with the server for the GIL.
            ctx = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
                pool.submit(run_load, "127.0.0.1", port, token, args.clients, min(200, args.requests), args.owners,
                            args.seed + 1).result()  # warm-up
                start, cpu_start = time.perf_counter(), time.process_time()
                lat = pool.submit(run_load, "127.0.0.1", port, token, args.clients, args.requests, args.owners,
                                  args.seed + 2).result()
                wall = time.perf_counter() - start
                # Server CPU per request: unlike latency, barely moved by other load on the machine.
                cpu_ms = (time.process_time() - cpu_start) * 1000 / max(1, args.requests)
                saturation = len(lat) / wall
                paced_rate = args.paced * saturation
                paced: list[float] = []
                if paced_rate > 0:
                    paced = pool.submit(run_load, "127.0.0.1", port, token, args.clients, args.requests, args.owners,
                                        args.seed + 3, paced_rate).result()
            server.should_exit = True
            thread.join(timeout=10)
        finally:
            runner.close()
    ms = sorted(x * 1000 for x in lat)
    q = statistics.quantiles(ms, n=100)
    print(
        f"nodes={count:>7} (target {nodes}, built in {took:.1f}s) clients={args.clients} requests={len(ms)} "
        f"embedder={args.embedder} readers={args.readers} | p50={q[49]:.1f} ms p95={q[94]:.1f} ms p99={q[98]:.1f} ms "
        f"max={ms[-1]:.1f} ms | {len(ms) / wall:.0f} req/s | server CPU {cpu_ms:.1f} ms/req  [closed loop: saturation]"
    )
    if paced:
        pm = sorted(x * 1000 for x in paced)
        pq = statistics.quantiles(pm, n=100)
        print(
            f"nodes={count:>7} clients={args.clients} requests={len(pm)} paced at {paced_rate:.0f} req/s "
            f"({args.paced:.0%} of saturation) | p50={pq[49]:.1f} ms p95={pq[94]:.1f} ms p99={pq[98]:.1f} ms "
            f"max={pm[-1]:.1f} ms  [open loop: latency from the time each request was due]"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, action="append", help="corpus size(s); default 10000")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--owners", type=int, default=4)
    parser.add_argument("--embedder", choices=("hash", "minilm"), default="hash")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--paced", type=float, default=0.5,
                        help="then a paced run at this fraction of the measured saturation rate (0: skip)")
    parser.add_argument("--readers", type=int, default=DEFAULT_READERS,
                        help="server reader threads (0: every call on the single runner thread)")
    parser.add_argument("--mode", choices=("read", "mixed", "garbage"), default="read",
                        help="read: closed loop then paced; mixed: paced retrievals with writes beside them vs "
                        "read-only (alternating rounds); garbage: paced retrievals with 16 garbage-token clients "
                        "vs without (scrypt-hashed keys)")
    parser.add_argument("--rate", type=float, default=40.0, help="requests/s of the mixed and garbage runs")
    parser.add_argument("--write-every", type=int, default=4, help="mixed: one request in N is a POST /v1/events")
    parser.add_argument("--rounds", type=int, default=3, help="mixed: read-only/mixed round pairs")
    args = parser.parse_args()
    tune_gc_for_throughput()  # as ``epistream api`` runs
    for n in args.nodes or [10_000]:
        run(n, args)


if __name__ == "__main__":
    main()
