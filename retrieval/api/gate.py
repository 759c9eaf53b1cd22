"""Serialises every call into the (not thread-safe) runner and bounds how long a caller waits.

One worker thread owns the runner for the app's lifetime: the event loop never
blocks on chDB or the index, and no two calls interleave inside the runner. A
call that exceeds the timeout answers 503; it still finishes in the worker, so
state stays consistent.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from schemas.errors import BackendUnavailable, EpistreamError
from streams.embedded import EmbeddedRunner

T = TypeVar("T")


class RunnerGate:
    def __init__(self, runner: EmbeddedRunner, timeout_s: float) -> None:
        self.runner = runner
        self.timeout_s = timeout_s
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="epistream-runner")

    async def call(self, fn: Callable[..., T], *args: Any, timeout_s: float | None = None, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._executor, functools.partial(fn, *args, **kwargs))
        try:
            return await asyncio.wait_for(future, timeout_s or self.timeout_s)
        except TimeoutError:
            raise BackendUnavailable("backend call timed out", reason="timeout") from None
        except EpistreamError:
            raise
        except (OSError, RuntimeError) as exc:
            raise BackendUnavailable("backend call failed", reason=type(exc).__name__) from None

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
