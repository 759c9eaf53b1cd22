"""``create_app``: the faust app of one worker process, its topics, and the agents its role runs.

Each stage is an object of its own module, built here on one :class:`WorkerContext`; this module
only wires them to faust (agents, background tasks, rebalance signals, start-up and shutdown).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from extractors.base import Extractor
from schemas.errors import NotConfigured, ValidationFailed
from schemas.settings import Settings
from streams import eager_delivery
from streams import topics as tn
from streams.delivery import Outbox
from streams.kafka_store import PartitionStates
from streams.metrics import WorkerMetrics
from streams.worker.clickhouse_log import ClickHouseLog
from streams.worker.context import Channels, WorkerContext
from streams.worker.dead_letters import DeadLetters
from streams.worker.extract import ExtractionRunner, ExtractStage
from streams.worker.fail_stop import fail_stop
from streams.worker.index_consumer import IndexConsumer
from streams.worker.index_sink import IndexSink
from streams.worker.lifecycle import Lifecycle
from streams.worker.materialize import MaterializeStage
from streams.worker.options import ROLES, WorkerOptions
from streams.worker.partitions import PartitionHandlers

if TYPE_CHECKING:
    from faust.types import AppT


def create_app(
    settings: Settings,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    opensearch_url: str | None = None,
    options: WorkerOptions | None = None,
    extractor: Extractor | None = None,
    embedder: Any = None,
) -> Any:
    """Build the faust app with its agents; sinks open lazily when the worker starts.

    A role whose backend is not configured is refused here, before anything starts: an index stage
    without an OpenSearch URL used to start anyway, retry forever as if OpenSearch were down, and
    lose its pending writes on the next stop.
    """
    opts = options or WorkerOptions()
    if opts.role not in ROLES:
        raise ValidationFailed(f"unknown worker role (one of {', '.join(ROLES)})", code="invalid_option")
    os_url = opensearch_url if opensearch_url is not None else settings.opensearch_url
    if opts.runs_index and not os_url:
        raise NotConfigured(
            f"worker role {opts.role!r} runs the index stage, which needs EPISTREAM_OPENSEARCH_URL (the "
            "OpenSearch the API retrieves from); set it, or run this worker with --role core",
            setting="EPISTREAM_OPENSEARCH_URL",
            role=opts.role,
        )
    data_path = Path(data_dir if data_dir is not None else settings.worker_data_dir)
    topics = tn.Topics(prefix=opts.topic_prefix, partitions=settings.partitions)
    (data_path / "faust").mkdir(parents=True, exist_ok=True)
    app = _faust_app(settings, opts, data_path)
    channels = Channels.of(app, topics, settings.partitions)
    runner = ExtractionRunner(settings, runs_core=opts.runs_core, extractor=extractor)
    metrics = WorkerMetrics()
    states = PartitionStates(
        settings.kafka_bootstrap, topics.operations, read_committed=opts.processing_guarantee == "exactly_once"
    )
    sinks: dict[str, Any] = {}
    ctx = WorkerContext(
        settings=settings,
        options=opts,
        topics=topics,
        app=app,
        channels=channels,
        metrics=metrics,
        states=states,
        outbox=Outbox(),
        data_path=data_path,
        sinks=sinks,
    )
    clickhouse = ClickHouseLog(ctx)
    dead_letters = DeadLetters(ctx, clickhouse)
    extract = ExtractStage(ctx, runner, clickhouse, dead_letters)
    materialize = MaterializeStage(ctx, clickhouse, dead_letters)
    alias = opts.index_alias or settings.opensearch_index
    index = IndexSink(ctx, dead_letters, url=os_url, alias=alias, embedder=embedder)
    index_consumer = IndexConsumer(ctx, index) if opts.runs_index else None

    if opts.runs_core:
        app.agent(channels.events, name="extract")(fail_stop(extract.extract))
        app.agent(channels.materialize_in, name="materialize")(fail_stop(materialize.materialize))
        app.agent(channels.dlqs, name="oplog_dead_letters")(fail_stop(dead_letters.oplog_dead_letters))

        async def write_behind() -> None:
            await asyncio.gather(extract.writes.run(), materialize.writes.run())

        app.task(fail_stop(write_behind))
        partitions = PartitionHandlers(ctx, materialize)
        # faust calls a receiver as (sender, partitions, signal=...); its stub asks for *args instead.
        app.on_partitions_revoked.connect(partitions.on_revoked)  # type: ignore[arg-type]
        app.on_partitions_assigned.connect(partitions.on_assigned)  # type: ignore[arg-type]
    if index_consumer is not None and opts.runs_core:
        # Its own Kafka consumer and group, not a faust agent: see streams.worker.index_consumer. (An
        # index-only worker runs it without faust: streams.worker.run.run_index_worker.)
        app.task(fail_stop(index_consumer.run))

    # Record delivery without four asyncio tasks per record (−13% of the loop's CPU at 500 events/s).
    eager_delivery.install(app.consumer)

    lifecycle = Lifecycle(ctx, clickhouse, runner.procs)
    app.epistream = {  # type: ignore[attr-defined]
        "topics": topics, "states": states, "sinks": sinks, "options": opts, "metrics": metrics,
        "index_consumer": index_consumer, "lifecycle": lifecycle,
    }  # fmt: skip
    if runner.procs is not None:
        app.task(lifecycle.start_extraction_processes)
    app.task(lifecycle.open_sinks)
    if settings.metrics_port:
        app.task(fail_stop(lifecycle._serve_metrics))
    # faust calls the receiver as (sender, signal=...): see the partition signals.
    app.on_before_shutdown.connect(lifecycle.close_sinks)  # type: ignore[arg-type]
    return app


def _faust_app(settings: Settings, opts: WorkerOptions, data_path: Path) -> AppT:
    import faust

    group_id = opts.group_id
    return faust.App(
        group_id,
        broker=f"kafka://{settings.kafka_bootstrap}",
        # Named after the group rather than faust's version: broker logs, metrics and client
        # quotas can then tell deployments (and core from index workers) apart.
        broker_client_id=f"epistream-{group_id}",
        store="memory://",
        datadir=str(data_path / "faust"),
        web_enabled=False,
        processing_guarantee=opts.processing_guarantee,
        topic_partitions=settings.partitions,
        topic_disable_leader=True,
        consumer_auto_offset_reset="earliest",
        broker_commit_interval=opts.commit_interval_s,
        broker_session_timeout=opts.session_timeout_s,
        broker_heartbeat_interval=max(1.0, opts.session_timeout_s / 3),
        producer_acks=-1,
        # A few ms of linger turns a produce request per record into one per burst (fewer syscalls
        # and broker round trips on a 2-core box); it adds at most this much latency per hop.
        producer_linger=opts.producer_linger_s,
        producer_max_batch_size=opts.producer_batch_bytes,
        producer_compression_type=None if settings.kafka_compression == "none" else settings.kafka_compression,
        autodiscover=False,
        # faust's default waits for every in-flight event before a rebalance, which deadlocks with
        # take_events() buffers (the last batch is acked only when the next one starts). Not
        # waiting is safe here: unacked inputs are redelivered to the new owner, which rebuilds
        # state from memory.operations; materialize never writes for a partition it no longer owns.
        stream_wait_empty=False,
    )
