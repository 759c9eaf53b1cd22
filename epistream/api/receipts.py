"""Retrieval receipts off the request path: a bounded queue drained by one writer thread.

An audit record must never cost the answer it records: a retrieval only puts
its receipt on the queue (never blocks; a full queue drops the receipt and
counts it), and one background thread inserts in batches of at most
``batch_size`` receipts at least every ``flush_interval_s``. A failing backend is
retried a few times, then the batch is counted as dropped; nothing is raised
to a client. The queue is flushed on shutdown.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Final

from schemas.retrieval import RetrievalReceipt, chosen_receipt_id

log = logging.getLogger("epistream.api.receipts")

#: Default bound of queued receipts (about 2 KB each): ~20 MB at worst.
DEFAULT_QUEUE_SIZE: Final = 10_000
DEFAULT_BATCH_SIZE: Final = 500
DEFAULT_FLUSH_INTERVAL_S: Final = 1.0
#: Attempts per batch before it is counted as dropped.
DEFAULT_ATTEMPTS: Final = 3
#: Shortest gap between two log lines about dropped receipts.
LOG_EVERY_S: Final = 60.0

#: Where batches go, e.g. ``OperationLog.write_retrievals``.
ReceiptSink = Callable[[Sequence[RetrievalReceipt]], object]


def idempotency_receipt_id(idempotency_key: str | None, *, tenant_id: str, actor_id: str) -> str | None:
    """The receipt id of a retrieval sent with ``Idempotency-Key``: the caller's UUID, scoped to the caller
    (:func:`schemas.retrieval.chosen_receipt_id`); anything but a UUID is ignored, since a receipt must
    never be the reason a retrieval fails."""
    if idempotency_key is None:
        return None
    try:
        chosen = str(uuid.UUID(idempotency_key.strip()))
    except ValueError:
        return None
    return chosen_receipt_id(tenant_id, actor_id, chosen)


class _Marker:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


_FLUSH: Final = _Marker("flush")
_STOP: Final = _Marker("stop")


class ReceiptWriter:
    """``submit`` from any thread; the one writer thread calls ``sink`` with batches.

    ``on_drop(reason, n)`` hears of receipts lost (``queue_full``, ``write_failed``), ``on_write(n)``
    of receipts stored. ``enrich`` may complete a batch before it is written (e.g. node versions a
    distributed API only knows from its index); its failure leaves the batch as it was.
    """

    def __init__(
        self,
        sink: ReceiptSink,
        *,
        max_queue: int = DEFAULT_QUEUE_SIZE,
        batch_size: int = DEFAULT_BATCH_SIZE,
        flush_interval_s: float = DEFAULT_FLUSH_INTERVAL_S,
        attempts: int = DEFAULT_ATTEMPTS,
        retry_backoff_s: float = 0.2,
        on_drop: Callable[[str, int], None] | None = None,
        on_write: Callable[[int], None] | None = None,
        enrich: Callable[[list[RetrievalReceipt]], list[RetrievalReceipt]] | None = None,
        on_close: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_queue < 1 or batch_size < 1 or attempts < 1 or flush_interval_s <= 0:
            raise ValueError("queue size, batch size and attempts must be positive")
        self._sink = sink
        self._queue: queue.Queue[RetrievalReceipt | _Marker] = queue.Queue(maxsize=max_queue)
        self._batch_size = batch_size
        self._interval = flush_interval_s
        self._attempts = attempts
        self._backoff = retry_backoff_s
        self._on_drop = on_drop
        self._on_write = on_write
        self._enrich = enrich
        self._on_close = on_close
        self._clock = clock
        self._pending: dict[str, RetrievalReceipt] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._dropped_since_log = 0
        self._last_log = float("-inf")
        self.dropped = 0
        self.written = 0
        self._thread = threading.Thread(target=self._run, name="epistream-receipts", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ producers
    def submit(self, receipt: RetrievalReceipt) -> bool:
        """Queue a receipt; False (counted, never blocking) when the queue is full or closed."""
        if self._closed:
            self._drop("closed", 1)
            return False
        with self._lock:
            self._pending.setdefault(receipt.receipt_id, receipt)  # the first one stays (immutable)
        try:
            self._queue.put_nowait(receipt)
        except queue.Full:
            with self._lock:
                if self._pending.get(receipt.receipt_id) is receipt:
                    del self._pending[receipt.receipt_id]
            self._drop("queue_full", 1)
            return False
        return True

    def pending(self, receipt_id: str) -> RetrievalReceipt | None:
        """A receipt accepted but not yet through the sink (read-your-writes for the same process)."""
        with self._lock:
            return self._pending.get(receipt_id)

    def flush(self, timeout_s: float = 10.0) -> bool:
        """Wait until every receipt queued so far went through the sink (stored or counted dropped)."""
        with self._lock:
            closed = self._closed
        if not closed:
            with contextlib.suppress(queue.Full):  # a full queue is draining anyway
                self._queue.put_nowait(_FLUSH)  # ends the batch now instead of at its deadline
        deadline = time.monotonic() + timeout_s
        with self._queue.all_tasks_done:
            while self._queue.unfinished_tasks:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._queue.all_tasks_done.wait(left)
        return True

    def close(self, timeout_s: float = 10.0) -> None:
        """Stop accepting, write what is queued, stop the thread, then ``on_close``."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            self._queue.put(_STOP, timeout=timeout_s)
        except queue.Full:
            log.warning("retrieval receipt writer did not drain before shutdown")
        self._thread.join(timeout_s)
        if self._on_close is not None:
            try:
                self._on_close()
            except Exception:  # closing a client at shutdown must not mask the shutdown itself
                log.exception("closing the retrieval receipt sink failed")

    @property
    def queued(self) -> int:
        return self._queue.qsize()

    # ------------------------------------------------------------------ the writer thread
    def _drop(self, reason: str, n: int) -> None:
        with self._lock:
            self.dropped += n
            self._dropped_since_log += n
            now = self._clock()
            due = now - self._last_log >= LOG_EVERY_S
            if due:
                count, self._dropped_since_log, self._last_log = self._dropped_since_log, 0, now
        if self._on_drop is not None:
            self._on_drop(reason, n)
        if due:
            log.warning("dropped %d retrieval receipt(s) (latest reason: %s)", count, reason)

    def _run(self) -> None:
        stop = False
        while not stop:
            first = self._queue.get()
            if isinstance(first, _Marker):
                self._queue.task_done()
                stop = first is _STOP
                continue
            batch: list[RetrievalReceipt] = [first]
            markers = 0
            deadline = time.monotonic() + self._interval
            while len(batch) < self._batch_size:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                try:
                    item = self._queue.get(timeout=left)
                except queue.Empty:
                    break
                if isinstance(item, _Marker):
                    markers += 1
                    stop = item is _STOP
                    break
                batch.append(item)
            self._write(batch)
            for _ in range(len(batch) + markers):
                self._queue.task_done()

    def _write(self, queued: list[RetrievalReceipt]) -> None:
        batch = queued
        try:
            if self._enrich is not None:
                try:
                    batch = self._enrich(batch)
                except Exception:
                    log.warning("could not complete retrieval receipts before writing them", exc_info=True)
            for attempt in range(self._attempts):
                try:
                    self._sink(batch)
                except Exception as exc:  # any backend failure: retry, then count, never raise
                    if attempt + 1 < self._attempts:
                        time.sleep(self._backoff * (2**attempt))
                        continue
                    log.debug("retrieval receipt batch failed: %s", type(exc).__name__)
                    self._drop("write_failed", len(batch))
                else:
                    with self._lock:
                        self.written += len(batch)
                    if self._on_write is not None:
                        self._on_write(len(batch))
                break
        finally:
            with self._lock:
                for r in queued:
                    if self._pending.get(r.receipt_id) is r:
                        del self._pending[r.receipt_id]
