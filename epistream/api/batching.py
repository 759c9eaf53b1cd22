"""Event writes that queue behind each other are applied as one ingest (group commit).

Most of a small write's cost is fixed: making the indexes searchable and the log's inserts cost
about the same for one event as for a hundred. Under a steady write load requests arrive while
the writer is busy; each job on the writer thread takes every request queued so far, so the
fixed cost is paid once per job, not per request, and the time reads wait for writes stays
bounded instead of growing with the queue. Each request still gets its own per-item results,
computed exactly as if it had been applied alone in arrival order (an event id repeated by a
later request of the same job is that request's duplicate).

The timeout bounds waiting: a request still queued when it runs out is withdrawn and answered
503 (nothing was done); one whose job has started is answered with its outcome.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field

from epistream.api.gate import RunnerGate
from epistream.api.models import EventResult
from epistream.runner import EmbeddedRunner, PreparedEvents
from schemas.claims import EventRef
from schemas.errors import BackendUnavailable, EpistreamError, EventIdConflict
from schemas.events import ConversationEvent
from schemas.records import DeadLetter
from streams.agents import sort_events

#: (per-item results by request index, claims, operations) of one request.
Outcome = tuple[dict[int, EventResult], int, int]


@dataclass(eq=False)
class _Write:
    valid: list[tuple[int, ConversationEvent]]
    letters: list[DeadLetter]
    future: asyncio.Future[Outcome]
    loop: asyncio.AbstractEventLoop
    started: bool = False
    prepared: PreparedEvents | None = field(default=None, repr=False)


def _deliver(future: asyncio.Future[Outcome], outcome: Outcome | BaseException) -> None:
    if future.done():
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


class EventWrites:
    def __init__(self, runner: EmbeddedRunner, gate: RunnerGate) -> None:
        self.runner, self.gate = runner, gate
        self._lock = threading.Lock()
        self._pending: list[_Write] = []
        self._scheduled = False

    async def ingest(self, valid: list[tuple[int, ConversationEvent]], letters: list[DeadLetter]) -> Outcome:
        loop = asyncio.get_running_loop()
        write = _Write(valid, letters, loop.create_future(), loop)
        with self._lock:
            self._pending.append(write)
            schedule, self._scheduled = not self._scheduled, True
        if schedule:
            self.gate.submit(self._run)
        try:
            return await asyncio.wait_for(asyncio.shield(write.future), self.gate.timeout_s)
        except TimeoutError:
            with self._lock:
                if not write.started:
                    self._pending.remove(write)
                    raise BackendUnavailable("backend call timed out before it started", reason="timeout") from None
            return await write.future  # started: its outcome is the answer, never a timeout

    def _run(self) -> None:
        with self._lock:
            batch, self._pending, self._scheduled = self._pending, [], False
            for write in batch:
                write.started = True
        if not batch:
            return
        try:
            for write in batch:  # admission and extraction, beside reads
                events = [e for _i, e in write.valid]
                write.prepared = self.runner.prepare_events(events).with_letters(write.letters)
            outcomes: list[Outcome | BaseException] = list(self._commit(batch))
        except EpistreamError as exc:
            outcomes = [exc] * len(batch)
        except Exception as exc:  # every waiting request gets an answer, never a hang
            failed = BackendUnavailable("backend call failed", reason=type(exc).__name__)
            outcomes = [failed] * len(batch)
        for write, outcome in zip(batch, outcomes, strict=True):
            write.loop.call_soon_threadsafe(_deliver, write.future, outcome)

    def _commit(self, batch: list[_Write]) -> list[Outcome]:
        """Sort every request's events against the store in arrival order, ingest the new ones at once."""
        flat = [event for write in batch for _i, event in write.valid]
        sorted_ = sort_events(flat, self.runner.store)
        fresh, conflicts = {id(e) for e in sorted_.fresh}, {id(e) for e in sorted_.conflicts}
        combined: PreparedEvents | None = None
        outs: list[dict[int, EventResult]] = []
        kept: list[set[int]] = []
        for write in batch:
            assert write.prepared is not None
            out: dict[int, EventResult] = {}
            todo: set[int] = set()
            for position, (i, event) in enumerate(write.valid):
                if id(event) in fresh:
                    out[i] = EventResult(index=i, event_id=event.event_id, status="accepted")
                    todo.add(position)
                elif id(event) in conflicts:
                    # Kept as a dead letter by the runner (nothing a caller sends is lost).
                    out[i] = EventResult(
                        index=i, event_id=event.event_id, status="rejected", code=EventIdConflict.code,
                        message="this event id was used in this stream for different content",
                    )
                    todo.add(position)
                else:
                    out[i] = EventResult(index=i, event_id=event.event_id, status="duplicate")
            outs.append(out)
            kept.append({p for p in todo if id(write.valid[p][1]) in fresh})
            part = write.prepared.only(todo)
            combined = part if combined is None else combined.joined(part)
        # Only the writer thread changes the store, so sorting here needs no lock; the ingest holds
        # reads back only while it changes what they see (its section), not for its log inserts.
        report = self.runner.ingest_events(combined, section=self.gate.write_section) if combined is not None and (
            combined.events or combined.late) else None  # fmt: skip
        results: list[Outcome] = []
        for write, out, new in zip(batch, outs, kept, strict=True):
            if report is None or not new:
                results.append((out, 0, 0))
                continue
            assert write.prepared is not None
            claims = sum(
                len(x.claims)
                for x, origin in zip(write.prepared.extractions, write.prepared.origins, strict=True)
                if origin in new
            )
            ids = {EventRef.of(write.valid[p][1]).input_id for p in new}
            results.append((out, claims, sum(report.by_input.get(input_id, 0) for input_id in ids)))
        return results
