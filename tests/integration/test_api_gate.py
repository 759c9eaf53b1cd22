"""The runner gate: reads overlap each other, writes exclude them only while they change what reads see,
timeouts answer 503."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from test_api_support import T0, open_runner, settings_for

from epistream.api.batching import EventWrites
from epistream.api.gate import RunnerGate
from epistream.runner import EmbeddedRunner
from schemas.enums import Role, Scope
from schemas.errors import BackendUnavailable
from schemas.events import ConversationEvent
from schemas.retrieval import RetrievalRequest, RetrievalResponse


@pytest.fixture(scope="module")
def runner(chdb_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRunner]:
    data = tmp_path_factory.mktemp("gate")
    with open_runner(chdb_path, data, settings_for(data)) as r:
        yield r


def test_reads_run_concurrently(runner: EmbeddedRunner) -> None:
    gate = RunnerGate(runner, timeout_s=10, readers=2)
    barrier = threading.Barrier(2, timeout=5)

    def read(n: int) -> int:
        barrier.wait()  # only passes when both reads are inside the runner at once
        return n

    async def main() -> list[int]:
        return list(await asyncio.gather(gate.read(read, 1), gate.read(read, 2)))

    try:
        assert asyncio.run(main()) == [1, 2]
    finally:
        gate.shutdown()


def test_a_write_excludes_reads(runner: EmbeddedRunner) -> None:
    gate = RunnerGate(runner, timeout_s=10, readers=2)
    log: list[str] = []
    lock = threading.Lock()
    write_started = threading.Event()

    def note(what: str) -> None:
        with lock:
            log.append(what)

    def write() -> None:
        note("write-start")
        write_started.set()
        time.sleep(0.2)
        note("write-end")

    def read() -> None:
        note("read")

    async def main() -> None:
        w = asyncio.ensure_future(gate.call(write))
        await asyncio.to_thread(write_started.wait, 5)
        await asyncio.gather(*(gate.read(read) for _ in range(4)))
        await w

    try:
        asyncio.run(main())
    finally:
        gate.shutdown()
    assert log[:2] == ["write-start", "write-end"]
    assert log[2:] == ["read"] * 4


def test_a_read_that_trips_on_a_shared_cache_is_rerun_alone(runner: EmbeddedRunner) -> None:
    gate = RunnerGate(runner, timeout_s=10, readers=2)
    calls: list[int] = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) == 1:
            raise KeyError("evicted by another reader")
        return "ok"

    def broken() -> str:
        raise KeyError("a real bug")

    async def main() -> str:
        return await gate.read(flaky)

    try:
        assert asyncio.run(main()) == "ok"
        assert len(calls) == 2
        with pytest.raises(KeyError):
            asyncio.run(gate.read(broken))
    finally:
        gate.shutdown()


def test_a_read_queued_past_its_timeout_answers_503_and_never_runs(runner: EmbeddedRunner) -> None:
    gate = RunnerGate(runner, timeout_s=10, readers=2)
    ran: list[str] = []
    release = threading.Event()
    writing = threading.Event()

    def slow_write() -> None:
        writing.set()
        release.wait(5)

    def read() -> None:
        ran.append("read")

    async def main() -> None:
        w = asyncio.ensure_future(gate.call(slow_write))
        # The write must hold the gate before the read queues (a fixed sleep lost that race under load).
        assert await asyncio.to_thread(writing.wait, 5)
        with pytest.raises(BackendUnavailable):
            await gate.read(read, timeout_s=0.1)
        release.set()
        await w
        # The abandoned read is dropped; later reads still run.
        await gate.read(ran.append, "later")

    try:
        asyncio.run(main())
    finally:
        gate.shutdown()
    assert ran == ["later"]


@pytest.mark.parametrize(("stage", "searchable"), [("log insert", False), ("index save", True)])
def test_reads_go_on_while_a_write_inserts_into_the_log_or_saves_the_index(
    runner: EmbeddedRunner, stage: str, searchable: bool
) -> None:
    """The log's inserts are most of a small write's time, and saving the index writes its node map and
    vectors whole; reads wait only for the store change and for making the write searchable. Held in
    its operations insert, the write is not searchable yet (the index is written only after the log
    holds it); held in the index save, it already is. Either way a retrieval answers meanwhile."""
    gate = RunnerGate(runner, timeout_s=10, readers=2)
    writes = EventWrites(runner, gate)
    reached, release = threading.Event(), threading.Event()
    target, name = (runner.log, "write_operations") if stage == "log insert" else (runner.index, "commit")
    real = getattr(target, name)

    def held(*args: Any, **kwargs: Any) -> Any:
        if stage == "log insert" or kwargs.get("durable", True):
            reached.set()
            release.wait(10)
        return real(*args, **kwargs)

    n = 1 if searchable else 2
    event = ConversationEvent(
        tenant_id="t-gate", owner_id=f"o-gate-{n}", scope=Scope.PERSONAL, event_id=f"gate-{n}", role=Role.USER,
        content="I love kayaking on the lake", occurred_at=T0 + timedelta(minutes=5),
    )  # fmt: skip
    request = RetrievalRequest(query="kayaking", tenant_id="t-gate", owner_id=f"o-gate-{n}")

    def claims(response: RetrievalResponse) -> list[str]:
        return [i.predicate for i in response.items if i.kind == "claim" and "kayak" in i.content.lower()]

    async def main() -> tuple[RetrievalResponse, RetrievalResponse]:
        write = asyncio.ensure_future(writes.ingest([(0, event)], []))
        try:
            assert await asyncio.to_thread(reached.wait, 10), f"the write never reached its {stage}"
            during = await asyncio.wait_for(gate.read(runner.retrieve, request), 5)  # not behind the write
        finally:
            release.set()
        results, claimed, _ops = await write
        assert results[0].status == "accepted" and claimed == 1
        return during, await gate.read(runner.retrieve, request)

    setattr(target, name, held)
    try:
        during, after = asyncio.run(main())
    finally:
        delattr(target, name)
        gate.shutdown()
    assert claims(during) == (["likes"] if searchable else [])
    assert claims(after) == ["likes"]
