"""Per-owner reads of a long-lived owner: provenance, world context and assertion state.

One owner gets ``--messages`` corpus messages (thousands of operations). Printed, as p50 over
``--repeat`` calls each:

* provenance of sampled nodes as ``EmbeddedRunner.provenance`` reads it (only the operations that
  name the node), against the baseline in the same process: ``get_provenance`` over the owner's
  whole log, which is what it read before;
* world context and assertion state of an embedded runner (in-memory state) and of a runner in
  distributed mode, which reads them from the operation log (node snapshots + edge members), as
  an API beside stream workers does;
* with ``--others`` messages of 200 other owners in the same store: how long finding the owner's
  nodes and edges takes through the store's owner index, against the baseline in the same
  process, a scan of every node and edge (what the embedded runner did before).

chDB in-process; no services needed.

    .venv/bin/python bench/owner_reads.py [--messages 3000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from extraction_throughput import corpus

from engine.provenance import get_provenance
from epistream.runner import EmbeddedRunner
from schemas.settings import Settings
from sinks.clickhouse import OperationLog
from sinks.embedding import HashEmbedder

OWNER = "heavy"


def p50_ms(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--others", type=int, default=20_000, help="messages of 200 other owners in the same store")
    args = ap.parse_args()
    lines = []
    for i, event in enumerate(corpus(args.messages)):
        event = event.model_copy(update={"owner_id": OWNER, "occurred_at": event.occurred_at + timedelta(seconds=i)})
        lines.append(event.model_dump_json().encode())
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        log = OperationLog.connect(None, path=root, database="owner_reads")
        embedded = EmbeddedRunner(root / "e", Settings(data_dir=root / "e"), embedder=HashEmbedder(), log=log)
        embedded.ingest_lines(lines, source="bench")
        others = []
        for i, event in enumerate(corpus(args.others)):
            event = event.model_copy(update={"owner_id": f"other-{i % 200}", "event_id": f"other-{i}"})
            others.append(event.model_dump_json().encode())
        embedded.ingest_lines(others, source="bench")
        distributed = EmbeddedRunner(
            root / "d", Settings(data_dir=root / "d", api_mode="distributed"), embedder=HashEmbedder(), log=log
        )
        store = embedded.store
        nodes = [n for n in store.iter_nodes() if n.owner_id == OWNER]
        tenant = nodes[0].tenant_id
        sample = nodes[:: max(1, len(nodes) // 5)][:5]
        who = {"tenant_id": tenant, "owner_id": OWNER}

        def narrowed() -> None:
            for node in sample:
                embedded.provenance(node.node_id, **who)

        def whole_log() -> None:
            for node in sample:
                ops = log.read_operations(tenant=tenant, owner=OWNER)
                events = [e.model_dump(mode="json") for e in log.get_events(list(node.evidence_refs), tenant, OWNER)]
                get_provenance(node.node_id, OWNER, events, ops, tenant_id=tenant)

        probe = nodes[0]
        state = {**who, "subject": probe.subject, "predicate": probe.predicate, "valid_at": probe.valid_from}
        print(f"owner: {args.messages} messages, {len(nodes):,} nodes; the store: {len(store):,} nodes of 201 owners, "
              f"{log.count('operations'):,} operations")

        def scan() -> None:
            [n for n in store.iter_nodes() if n.tenant_id == tenant and n.owner_id == OWNER]
            [e for e in store.iter_edges() if e.tenant_id == tenant and e.owner_id == OWNER]

        indexed = p50_ms(lambda: (store.owner_nodes(tenant, OWNER), store.owner_edges(tenant, OWNER)), args.repeat)
        scanned = p50_ms(scan, args.repeat)
        print(f"owner's nodes + edges:      {indexed:8.2f} ms by owner index (scan of the store {scanned:,.1f} ms)")
        prov = p50_ms(narrowed, args.repeat) / len(sample)
        base = p50_ms(whole_log, args.repeat) / len(sample)
        print(f"provenance per node:        {prov:8.1f} ms (whole-log baseline {base:,.1f} ms, x{base / prov:,.0f})")
        for name, runner in (("embedded", embedded), ("distributed", distributed)):
            world = p50_ms(lambda r=runner: r.world(**who), args.repeat)
            assertion = p50_ms(lambda r=runner: r.assertion(**state), args.repeat)
            print(f"{name + ':':12s} world context {world:8.1f} ms, assertion state {assertion:8.1f} ms")
        distributed.close()
        embedded.close()
        log.close()


if __name__ == "__main__":
    main()
