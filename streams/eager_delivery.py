"""Hand each fetched record to its stream without four asyncio tasks per record.

faust's consumer delivers every record with ``wait_first(callback(message), suspend_flow.wait())``:
it wraps the delivery, the flow-suspension wait and the consumer's stopped/crashed waits in four
tasks, waits for the first, and cancels the rest. Delivery almost always finishes at once (the
stream's queue has room), so on this 2-core box that bookkeeping was the single largest item of a
worker's event loop: ~40 k tasks created for 4 k events.

:func:`install` gives one consumer a ``wait_first`` that first runs the delivery coroutine eagerly
(one ``send``, no task), which is exactly what the loop would do first anyway. When that
completes, nothing else could have won the race: no other coroutine ran in between, and flow
suspension, stop and crash are checked before trying. When the delivery has to wait (queue full,
back-pressure), the started coroutine is resumed inside a task and faust's own ``wait_first``
takes over, so suspension, stop and crash still interrupt a blocked delivery as before. Every other
``wait_first`` call goes straight to faust's.
"""

from __future__ import annotations

import asyncio
import inspect
import types
from collections.abc import Coroutine, Generator
from typing import Any

from mode.services import WaitResults


async def resume(coro: Coroutine[Any, Any, Any], yielded: Any) -> Any:
    """Finish a coroutine already started by ``send(None)`` that yielded ``yielded``.

    Does for it what an asyncio task does: waits for the future it yielded (or one loop turn for a
    bare ``yield``), resumes it, and forwards cancellation and errors into it.
    """
    while True:
        try:
            if yielded is None:
                await asyncio.sleep(0)
            else:
                await _wait_for(yielded)
        except BaseException as exc:  # cancellation of this task included: the coroutine decides
            try:
                yielded = coro.throw(exc)
            except StopIteration as stop:
                return stop.value
            continue
        try:
            yielded = coro.send(None)
        except StopIteration as stop:
            return stop.value


@types.coroutine
def _wait_for(future: Any) -> Generator[Any, None, None]:
    """Await the future the inner coroutine yielded, without taking its result (the inner one does)."""
    if not future.done():
        yield future


class EagerWaitFirst:
    """A consumer's ``wait_first`` with an eager path for record delivery."""

    def __init__(self, consumer: Any) -> None:
        self._consumer = consumer
        self._fallback = consumer.wait_first
        self.eager = 0  # deliveries that finished without a task (for tests and diagnostics)
        self.deferred = 0

    async def __call__(self, *coros: Any, timeout: Any = None) -> Any:
        consumer = self._consumer
        if (
            len(coros) != 2
            or timeout is not None
            or not inspect.iscoroutine(coros[0])
            or consumer.suspend_flow.is_set()
            or consumer._stopped.is_set()
            or consumer._crashed.is_set()
        ):
            return await self._fallback(*coros, timeout=timeout)
        delivery, other = coros
        try:
            yielded = delivery.send(None)
        except StopIteration as stop:
            _close(other)
            self.eager += 1
            return _results(delivery, stop.value)
        except BaseException:
            _close(other)
            raise
        self.deferred += 1
        return await self._fallback(resume(delivery, yielded), other)


def _close(awaitable: Any) -> None:
    if inspect.iscoroutine(awaitable):
        awaitable.close()  # never started: closing it only silences "never awaited"


def _results(winner: Any, value: Any) -> WaitResults:
    return WaitResults([winner], [value], False)


#: What the eager path reads on the consumer (faust-streaming 0.15's Consumer, a mode Service).
_NEEDS = ("wait_first", "suspend_flow", "_stopped", "_crashed")


def install(consumer: Any) -> EagerWaitFirst | None:
    """Give ``consumer`` (a faust transport consumer) the eager delivery path; idempotent.

    A consumer without the attributes the eager path reads (another faust version) keeps its own
    ``wait_first``: slower, never wrong.
    """
    if not all(hasattr(consumer, name) for name in _NEEDS):
        return None
    current = consumer.wait_first
    if isinstance(current, EagerWaitFirst):
        return current
    eager = EagerWaitFirst(consumer)
    consumer.wait_first = eager
    return eager
