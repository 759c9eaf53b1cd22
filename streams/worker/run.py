"""Running a worker: its topics first (:func:`prepare`), then the faust worker (:func:`run_worker`, :func:`main`)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

from schemas.errors import BackendUnavailable
from schemas.settings import Settings
from streams import topics as tn
from streams.worker.app import create_app
from streams.worker.operations import dump_state
from streams.worker.options import ROLES, WorkerOptions, numeric_options

log = logging.getLogger("epistream.worker")


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


def run_worker(
    settings: Settings,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    opensearch_url: str | None = None,
    options: WorkerOptions | None = None,
    loglevel: str = "warning",
) -> None:
    """Run one worker until SIGTERM/SIGINT (what ``epistream worker`` calls)."""
    import faust

    from streams.runtime import tune_gc_for_throughput

    tune_gc_for_throughput()
    prepare(settings, options)
    app = create_app(settings, data_dir=data_dir, opensearch_url=opensearch_url, options=options)
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
    w.add_argument("--session-timeout", type=float, default=30.0)
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
    options = WorkerOptions(
        app_id=args.app_id,
        topic_prefix=args.prefix,
        index_alias=args.index,
        role=args.role,
        **{"session_timeout_s": args.session_timeout, **numeric_options(args.option)},
    )
    run_worker(
        settings,
        data_dir=args.data_dir,
        opensearch_url=args.opensearch_url,
        options=options,
        loglevel=args.loglevel,
    )
