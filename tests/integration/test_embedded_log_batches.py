"""The embedded runner gathers log rows across micro-batches (``log_batch_rows``) and stores the same log.

Gathering only changes how rows are grouped into chDB inserts: the operations, snapshots, raw events
and journals, and the index, must be exactly those of one write per micro-batch; an ingest leaves
nothing unwritten, even when a later batch fails.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from epistream.runner import EmbeddedRunner
from extractors.base import get_extractor
from sinks.clickhouse import OperationLog

pytestmark = pytest.mark.integration

SUBJECTS = ("Porto", "Neovim", "oat milk", "Lisbon", "tea", "Rust")


def lines(n: int) -> list[bytes]:
    out = []
    for i in range(n):
        thing = SUBJECTS[i % len(SUBJECTS)]
        text = f"I like {thing}." if i % 5 else f"I no longer like {SUBJECTS[(i + 1) % len(SUBJECTS)]}."
        out.append(json.dumps({
            "event_id": f"e-{i}", "tenant_id": "t", "owner_id": f"u{i % 7}", "scope": "personal", "role": "user",
            "content": text, "occurred_at": f"2026-09-01T10:{i // 60 % 60:02d}:{i % 60:02d}Z",
        }).encode())  # fmt: skip
    return out


class CountingLog(OperationLog):
    """The real chDB log, counting the inserts it is asked for."""

    calls: dict[str, int]

    def write_operations(self, ops: Any) -> int:
        self.calls["operations"] = self.calls.get("operations", 0) + 1
        return super().write_operations(ops)

    def write_events(self, events: Any, **kw: Any) -> int:
        self.calls["events"] = self.calls.get("events", 0) + 1
        return super().write_events(events, **kw)


@pytest.fixture
def make_runner(embedded_runners: Any) -> Any:
    def make(name: str, **settings: Any) -> EmbeddedRunner:
        runner = embedded_runners(name, log_class=CountingLog, batch_size=64, **settings)
        runner.log.calls = {}
        return runner  # type: ignore[no-any-return]

    return make


def stored(runner: EmbeddedRunner) -> dict[str, Any]:
    log = runner.log
    return {
        "operations": sorted((op.op_id, op.checksum) for op in log.iter_operations()),
        "snapshots": sorted((n.node_id, n.version) for n in log.latest_node_snapshots()),
        "counts": {t: log.count(t) for t in ("operations", "raw_events", "extraction_journal", "node_snapshots")},
        "nodes": sorted(n.model_dump_json() for n in runner.store.iter_nodes()),
    }


def test_gathered_writes_store_what_per_batch_writes_store(make_runner: Any) -> None:
    events = lines(700)  # 11 micro-batches of 64 (the first is 64 too)
    per_batch = make_runner("per_batch", log_batch_rows=1)
    gathered = make_runner("gathered", log_batch_rows=100_000)
    a = per_batch.ingest_lines(events)
    b = gathered.ingest_lines(events)
    assert a.as_dict() == b.as_dict() and a.operations > len(events)
    assert per_batch.log.calls["operations"] >= 11  # type: ignore[attr-defined]
    assert gathered.log.calls == {"operations": 1, "events": 1}  # type: ignore[attr-defined]
    assert stored(per_batch) == stored(gathered)
    assert stored(gathered)["counts"]["raw_events"] == len(events)
    for runner in (per_batch, gathered):
        assert runner.verify_replay() == []  # memory is exactly the fold of the log
    # and the index holds every node, at the version memory holds, in both
    ids = sorted(n.node_id for n in gathered.store.iter_nodes())
    for runner in (per_batch, gathered):
        indexed = sorted(n.model_dump_json() for n in runner.index.get(ids))
        assert indexed == stored(runner)["nodes"]


def test_rows_are_written_when_enough_have_gathered(make_runner: Any) -> None:
    runner = make_runner("some", log_batch_rows=1000)  # a micro-batch of 64 events makes ~300 rows
    runner.ingest_lines(lines(700))
    calls = runner.log.calls  # type: ignore[attr-defined]
    assert 2 <= calls["events"] <= 5, calls  # several of the 11 micro-batches per insert, and the rest at the end
    assert stored(runner)["counts"]["raw_events"] == 700


def test_an_interrupted_ingest_still_writes_what_it_reduced(make_runner: Any) -> None:
    runner = make_runner("fails", log_batch_rows=100_000)
    rules = get_extractor("rules")

    class BreaksOnEvent300:
        name, version = rules.name, rules.version

        def extract(self, event: Any) -> Any:
            if event.event_id == "e-300":
                raise KeyboardInterrupt  # an operator's Ctrl-C: not an extractor error the runner journals
            return rules.extract(event)

    runner.extractor = BreaksOnEvent300()  # type: ignore[assignment]
    with pytest.raises(KeyboardInterrupt):
        runner.ingest_lines(lines(700))
    # The four micro-batches of 64 reduced before the interrupted one are in the log, nothing after.
    assert stored(runner)["counts"]["raw_events"] == 256
    assert runner.verify_replay() == []  # the log holds exactly what memory holds
