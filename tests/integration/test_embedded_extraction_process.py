"""The embedded runner's rule extraction in a process of its own, a micro-batch ahead of the reducer.

It must change nothing but speed: the same log, memory and report as extracting in-process,
repeated events (within and across micro-batches) still counted once, and an extractor passed in
or set later is never bypassed.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from epistream.runner import EmbeddedRunner
from extractors.base import get_extractor

pytestmark = pytest.mark.integration

TEXTS = ("I live in Porto.", "I drink oat milk.", "I use Neovim at work.", "I moved to Lisbon.",
         "I no longer drink oat milk.", "If it rains I take the bus.", "Maybe I will learn Rust.")  # fmt: skip


def lines(n: int) -> list[bytes]:
    out = []
    for i in range(n):
        out.append(json.dumps({
            "event_id": f"e-{i}", "tenant_id": "t", "owner_id": f"u{i % 5}", "scope": "personal", "role": "user",
            "content": TEXTS[i % len(TEXTS)], "occurred_at": f"2026-09-01T10:{i // 60 % 60:02d}:{i % 60:02d}Z",
        }).encode())  # fmt: skip
    return out


@pytest.fixture
def make_runner(embedded_runners: Any) -> Any:
    def make(name: str, processes: int) -> EmbeddedRunner:
        return embedded_runners(name, batch_size=50, extract_processes=processes)  # type: ignore[no-any-return]

    return make


def _ready(runner: EmbeddedRunner) -> Any:
    """Start the runner's extraction process and wait for it (a second or two to spawn)."""
    deadline = time.monotonic() + 60
    while (pool := runner._extraction_pool()) is None:
        assert time.monotonic() < deadline, "the extraction process did not start"
        time.sleep(0.1)
    return pool


def test_extraction_in_a_process_stores_what_in_process_extraction_stores(make_runner: Any) -> None:
    events = lines(400)
    events += events[120:180]  # repeated events, in later micro-batches than their first copies
    events.insert(30, events[10])  # and one repeated within a micro-batch
    here = make_runner("here", processes=0)
    there = make_runner("there", processes=1)
    pool = _ready(there)
    submitted: list[int] = []
    submit = pool.submit
    pool.submit = lambda evs: (submitted.append(len(evs)), submit(evs))[1]  # count the batches sent there

    a, b = here.ingest_lines(events), there.ingest_lines(events)
    assert here._pool is None  # 0 processes: extracted in-process
    assert sum(submitted) == len(events) and len(submitted) >= 9  # every micro-batch went to the process
    assert a.as_dict() == b.as_dict()
    assert a.duplicates == 61 and a.events == 400
    for table in ("operations", "node_snapshots", "raw_events", "extraction_journal"):
        assert here.log.count(table) == there.log.count(table), table
    assert sorted((o.op_id, o.checksum) for o in here.log.iter_operations()) == sorted(
        (o.op_id, o.checksum) for o in there.log.iter_operations()
    )
    assert sorted(n.model_dump_json() for n in here.store.iter_nodes()) == sorted(
        n.model_dump_json() for n in there.store.iter_nodes()
    )
    assert there.verify_replay() == []


def test_an_extractor_set_on_the_runner_is_used_even_with_a_process_running(make_runner: Any) -> None:
    runner = make_runner("custom", processes=1)
    _ready(runner)
    rules = get_extractor("rules")
    seen: list[str] = []

    class Recording:
        name, version = rules.name, rules.version

        def extract(self, event: Any) -> Any:
            seen.append(event.event_id)
            return rules.extract(event)

    runner.extractor = Recording()  # type: ignore[assignment]
    report = runner.ingest_lines(lines(120))
    assert report.events == 120 and sorted(seen) == sorted(f"e-{i}" for i in range(120))


def test_beside_a_model_that_uses_every_core_extraction_stays_in_process(embedded_runners: Any) -> None:
    """The model is then the bottleneck; a second interpreter would only take CPU from it."""
    from sinks.embedding import HashEmbedder

    class BusyModel(HashEmbedder):
        uses_all_cores = True

    busy = embedded_runners("busy", batch_size=50, extract_processes=1, embedder=BusyModel())
    light = embedded_runners("light", batch_size=50, extract_processes=1)
    assert busy._extraction_pool() is None and busy._pool is None  # never even started
    assert _ready(light) is not None  # the same settings with a light embedder do use the process
    report = busy.ingest_lines(lines(200))
    assert report.events == 200 and busy._pool is None
