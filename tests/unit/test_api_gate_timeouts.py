"""The gate's timeout bounds waiting, never working: a started write is answered with its outcome."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from epistream.api.gate import RunnerGate
from schemas.errors import BackendUnavailable


def _gate(timeout_s: float = 0.2) -> RunnerGate:
    return RunnerGate(runner=None, timeout_s=timeout_s)  # type: ignore[arg-type]  # the gate never calls it


def test_a_write_that_started_is_answered_with_its_result_after_the_timeout() -> None:
    gate = _gate(timeout_s=0.1)

    def slow_write() -> str:
        time.sleep(0.4)
        return "written"

    try:
        assert asyncio.run(gate.write(slow_write)) == "written"
    finally:
        gate.shutdown()


def test_a_write_still_queued_at_its_timeout_is_refused_and_never_runs() -> None:
    gate = _gate(timeout_s=0.15)
    ran: list[str] = []
    release = threading.Event()

    def first() -> None:
        release.wait(2)
        ran.append("first")

    def second() -> None:
        ran.append("second")

    async def scenario() -> None:
        one = asyncio.create_task(gate.write(first))
        await asyncio.sleep(0.02)
        with pytest.raises(BackendUnavailable) as refused:
            await gate.write(second)
        assert refused.value.details.get("reason") == "timeout"
        release.set()
        await one

    try:
        asyncio.run(scenario())
        time.sleep(0.05)
        assert ran == ["first"]  # the refused write did nothing, so a retry with its key does it
    finally:
        gate.shutdown()


def test_reads_go_on_while_a_write_prepares_and_wait_only_for_its_commit() -> None:
    gate = _gate(timeout_s=2.0)
    preparing = threading.Event()
    finish_prepare = threading.Event()
    order: list[str] = []

    def prepare() -> str:
        preparing.set()
        finish_prepare.wait(2)
        order.append("prepared")
        return "batch"

    def commit(prepared: str) -> str:
        order.append(f"committed {prepared}")
        return "done"

    def read() -> str:
        order.append("read")
        return "seen"

    async def scenario() -> Any:
        write = asyncio.create_task(gate.write_phased(prepare, commit))
        while not preparing.is_set():
            await asyncio.sleep(0.005)
        assert await gate.read(read) == "seen"  # not held back by the preparing write
        finish_prepare.set()
        return await write

    try:
        assert asyncio.run(scenario()) == "done"
        assert order == ["read", "prepared", "committed batch"]
    finally:
        gate.shutdown()


def test_a_failing_write_reports_its_own_error() -> None:
    gate = _gate()

    def broken() -> None:
        raise OSError("disk gone")

    try:
        with pytest.raises(BackendUnavailable) as failed:
            asyncio.run(gate.write(broken))
        assert failed.value.details.get("reason") == "OSError"
    finally:
        gate.shutdown()
