"""The eager delivery path keeps faust's ``wait_first`` semantics while skipping its tasks."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

import pytest
from mode import Service

from streams.eager_delivery import EagerWaitFirst, install, resume


class FlowConsumer(Service):
    """The parts of a faust consumer the delivery loop uses: a mode Service with ``suspend_flow``."""

    def __init__(self) -> None:
        super().__init__()
        self.suspend_flow = asyncio.Event()


async def _eager(consumer: FlowConsumer) -> EagerWaitFirst:
    eager = install(consumer)
    assert isinstance(eager, EagerWaitFirst)
    return eager


def test_a_delivery_that_never_waits_runs_inline_and_creates_no_task() -> None:
    async def main() -> None:
        consumer = FlowConsumer()
        eager = await _eager(consumer)
        delivered: list[str] = []

        async def deliver(value: str) -> str:
            delivered.append(value)
            return value.upper()

        tasks_before = len(asyncio.all_tasks())
        flow_wait = consumer.suspend_flow.wait()
        result = await consumer.wait_first(deliver("a"), flow_wait)
        # the unused suspend_flow.wait() is closed, not leaked ("coroutine was never awaited")
        assert inspect.getcoroutinestate(flow_wait) == inspect.CORO_CLOSED
        assert delivered == ["a"]
        assert result.results == ["A"] and not result.stopped
        assert (eager.eager, eager.deferred) == (1, 0)
        assert len(asyncio.all_tasks()) == tasks_before

    asyncio.run(main())


def test_a_delivery_that_waits_is_resumed_and_sees_the_values_it_awaited() -> None:
    async def main() -> None:
        consumer = FlowConsumer()
        eager = await _eager(consumer)
        room: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        steps: list[str] = []

        async def deliver() -> int:
            steps.append("start")
            got = await room  # back-pressure: the stream's queue is full
            steps.append("resumed")
            await asyncio.sleep(0)  # a bare yield as well
            return got + 1

        waiting = asyncio.ensure_future(consumer.wait_first(deliver(), consumer.suspend_flow.wait()))
        await asyncio.sleep(0.01)
        assert steps == ["start"] and not waiting.done()
        room.set_result(41)
        result = await asyncio.wait_for(waiting, 5)
        assert steps == ["start", "resumed"]
        assert result.results == [42]
        assert (eager.eager, eager.deferred) == (0, 1)

    asyncio.run(main())


def test_flow_suspension_still_interrupts_a_blocked_delivery() -> None:
    async def main() -> None:
        consumer = FlowConsumer()
        await _eager(consumer)
        never: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        seen: list[str] = []

        async def deliver() -> None:
            try:
                await never
            except asyncio.CancelledError:
                seen.append("cancelled")
                raise

        waiting = asyncio.ensure_future(consumer.wait_first(deliver(), consumer.suspend_flow.wait()))
        await asyncio.sleep(0.01)
        consumer.suspend_flow.set()  # a rebalance starts
        result = await asyncio.wait_for(waiting, 5)
        await asyncio.sleep(0)
        assert result.results == [True]  # the suspension won, as in faust's own wait_first
        assert seen == ["cancelled"]  # the abandoned delivery was cancelled, not left running

    asyncio.run(main())


def test_errors_propagate_whether_raised_before_or_after_waiting() -> None:
    async def main() -> None:
        consumer = FlowConsumer()
        await _eager(consumer)

        async def fails_at_once() -> None:
            raise ValueError("inline")

        async def fails_later() -> None:
            await asyncio.sleep(0.001)
            raise KeyError("later")

        with pytest.raises(ValueError, match="inline"):
            await consumer.wait_first(fails_at_once(), consumer.suspend_flow.wait())
        with pytest.raises(KeyError, match="later"):
            await consumer.wait_first(fails_later(), consumer.suspend_flow.wait())

    asyncio.run(main())


def test_the_eager_path_is_skipped_while_flow_is_suspended_or_for_other_calls() -> None:
    async def main() -> None:
        consumer = FlowConsumer()
        eager = await _eager(consumer)

        async def deliver() -> str:
            return "x"

        consumer.suspend_flow.set()
        await consumer.wait_first(deliver(), consumer.suspend_flow.wait())
        consumer.suspend_flow.clear()
        await consumer.wait_first(deliver(), timeout=1.0)  # not the delivery loop's call shape
        assert eager.eager == 0

    asyncio.run(main())


def test_resume_forwards_cancellation_into_the_coroutine() -> None:
    async def main() -> None:
        gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        seen: list[str] = []

        async def body() -> str:
            try:
                await gate
            except asyncio.CancelledError:
                seen.append("cancelled")
                return "cleaned up"
            return "finished"

        coro = body()
        yielded = coro.send(None)
        task = asyncio.ensure_future(resume(coro, yielded))
        await asyncio.sleep(0)
        task.cancel()
        assert await task == "cleaned up"  # the coroutine chose to swallow it, as it may in a task
        assert seen == ["cancelled"]

    asyncio.run(main())


def test_install_is_idempotent_and_leaves_unknown_consumers_alone() -> None:
    async def main() -> None:
        consumer = FlowConsumer()
        first = install(consumer)
        assert install(consumer) is first

        class Other:
            async def wait_first(self, *coros: Any, timeout: Any = None) -> None:
                return None

        other = Other()
        assert install(other) is None
        assert not isinstance(other.wait_first, EagerWaitFirst)

    asyncio.run(main())


def test_the_worker_app_delivers_eagerly(tmp_path: Path) -> None:
    from schemas.settings import Settings
    from streams.faust_app import create_app

    app = create_app(Settings(data_dir=tmp_path), data_dir=tmp_path, opensearch_url="http://127.0.0.1:1")
    assert isinstance(app.consumer.wait_first, EagerWaitFirst)
