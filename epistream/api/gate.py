"""Admits calls into the (not thread-safe for writes) runner and bounds how long a caller waits.

Writes (ingestion, commands, anything touching chDB) run one at a time on one
writer thread and exclude every other call. Reads that only touch the
in-memory state store and the index (retrieval, node lookups, world context)
run on a small reader pool concurrently with each other: the runner's read
path does not mutate shared state once a write has committed its index
(``ingest_events`` and ``submit`` both end with ``index.commit()``), and
tantivy and numpy release the GIL for much of a retrieval, so two readers on
two cores overlap.

The timeout bounds waiting, not working. A call still queued when it runs out
answers 503 and never starts (so the 503 is true: nothing was done, a retry
does it). A write that has started is awaited to its end, however long: a
write that completed is never answered with a timeout. A write may do its
pure part (admission, extraction) before taking the exclusive lock, so reads
go on beside it and only the short state change excludes them. An event write excludes them
even less: only while it reduces into the state store and while it writes and commits the
indexes (``write_section``); its log inserts run on the writer's side with reads beside them.
Every chDB call of the runner's log stays on the writer's side, one at a time.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from epistream.runner import EmbeddedRunner
from schemas.errors import BackendUnavailable, EpistreamError

T = TypeVar("T")
P = TypeVar("P")

#: Reader threads: two cores are the common deployment; more only add GIL contention.
DEFAULT_READERS = 2


class ReadWriteLock:
    """Many readers or one writer; a waiting writer holds back new readers (no writer starvation)."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._writer = False
        self._writers_waiting = 0

    def acquire_read(self) -> None:
        with self._cond:
            while self._writer or self._writers_waiting:
                self._cond.wait()
            self._readers += 1

    def release_read(self) -> None:
        with self._cond:
            self._readers -= 1
            if self._readers == 0:
                self._cond.notify_all()

    def acquire_write(self) -> None:
        with self._cond:
            self._writers_waiting += 1
            try:
                while self._writer or self._readers:
                    self._cond.wait()
            finally:
                self._writers_waiting -= 1
            self._writer = True

    def release_write(self) -> None:
        with self._cond:
            self._writer = False
            self._cond.notify_all()


class _Abandoned(Exception):
    """A read whose caller already gave up before it started."""


class RunnerGate:
    def __init__(self, runner: EmbeddedRunner, timeout_s: float, *, readers: int = DEFAULT_READERS) -> None:
        self.runner = runner
        self.timeout_s = timeout_s
        self._lock = ReadWriteLock()
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="epistream-runner")
        self._readers = (
            ThreadPoolExecutor(max_workers=readers, thread_name_prefix="epistream-reader") if readers > 0 else None
        )

    def _exclusive(self, fn: Callable[[], T]) -> T:
        with self.write_section():
            return fn()

    def _shared(self, fn: Callable[[], T], abandoned: threading.Event) -> T:
        if abandoned.is_set():
            raise _Abandoned
        self._lock.acquire_read()
        try:
            if abandoned.is_set():
                raise _Abandoned
            try:
                return fn()
            except (EpistreamError, OSError):
                raise
            except Exception:
                # A read racing another read on a lazily filled cache inside the runner; reads have no side
                # effects, so run it again alone. A genuine bug raises again, exclusively.
                pass
        finally:
            self._lock.release_read()
        return self._exclusive(fn)

    @contextmanager
    def write_section(self) -> Iterator[None]:
        """Exclude reads for a block of a write running on the writer's side (``ingest_events``'s
        ``section``): the write's other parts, such as its log inserts, run beside reads."""
        self._lock.acquire_write()
        try:
            yield
        finally:
            self._lock.release_write()

    def on_writer(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the writer thread and wait for it (from a thread of one's own): between
        two writes, so it never shares the runner's chDB client with one."""
        return self._writer.submit(fn).result()

    async def _run(self, executor: ThreadPoolExecutor, job: Callable[[], T], timeout_s: float | None,
                   abandoned: threading.Event | None = None) -> T:
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(executor, job)
        try:
            return await asyncio.wait_for(future, timeout_s or self.timeout_s)
        except TimeoutError:
            if abandoned is not None:
                abandoned.set()
            raise BackendUnavailable("backend call timed out", reason="timeout") from None
        except EpistreamError:
            raise
        except (OSError, RuntimeError) as exc:
            raise BackendUnavailable("backend call failed", reason=type(exc).__name__) from None

    async def call(self, fn: Callable[..., T], *args: Any, timeout_s: float | None = None, **kwargs: Any) -> T:
        """Run ``fn`` alone and bounded by the timeout: for reads that touch chDB."""
        return await self._run(self._writer, functools.partial(self._exclusive, functools.partial(fn, *args, **kwargs)),
                               timeout_s)

    def submit(self, job: Callable[[], None]) -> None:
        """Queue ``job`` on the writer thread (it excludes reads itself where it must, see ``write_section``)."""
        self._writer.submit(job)

    async def write(self, fn: Callable[..., T], *args: Any, timeout_s: float | None = None, **kwargs: Any) -> T:
        """Run the write ``fn`` alone; the timeout only bounds the wait for it to start."""
        return await self.write_phased(lambda: None, lambda _prepared: fn(*args, **kwargs), timeout_s=timeout_s)

    async def write_phased(
        self, prepare: Callable[[], P], commit: Callable[[P], T], *, timeout_s: float | None = None
    ) -> T:
        """``prepare()`` on the writer thread beside reads, then ``commit(prepared)`` alone.

        ``prepare`` must not touch shared state (admission and extraction are pure). Writes stay
        in order: both phases run on the one writer thread.
        """
        handshake = threading.Lock()  # start and give-up decided atomically: never both
        state = {"started": False, "abandoned": False}

        def job() -> T:
            with handshake:
                if state["abandoned"]:
                    raise _Abandoned
                state["started"] = True
            prepared = prepare()
            return self._exclusive(lambda: commit(prepared))

        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._writer, job)
        try:
            try:
                return await asyncio.wait_for(asyncio.shield(future), timeout_s or self.timeout_s)
            except TimeoutError:
                with handshake:
                    state["abandoned"] = not state["started"]
                if state["abandoned"]:
                    raise _Abandoned from None
                return await future  # started: its outcome is the answer, never a timeout
        except _Abandoned:
            raise BackendUnavailable("backend call timed out before it started", reason="timeout") from None
        except EpistreamError:
            raise
        except (OSError, RuntimeError) as exc:
            raise BackendUnavailable("backend call failed", reason=type(exc).__name__) from None

    async def read(self, fn: Callable[..., T], *args: Any, timeout_s: float | None = None, **kwargs: Any) -> T:
        """Run ``fn`` alongside other reads: only for calls that read the state store and the index."""
        if self._readers is None:
            return await self.call(fn, *args, timeout_s=timeout_s, **kwargs)
        abandoned = threading.Event()
        job = functools.partial(self._shared, functools.partial(fn, *args, **kwargs), abandoned)
        return await self._run(self._readers, job, timeout_s, abandoned)

    def shutdown(self) -> None:
        if self._readers is not None:
            self._readers.shutdown(wait=True)
        self._writer.shutdown(wait=True)
