"""Rule extraction in worker processes, so it does not share the event loop's GIL.

A stream worker is one Python process: the event loop runs extraction, the reducer, and every
Kafka record's bookkeeping, so under load its one core is the limit while the second core idles.
The rule extractor is pure CPU and depends only on the event, which makes it the piece to move
out: events go to a process pool and results come back in input order (per-key order holds).
The pickles cost ~0.06 ms per event on the loop against ~0.23 ms of extraction.

Processes are started with ``spawn``: a fork of a worker that already runs aiokafka, chDB and
executor threads could inherit a lock held by one of them. If a pool process dies, the pending
batch fails with ``BrokenProcessPool`` and the agent's fail-stop ends the worker uncommitted,
exactly like any other agent failure: the restarted worker gets the same inputs. If the worker
dies, its pool processes notice within half a second and exit.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from schemas.claims import ExtractionResult
from schemas.events import ConversationEvent
from streams import agents

_extractor: Any = None  # set in each pool process by _start


def _start(name: str, settings: Any, parent: int) -> None:
    global _extractor
    from extractors.base import get_extractor
    from streams.runtime import tune_gc_for_throughput

    # A pool process allocates as the pipeline's own processes do (claims, models, regex
    # matches per message): the default young-generation threshold cost ~10% of its CPU.
    tune_gc_for_throughput()
    # The parent's pid comes from the parent: read here it could already be init's, if the worker
    # died while this process was still starting.
    threading.Thread(target=_exit_with_parent, args=(parent,), name="parent-watch", daemon=True).start()
    _extractor = get_extractor(name, settings)


def _exit_with_parent(parent: int, every_s: float = 0.5) -> None:
    """End this process once the worker that spawned it is gone.

    A pool process otherwise waits for work forever: it holds both ends of its task queue, so a
    SIGKILLed worker (the crash the pipeline is built to survive) would leave it behind, and every
    restart would add one more.
    """
    while os.getppid() == parent:
        time.sleep(every_s)
    os._exit(0)


def _extract_batch(events: Sequence[ConversationEvent]) -> list[ExtractionResult]:
    return [agents.extract(_extractor, event) for event in events]


def _probe() -> bool:
    return _extractor is not None


class ExtractionPool:
    """``processes`` spawned interpreters, each holding its own instance of the configured extractor."""

    def __init__(self, name: str, settings: Any, processes: int) -> None:
        if processes < 1:
            raise ValueError("an extraction pool needs at least one process")
        self.processes = processes
        self._pool = ProcessPoolExecutor(
            max_workers=processes,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start,
            initargs=(name, settings, os.getpid()),
        )
        self._probes: list[Future[bool]] = []

    def _shares(self, events: Sequence[ConversationEvent]) -> list[list[ConversationEvent]]:
        """One contiguous share per process, so concatenating the results keeps input order."""
        share = -(-len(events) // self.processes)
        return [list(events[i : i + share]) for i in range(0, len(events), share)]

    async def extract(self, events: Sequence[ConversationEvent]) -> list[ExtractionResult]:
        """Results in input order; a batch is split into one contiguous share per process."""
        if not events:
            return []
        loop = asyncio.get_running_loop()
        parts = self._shares(events)
        done = await asyncio.gather(*(loop.run_in_executor(self._pool, _extract_batch, part) for part in parts))
        return [result for part in done for result in part]

    def submit(self, events: Sequence[ConversationEvent]) -> list[Future[list[ExtractionResult]]]:
        """Start extracting ``events`` (for synchronous callers); :func:`results` collects them in order."""
        return [self._pool.submit(_extract_batch, part) for part in self._shares(events)]

    def start(self) -> None:
        """Spawn the processes in the background; :meth:`ready` says when they can take work."""
        if not self._probes:
            self._probes = [self._pool.submit(_probe) for _ in range(self.processes)]

    def ready(self) -> bool:
        return bool(self._probes) and all(p.done() and not p.exception() and p.result() for p in self._probes)

    def warm_up(self) -> None:
        """Start the processes now (spawning takes a second or two) instead of on the first batch."""
        self.start()
        for future in self._probes:
            if not future.result():
                raise RuntimeError("extraction process did not load its extractor")

    def close(self) -> None:
        """Stop the processes (work not started is dropped)."""
        self._pool.shutdown(wait=True, cancel_futures=True)


def results(futures: Sequence[Future[list[ExtractionResult]]]) -> list[ExtractionResult]:
    """The results of :meth:`ExtractionPool.submit`, in input order (re-raises a process's failure)."""
    return [result for f in futures for result in f.result()]
