"""Running a worker: its topics first (:func:`prepare`), then the faust worker (:func:`run_worker`, :func:`main`)."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schemas.errors import BackendUnavailable, EpistreamError
from schemas.settings import Settings
from sinks.clickhouse import OperationLog
from sinks.data_dir import DataDirLock
from streams import topics as tn
from streams.worker.app import create_app
from streams.worker.fail_stop import fail_stop
from streams.worker.logs import quiet_producer_buffer
from streams.worker.operations import dump_state
from streams.worker.options import ROLES, WorkerOptions, numeric_options
from streams.worker.recovery import check_kafka_state

log = logging.getLogger("epistream.worker")

#: The index-only worker's log lines, as faust formats a worker's.
_LOG_FORMAT = "[%(asctime)s] [%(process)d] [%(levelname)s] %(message)s"


def prepare(settings: Settings, options: WorkerOptions | None = None) -> list[str]:
    """Create the deployment's topics (faust would create them without the compaction of memory.nodes).

    A worker often starts beside a broker that is still starting (a compose stack, a rolling
    restart): it retries with backoff for ``kafka_startup_wait_s`` before giving up with
    ``backend_unavailable``, instead of crashing on the first refused connection.
    """
    opts = options or WorkerOptions()
    topics = tn.Topics(prefix=opts.topic_prefix, partitions=settings.partitions)
    deadline = time.monotonic() + settings.kafka_startup_wait_s
    delay = 0.5
    while True:
        try:
            return tn.ensure_topics(settings.kafka_bootstrap, topics)
        except BackendUnavailable as exc:
            left = deadline - time.monotonic()
            if left <= 0:
                raise
            pause = min(delay, left)
            log.warning("Kafka is not answering yet (%s); retrying in %.1f s", exc.details.get("reason"), pause)
            time.sleep(pause)
            delay = min(delay * 2, 10.0)


def claim_data_dir(settings: Settings, data_path: Path) -> DataDirLock | None:
    """Without a ClickHouse server the worker's log is a chDB store in its data directory, which one
    process can open: a second worker on the same directory is refused now, with what to do, rather
    than retrying its first write forever (it could never open the store)."""
    if settings.clickhouse_url:
        return None
    lock = DataDirLock(data_path, owner="worker")
    lock.acquire()
    log.warning(
        "no EPISTREAM_CLICKHOUSE_URL: this worker keeps its own chDB store in %s (a development and test "
        "topology: each store holds the partitions its worker processed; `epistream combine-logs` merges "
        "them). Production runs every worker against one ClickHouse server.",
        data_path,
    )
    return lock


def run_worker(
    settings: Settings,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    opensearch_url: str | None = None,
    options: WorkerOptions | None = None,
    loglevel: str = "warning",
) -> None:
    """Run one worker until SIGTERM/SIGINT (what ``epistream worker`` calls).

    Everything that can refuse a start is checked before the worker joins a group: the role's
    backends (``create_app``), the chDB directory (:func:`claim_data_dir`), the topics
    (:func:`prepare`) and whether Kafka still holds this deployment's state
    (:func:`~streams.worker.recovery.check_kafka_state`).
    """
    opts = options or WorkerOptions()
    data_path = Path(data_dir if data_dir is not None else settings.worker_data_dir)
    app = create_app(settings, data_dir=data_path, opensearch_url=opensearch_url, options=opts)
    quiet_producer_buffer(app.epistream["metrics"])
    lock = claim_data_dir(settings, data_path)
    try:
        topics = tn.Topics(prefix=opts.topic_prefix, partitions=settings.partitions)
        prepare(settings, opts)
        if opts.runs_core:
            check_kafka_state(settings, topics, lambda: _oplog(settings, data_path, opts))
        if not opts.runs_core:
            logging.basicConfig(level=loglevel.upper(), format=_LOG_FORMAT)
            run_index_worker(app, settings)
            return
        _run_faust(app, loglevel)
    finally:
        if lock is not None:
            lock.release()


def _oplog(settings: Settings, data_path: Path, opts: WorkerOptions) -> OperationLog:
    return OperationLog.connect(settings.clickhouse_url, path=data_path, database=opts.clickhouse_database)


def run_index_worker(app: Any, settings: Settings) -> None:
    """An index-only worker (``--role index``): the index consumer, the metrics endpoint, no faust.

    It has no faust agent to run (the index stage is a Kafka consumer of its own, see
    :mod:`streams.worker.index_consumer`), and a faust worker with nothing to consume would still join
    a consumer group. SIGTERM/SIGINT stop it; like an agent failure, an unexpected error in the
    consumer ends the process with status 70, uncommitted.
    """
    import signal

    consumer = app.epistream["index_consumer"]
    lifecycle = app.epistream["lifecycle"]

    async def main() -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await lifecycle.open_sinks()
        if settings.metrics_port:
            await fail_stop(lifecycle._serve_metrics)()
        task = asyncio.ensure_future(fail_stop(consumer.run)())
        stopping = asyncio.ensure_future(stop.wait())
        await asyncio.wait([task, stopping], return_when=asyncio.FIRST_COMPLETED)
        task.cancel()
        stopping.cancel()
        await asyncio.gather(task, stopping, return_exceptions=True)
        lifecycle.close_sinks(None)

    log.info("index worker starting (group %s)", consumer.group)
    asyncio.run(main())


def _run_faust(app: Any, loglevel: str) -> None:
    import faust

    from streams.runtime import tune_gc_for_throughput

    tune_gc_for_throughput()
    worker = faust.Worker(app, loglevel=loglevel, quiet=True, redirect_stdouts=False)
    # faust's progress spinner sets the root logger to DEBUG, so aiokafka built a log record for
    # every produce request and response (~8% of a worker's CPU); a daemon needs no spinner.
    worker.spinner = None
    profile_to = os.environ.get("EPISTREAM_PROFILE")
    if not profile_to:
        worker.execute_from_commandline()
        return
    # Opt-in profiling of the whole worker (py-spy is not available here): the stats land in
    # ``EPISTREAM_PROFILE`` when the worker stops on SIGTERM.
    import cProfile

    prof = cProfile.Profile(time.thread_time)  # CPU of the event loop thread, not wall time
    prof.enable()
    try:
        worker.execute_from_commandline()
    finally:
        prof.disable()
        prof.dump_stats(profile_to)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m streams.faust_app")
    sub = parser.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("worker", help="run one worker until SIGTERM")
    w.add_argument("--app-id", default="epistream")
    w.add_argument("--prefix", default="")
    w.add_argument("--partitions", type=int)
    w.add_argument("--bootstrap")
    w.add_argument("--data-dir")
    w.add_argument("--opensearch-url")
    w.add_argument("--index")
    w.add_argument("--embedder")
    w.add_argument("--loglevel", default="warning")
    w.add_argument("--session-timeout", type=float, help="seconds (EPISTREAM_KAFKA_SESSION_TIMEOUT_S)")
    w.add_argument("--role", choices=ROLES, default="all", help="agents to run (see WorkerOptions.role)")
    w.add_argument("--metrics-port", type=int, help="serve the worker's counters on this port (EPISTREAM_METRICS_PORT)")
    w.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=SECONDS_OR_COUNT",
        help="override a numeric WorkerOptions field (batch windows, sizes), e.g. within_s=0.1; for experiments",
    )
    d = sub.add_parser("dump", help="print what a stopped worker stored in chDB (JSON)")
    d.add_argument("--data-dir", required=True)
    args = parser.parse_args(argv)
    if args.cmd == "dump":
        json.dump(dump_state(args.data_dir), sys.stdout)
        return
    overrides: dict[str, Any] = {}
    if args.partitions:
        overrides["partitions"] = args.partitions
    if args.bootstrap:
        overrides["kafka_bootstrap"] = args.bootstrap
    if args.embedder:
        overrides["embedder"] = args.embedder
    if args.metrics_port is not None:
        overrides["metrics_port"] = args.metrics_port
    settings = Settings(**overrides)
    session: Any = args.session_timeout if args.session_timeout is not None else settings.kafka_session_timeout_s
    options = WorkerOptions(
        app_id=args.app_id,
        topic_prefix=args.prefix,
        index_alias=args.index,
        role=args.role,
        **{"session_timeout_s": session, **numeric_options(args.option)},
    )
    try:
        run_worker(
            settings,
            data_dir=args.data_dir,
            opensearch_url=args.opensearch_url,
            options=options,
            loglevel=args.loglevel,
        )
    except EpistreamError as exc:  # a refused start: its code and what to do, never a traceback
        print(json.dumps({"error": exc.to_dict()}), file=sys.stderr)
        raise SystemExit(2) from None
