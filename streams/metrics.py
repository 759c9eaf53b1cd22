"""A stream worker's counters, served in the Prometheus text format (``/metrics``).

Consumer lag says *that* a stage falls behind (``epistream lag``); these counters say *what* a
worker did with what it read: events admitted or dead-lettered (by reason code), extraction
outcomes, operations by type, rows written per ClickHouse table, documents indexed or refused,
and sink writes retried while a backend was down; and how old events are when extracted (a
histogram: consumer lag in seconds rather than records). Operators alert on the rates: dead
letters by reason, ``extractions_total{status="failed"}``, a non-zero ``sink_retries_total``
rate, and on the age's upper quantiles.

Counters live in the worker process and start at zero on every start (Prometheus' ``rate()``
handles the reset). Nothing here holds memory content: label values are stage names, reason
codes, statuses, operation types and table names, all from closed sets of our own.

The counters and their text come from ``prometheus_client`` (as the API's do). The endpoint is a
few lines over ``asyncio.start_server`` on the worker's own event loop (faust's web server is
off, and no thread is added): one request per connection, ``GET /metrics`` and ``GET /healthz``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

log = logging.getLogger("epistream.metrics")

#: name -> (help text, label names). Every counter a worker reports; an unlabelled one that never
#: moved reads 0, a labelled one shows only the label sets that did.
COUNTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "epistream_events_received_total": ("Records read from conversation.events.", ()),
    "epistream_events_admitted_total": ("Events that passed admission and went to extraction.", ()),
    "epistream_dead_letters_total": (
        "Records sent to a dead-letter topic or table, by stage and reason code.",
        ("stage", "reason"),
    ),
    "epistream_extractions_total": ("Extraction results, by status (ok, failed, ...).", ("status",)),
    "epistream_claims_total": ("Claims in extraction results, by outcome (accepted, rejected).", ("outcome",)),
    "epistream_inputs_reduced_total": ("Inputs applied by the reducer, by kind (extraction, command).", ("kind",)),
    "epistream_operations_total": ("Operations the reducer emitted and the log took, by operation type.", ("op_type",)),
    "epistream_clickhouse_rows_total": ("Rows written to ClickHouse (before deduplication), by table.", ("table",)),
    "epistream_index_documents_total": (
        "Node documents sent to OpenSearch, by outcome (written, rejected).",
        ("outcome",),
    ),
    "epistream_sink_retries_total": ("Sink writes that failed and were retried, by sink.", ("sink",)),
    "epistream_producer_buffer_full_total": (
        "Times faust paused a stream until its producer buffer drained (more than 100 records waiting to be "
        "sent): bursts and a slow broker; logged at info at most once a minute.",
        (),
    ),
    "epistream_rebalance_redeliveries_total": (
        "Reduced takes left for redelivery because a rebalance overlapped them.",
        (),
    ),
}


#: name -> (help text, bucket upper bounds in seconds).
HISTOGRAMS: dict[str, tuple[str, tuple[float, ...]]] = {
    "epistream_event_age_seconds": (
        "Seconds from an event's record timestamp (its publish) to its extraction by this worker: "
        "how far behind real time the stream runs.",
        (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 1800.0, 3600.0),
    ),
}


class WorkerMetrics:
    """The counters of one worker, in a registry of their own (as the API's metrics are)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._counters = {
            name: Counter(name.removesuffix("_total"), help_text, labels, registry=self.registry)
            for name, (help_text, labels) in COUNTERS.items()
        }
        self._histograms = {
            name: Histogram(name, help_text, buckets=buckets, registry=self.registry)
            for name, (help_text, buckets) in HISTOGRAMS.items()
        }

    def observe(self, name: str, values: Iterable[float]) -> None:
        """Add each value to the histogram ``name`` (negative ones, from clock skew, count as 0)."""
        histogram = self._histograms[name]  # KeyError: not a declared histogram
        for value in values:
            histogram.observe(max(0.0, value))

    def inc(self, name: str, amount: float = 1, **labels: str) -> None:
        counter = self._counters[name]  # KeyError: not a declared counter
        if amount < 0:
            raise ValueError("counters only go up")
        if amount or not labels:  # a label set appears once it counted something, never at 0
            (counter.labels(**labels) if labels else counter).inc(amount)

    def count_each(self, name: str, label: str, values: Iterable[str]) -> None:
        """``inc(name, **{label: v})`` for every ``v`` in ``values``, in one pass."""
        tally: dict[str, int] = {}
        for value in values:
            tally[value] = tally.get(value, 0) + 1
        for value, n in tally.items():
            self.inc(name, n, **{label: value})

    def value(self, name: str, **labels: str) -> float:
        return self.registry.get_sample_value(name, labels) or 0.0

    def render(self) -> bytes:
        """The Prometheus text exposition format (version 0.0.4)."""
        return generate_latest(self.registry)


_REASONS = {200: "OK", 404: "Not Found", 405: "Method Not Allowed", 400: "Bad Request"}


async def serve(metrics: WorkerMetrics, host: str, port: int) -> asyncio.Server:
    """Start the endpoint on the running loop; the caller closes the returned server."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            status, body, kind = await _answer(reader, metrics)
            head = (
                f"HTTP/1.1 {status} {_REASONS[status]}\r\nContent-Type: {kind}\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            )
            writer.write(head.encode("ascii") + body)
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            pass  # the scraper went away or sent garbage: nothing to answer
        finally:
            writer.close()

    server = await asyncio.start_server(handle, host, port)
    log.info("metrics on http://%s:%d/metrics", host, port)
    return server


async def _answer(reader: asyncio.StreamReader, metrics: WorkerMetrics) -> tuple[int, bytes, str]:
    request = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=5)
    parts = request.split(b"\r\n", 1)[0].split()
    if len(parts) != 3:
        return 400, b"bad request\n", "text/plain"
    method, target = parts[0], parts[1].split(b"?", 1)[0]
    if target not in (b"/metrics", b"/healthz"):
        return 404, b"not found\n", "text/plain"
    if method != b"GET":
        return 405, b"method not allowed\n", "text/plain"
    if target == b"/healthz":
        return 200, b"ok\n", "text/plain"
    return 200, metrics.render(), "text/plain; version=0.0.4; charset=utf-8"
