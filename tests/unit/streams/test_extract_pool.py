"""Extraction in spawned processes gives exactly the in-process results, in input order."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from datetime import UTC, datetime
from pathlib import Path

import pytest

from extractors.base import get_extractor
from schemas.events import ConversationEvent
from schemas.settings import Settings
from streams import agents
from streams.extract_pool import ExtractionPool

DATA = Path(__file__).resolve().parents[2] / "data" / "extraction_labelled.jsonl"


def _events(n: int) -> list[ConversationEvent]:
    rows = [json.loads(line)["event"] for line in DATA.open()][:n]
    out = []
    for i, row in enumerate(rows):
        raw = json.dumps({**row, "event_id": f"pool-{i}"}).encode()
        admitted = agents.admit(raw, source="t", received_at=datetime(2026, 1, 1, tzinfo=UTC))
        assert not isinstance(admitted, agents.Rejected)
        out.append(admitted)
    return out


def test_results_equal_the_in_process_extractor_and_keep_input_order() -> None:
    events = _events(120)
    extractor = get_extractor("rules")
    expected = [agents.extract(extractor, e).model_dump(mode="json") for e in events]
    assert sum(len(r["claims"]) for r in expected) > 50  # the sample really extracts claims

    pool = ExtractionPool("rules", Settings(), processes=2)
    try:
        pool.warm_up()
        got = asyncio.run(pool.extract(events))
        odd = asyncio.run(pool.extract(events[:7]))  # a batch that does not split evenly
        assert asyncio.run(pool.extract([])) == []
    finally:
        pool.close()
    assert [r.model_dump(mode="json") for r in got] == expected
    assert [r.model_dump(mode="json") for r in odd] == expected[:7]


def test_a_dead_extraction_process_fails_the_batch_instead_of_losing_it() -> None:
    pool = ExtractionPool("rules", Settings(), processes=1)
    try:
        pool.warm_up()
        for pid in list(pool._pool._processes):  # the only way to reach the child's pid
            os.kill(pid, signal.SIGKILL)
        with pytest.raises(BrokenProcessPool):
            asyncio.run(pool.extract(_events(3)))
    finally:
        pool.close()


def test_pool_processes_collect_garbage_in_the_pipeline_s_larger_batches() -> None:
    import gc

    from streams.runtime import GC_YOUNG_THRESHOLD

    pool = ExtractionPool("rules", Settings(), processes=1)
    try:
        pool.warm_up()
        threshold = pool._pool.submit(gc.get_threshold).result()
    finally:
        pool.close()
    assert threshold[0] == GC_YOUNG_THRESHOLD


def test_a_pool_needs_a_process() -> None:
    with pytest.raises(ValueError, match="at least one process"):
        ExtractionPool("rules", Settings(), processes=0)


def test_pool_processes_exit_when_the_worker_is_killed(tmp_path: Path) -> None:
    """A SIGKILLed worker must not leave its extraction processes behind (one more per restart)."""
    script = tmp_path / "worker.py"
    script.write_text(
        "import time\n"
        "from schemas.settings import Settings\n"
        "from streams.extract_pool import ExtractionPool\n"
        "if __name__ == '__main__':\n"
        "    pool = ExtractionPool('rules', Settings(), processes=2)\n"
        "    pool.warm_up()\n"
        "    print(' '.join(str(pid) for pid in pool._pool._processes), flush=True)\n"
        "    time.sleep(120)\n"
    )
    root = Path(__file__).resolve().parents[3]
    worker = subprocess.Popen(
        [sys.executable, str(script)], cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, stdout=subprocess.PIPE
    )
    try:
        assert worker.stdout is not None
        children = [int(pid) for pid in worker.stdout.readline().split()]
        assert len(children) == 2 and all(_alive(pid) for pid in children)
    finally:
        worker.kill()
        worker.wait()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in children)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"  # a zombie has exited; only its parent (init here) has not reaped it yet
