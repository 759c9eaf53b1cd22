"""The FastAPI app: the imperative shell around the runner, assembled from route modules of one concern each.

Routes: ingestion (:mod:`epistream.api.events`), reads (:mod:`epistream.api.reads`), the explicit
commands generated from the registry (:mod:`epistream.api.commands`) and operations
(:mod:`epistream.api.operations`), analytics (:mod:`epistream.api.analytics`) and the inspector's
static pages under ``/ui`` (:mod:`epistream.ui`); what they share is :mod:`epistream.api.context`. Everything a
caller sends is validated, checked against the key's grants and handed to the engine as exactly
one command (or one ingestion batch).
"""

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from epistream import ui
from epistream.api import analytics, commands, erasures, events, operations, reads
from epistream.api.auth import ApiKeyRing
from epistream.api.context import COMMAND_NAMESPACE, ApiState
from epistream.api.distributed import Dispatch, KafkaDispatch
from epistream.api.errors import epistream_error_response, error_response, install_error_handlers, validation_details
from epistream.api.gate import DEFAULT_READERS
from epistream.api.limits import BodySizeLimit
from epistream.api.metrics import MetricsMiddleware
from epistream.api.receipts import DEFAULT_QUEUE_SIZE, ReceiptSink
from epistream.clock import clock_for
from epistream.config import load_settings
from epistream.runner import EmbeddedRunner
from schemas.errors import EpistreamError, NotConfigured, ValidationFailed
from schemas.settings import Settings
from streams import topics as tn
from streams.runtime import freeze_loaded_heap

__all__ = ["COMMAND_NAMESPACE", "ApiState", "create_app", "serve"]


def create_app(
    runner: EmbeddedRunner,
    *,
    api_keys: ApiKeyRing,
    settings: Settings | None = None,
    clock: Callable[[], datetime] | None = None,
    readers: int = DEFAULT_READERS,
    dispatch: Dispatch | None = None,
    receipt_queue_size: int = DEFAULT_QUEUE_SIZE,
    receipt_sink: ReceiptSink | None = None,
) -> FastAPI:
    """``readers`` threads serve read-only calls concurrently (0: every call on the one writer thread).

    ``receipt_queue_size`` bounds the retrieval receipts waiting for the writer thread (beyond it they
    are dropped and counted, see :mod:`epistream.api.receipts`); ``receipt_sink`` replaces where they
    are written (default: the runner's log, through a client of its own).

    ``dispatch`` (or ``settings.api_mode == "distributed"``) publishes events and commands to Kafka
    instead of applying them to ``runner``; see :mod:`epistream.api.distributed`. The dispatch is
    started and stopped with the app's lifespan.
    """
    settings = settings or runner.settings
    if settings.api_mode == "distributed" and not runner.keeps_log:
        # Provenance, assertion state and world-view conflicts are read from the operation log the
        # workers write; without their ClickHouse server there is none to read (see EmbeddedRunner._open_log).
        logging.getLogger("epistream.api").warning(
            "distributed mode without EPISTREAM_CLICKHOUSE_URL: provenance, assertion state, the world view and "
            "retrieval receipts answer 503 not_configured (retrieval and nodes come from OpenSearch)"
        )
    if dispatch is None and settings.api_mode == "distributed":
        dispatch = KafkaDispatch(
            settings.kafka_bootstrap,
            tn.Topics(prefix=settings.kafka_topic_prefix, partitions=settings.partitions),
            max_content_bytes=settings.max_content_bytes,
        )
    state = ApiState(
        runner, api_keys, settings, clock or clock_for(settings), readers, dispatch, receipt_queue_size,
        receipt_sink,
    )

    saving = dispatch is None and settings.api_index_save_interval_s > 0

    async def save_when_idle() -> None:
        """Writes make themselves searchable; saving the indexes whole waits for a quiet moment."""
        while True:
            await asyncio.sleep(settings.api_index_save_interval_s)
            with contextlib.suppress(EpistreamError):
                await state.gate.write(runner.save_indexes)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if dispatch is not None:
            await dispatch.start()
        saver = None
        if saving:
            runner.defer_saves(settings.api_index_save_interval_s)
            saver = asyncio.create_task(save_when_idle())
        try:
            yield
        finally:
            if saver is not None:
                saver.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await saver
            if dispatch is not None:
                await dispatch.stop()
            if state.receipts is not None:
                await asyncio.to_thread(state.receipts.close)
            if saving:
                await state.gate.write(runner.save_indexes)
                runner.defer_saves(0.0)
            state.gate.shutdown()

    app = FastAPI(
        title="epistream",
        version="1.0.0",
        summary="Epistemically typed memory for assistants: ingestion, retrieval, commands.",
        lifespan=lifespan,
    )
    app.state.api = state
    install_error_handlers(app)

    @app.exception_handler(ValidationError)
    async def _pydantic(_: Request, exc: ValidationError) -> JSONResponse:
        return error_response(422, "validation_failed", "request does not satisfy a contract", validation_details(
            list(exc.errors(include_input=False, include_url=False))
        ))

    for module in (events, reads, commands, operations, analytics, erasures):
        app.include_router(module.router)
    ui.mount(app)
    app.add_middleware(MetricsMiddleware, metrics=state.metrics)
    app.add_middleware(BodySizeLimit, max_bytes=settings.api_max_body_bytes, on_reject=epistream_error_response)
    return app


def serve(settings: Settings | None = None, host: str = "127.0.0.1", port: int = 8080, *,
          access_log: bool = False) -> None:
    """``epistream api``: the runner behind uvicorn (one process owns the data dir)."""
    import uvicorn

    settings = settings or load_settings()
    if settings.api_keys_file is None:
        raise ValidationFailed("EPISTREAM_API_KEYS_FILE is required to serve the API", code="no_api_keys")
    if settings.api_mode == "distributed" and not settings.opensearch_url:
        # Retrieval, nodes and every command's target come from the index the workers write: an API
        # without it could answer nothing, so it does not start (reads without the log are answered,
        # with not_configured where they need it).
        raise NotConfigured(
            "the distributed API reads nodes and retrieval from the index the workers write: set "
            "EPISTREAM_OPENSEARCH_URL (and EPISTREAM_OPENSEARCH_INDEX)",
            setting="EPISTREAM_OPENSEARCH_URL",
        )
    keys = ApiKeyRing.from_file(settings.api_keys_file)
    runner = EmbeddedRunner(settings=settings)
    try:
        app = create_app(runner, api_keys=keys, settings=settings)
        freeze_loaded_heap()
        # httptools/uvloop when installed ("auto"); request counts and latency are in /metrics, so no
        # per-request access log line on the hot path.
        uvicorn.run(app, host=host, port=port, log_level="info", proxy_headers=False, access_log=access_log)
    finally:
        runner.close()
