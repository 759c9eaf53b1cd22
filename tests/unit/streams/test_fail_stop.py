"""An unexpected agent error ends the worker at once (no commit), like the SIGKILL the tests survive."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from streams.faust_app import EXIT_AGENT_FAILED

ROOT = Path(__file__).resolve().parents[3]


def _run(body: str) -> subprocess.CompletedProcess[str]:
    code = textwrap.dedent(
        """
        import asyncio, logging, sys
        logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
        from streams.faust_app import fail_stop

        cleanup_ran = []

        async def main():
            try:
                await fail_stop(agent)("stream")
            finally:
                cleanup_ran.append(True)
                print("cleanup", flush=True)
        """
    ) + textwrap.dedent(body) + "\nasyncio.run(main())\nprint('returned', flush=True)\n"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_an_unexpected_error_exits_without_running_cleanup() -> None:
    done = _run(
        """
        async def agent(stream):
            raise KeyError("a bug")
        """
    )
    assert done.returncode == EXIT_AGENT_FAILED
    assert "agent agent failed (KeyError)" in done.stderr
    assert "a bug" not in done.stderr  # the type is logged, never the message (it may quote content)
    assert "cleanup" not in done.stdout and "returned" not in done.stdout


def test_cancellation_and_a_normal_end_pass_through() -> None:
    cancelled = _run(
        """
        async def agent(stream):
            raise asyncio.CancelledError()
        """
    )
    assert cancelled.returncode == 1 and "CancelledError" in cancelled.stderr
    assert "cleanup" in cancelled.stdout
    finished = _run(
        """
        async def agent(stream):
            return None
        """
    )
    assert finished.returncode == 0 and "returned" in finished.stdout
