"""A worker's start-up and shutdown: extraction processes, sinks opened early, the metrics endpoint."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any

from schemas.errors import EpistreamError
from streams.extract_pool import ExtractionPool
from streams.metrics import serve as serve_metrics
from streams.worker.clickhouse_log import ClickHouseLog
from streams.worker.context import WorkerContext

log = logging.getLogger("epistream.worker")


class Lifecycle:
    """The app's start-up tasks and its ``on_before_shutdown`` receiver (registered by ``create_app``)."""

    def __init__(self, ctx: WorkerContext, clickhouse: ClickHouseLog, procs: ExtractionPool | None) -> None:
        self.ctx = ctx
        self.clickhouse = clickhouse
        self.procs = procs

    async def start_extraction_processes(self) -> None:
        if self.procs is not None:  # (registered only when there are processes)
            await asyncio.to_thread(self.procs.warm_up)  # spawn now, not on the first batch

    async def open_sinks(self) -> None:
        """Open the ClickHouse log at start instead of on the first batch.

        Opening loads chDB (or connects to the server) and runs pending migrations: seconds that
        would otherwise fall on the first events after every start or restart. A sink that cannot be
        opened now is reported at once (a wrong URL shows in the log before traffic does, not after)
        and is opened again, with retries, by the first write, as before. The node index is opened by
        the index consumer once it knows whether a missing index may be created
        (:attr:`IndexSink.may_create`).
        """
        opening: dict[str, Awaitable[Any]] = {"ClickHouse": self.clickhouse.open_soon()}
        results = await asyncio.gather(*opening.values(), return_exceptions=True)
        for sink, result in zip(opening, results, strict=True):
            if isinstance(result, BaseException):
                detail = result.message if isinstance(result, EpistreamError) else type(result).__name__
                log.warning("%s could not be opened at start: %s; the first write retries", sink, detail)
            else:
                log.info("%s sink open", sink)

    async def _serve_metrics(self) -> None:  # (named as before: fail_stop logs the name)
        """The counters on ``/metrics`` for Prometheus; a port in use stops the worker (fail-stop)."""
        settings = self.ctx.settings
        server = await serve_metrics(self.ctx.metrics, settings.metrics_host, settings.metrics_port)
        self.ctx.sinks["metrics_server"] = server

    def close_sinks(self, sender: Any, **kwargs: Any) -> None:
        server = self.ctx.sinks.pop("metrics_server", None)
        if server is not None:
            server.close()
        if self.procs is not None:
            self.procs.close()
        self.clickhouse.close()  # after any write or start-up open queued before it
