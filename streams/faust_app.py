"""The stream worker's public names, and ``python -m streams.faust_app worker|dump``.

The worker itself lives in :mod:`streams.worker` (one module per concern; its package docstring
describes the agents and the processing guarantee). This module keeps the names deployments,
tests and benches import from here, and the command line they run.
"""

from __future__ import annotations

from streams.worker.app import create_app
from streams.worker.context import Sent
from streams.worker.dead_letters import letter_from_record
from streams.worker.dead_letters import letter_headers as _headers  # (tests read DLQ headers with it)
from streams.worker.extract import Extracted
from streams.worker.fail_stop import EXIT_AGENT_FAILED, fail_stop
from streams.worker.materialize import Reduced
from streams.worker.operations import DlqRecord, consumer_lag, dlq_list, dlq_list_async, dlq_replay, dump_state
from streams.worker.options import GUARANTEE, ROLES, WorkerOptions, numeric_options
from streams.worker.run import main, prepare, run_worker
from streams.worker.timestamps import enrich

__all__ = [
    "EXIT_AGENT_FAILED",
    "GUARANTEE",
    "ROLES",
    "DlqRecord",
    "Extracted",
    "Reduced",
    "Sent",
    "WorkerOptions",
    "_headers",
    "consumer_lag",
    "create_app",
    "dlq_list",
    "dlq_list_async",
    "dlq_replay",
    "dump_state",
    "enrich",
    "fail_stop",
    "letter_from_record",
    "main",
    "numeric_options",
    "prepare",
    "run_worker",
]

if __name__ == "__main__":
    main()
