"""Prometheus metrics of one app (own registry, so several apps can live in one process)."""

from __future__ import annotations

import time

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class ApiMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "epistream_http_requests_total",
            "HTTP requests by route template, method and status code.",
            ["route", "method", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "epistream_http_request_duration_seconds",
            "HTTP request latency by route template and method.",
            ["route", "method"],
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.candidates = Histogram(
            "epistream_retrieval_candidates",
            "Candidates considered per retrieval.",
            buckets=(0, 5, 10, 25, 50, 100, 250, 500, 1000, 2500),
            registry=self.registry,
        )
        self.items = Histogram(
            "epistream_retrieval_items",
            "Items returned per retrieval.",
            buckets=(0, 1, 2, 5, 10, 20, 50, 100, 200),
            registry=self.registry,
        )
        self.exclusions = Counter(
            "epistream_retrieval_exclusions_total",
            "Candidates excluded (explicit/debug retrievals report them) by stage.",
            ["stage"],
            registry=self.registry,
        )
        self.ingested = Counter(
            "epistream_ingested_events_total",
            "Events received over the API by per-item status.",
            ["status"],
            registry=self.registry,
        )
        self.ingestion_lag = Histogram(
            "epistream_ingestion_lag_seconds",
            "Time from an event's occurred_at to the end of its ingestion.",
            buckets=(0.01, 0.1, 0.5, 1, 5, 30, 60, 300, 3600, 86400),
            registry=self.registry,
        )
        self.last_ingestion_lag = Gauge(
            "epistream_ingestion_lag_last_seconds",
            "Largest event lag of the most recent ingestion call.",
            registry=self.registry,
        )
        self.commands = Counter(
            "epistream_commands_total",
            "Commands by kind and outcome status.",
            ["command", "status"],
            registry=self.registry,
        )

        self.receipts_written = Counter(
            "epistream_retrieval_receipts_written_total",
            "Retrieval receipts stored in the log.",
            registry=self.registry,
        )
        self.receipts_dropped = Counter(
            "epistream_retrieval_receipts_dropped_total",
            "Retrieval receipts lost: queue_full (the writer fell behind), write_failed (after retries), closed.",
            ["reason"],
            registry=self.registry,
        )

    def render(self) -> bytes:
        return generate_latest(self.registry)


class MetricsMiddleware:
    """Counts by route *template* (bounded cardinality), never by raw path."""

    def __init__(self, app: ASGIApp, metrics: ApiMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            method = scope.get("method", "GET")
            self.metrics.requests.labels(template, method, str(status)).inc()
            self.metrics.latency.labels(template, method).observe(time.perf_counter() - start)
