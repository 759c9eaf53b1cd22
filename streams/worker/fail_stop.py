"""An agent that fails ends its worker at once, uncommitted: the crash the pipeline is proven to survive."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger("epistream.worker")

#: Exit status of a worker that stopped itself because an agent failed (see :func:`fail_stop`).
EXIT_AGENT_FAILED = 70


def fail_stop(body: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
    """Turn an unexpected error in an agent into the end of the worker process, uncommitted.

    faust restarts a crashed agent, and ``take_events`` acknowledges the batch the agent held
    when it is closed, so an error would silently skip that batch's records. Exiting at once
    instead (no shutdown, no commit) is exactly a SIGKILL, which the pipeline is proven to
    survive: the records are redelivered to the restarted worker. Expected failures never get
    here: sinks retry (``until_written``), bad input goes to dead letters.
    """

    @functools.wraps(body)
    async def run(*args: Any) -> None:
        try:
            await body(*args)
        except asyncio.CancelledError:
            raise  # rebalance or shutdown: faust's own business
        except Exception as exc:
            log.critical(
                "agent %s failed (%s); stopping this worker without committing: its inputs are redelivered",
                getattr(body, "__name__", "?"),
                type(exc).__name__,
            )
            os._exit(EXIT_AGENT_FAILED)

    return run
