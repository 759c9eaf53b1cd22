"""One owner per data directory: the lock every process that opens a chDB store takes first.

chDB is an engine inside the process that opens it, so a data directory's store can be read or
written by one process at a time. A second process used to find out late and badly: a stream
worker started on a directory another worker used retried its first write forever, and ``epistream
sql`` beside a running worker failed with the engine's own lock error. Taking this lock first turns
both into an immediate, typed refusal (``data_dir_locked``) that names the owner and says what to
do instead.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import IO, Any

from schemas.errors import DataDirLocked

#: What to do when the directory is busy, by the kind of process that holds it.
_REMEDY = {
    "worker": (
        "a stream worker owns this chDB store; only that process can read it. Stop the worker first, "
        "give each worker its own EPISTREAM_WORKER_DATA_DIR, or run the deployment on a ClickHouse "
        "server (EPISTREAM_CLICKHOUSE_URL), which every process can query while the workers run"
    ),
}
_DEFAULT_REMEDY = "stop that process first, or point this command at another data directory (--data-dir)"


class DataDirLock:
    """An exclusive, non-blocking lock on ``<data_dir>/LOCK``; its file says who holds it."""

    def __init__(self, data_dir: str | os.PathLike[str], *, owner: str = "epistream") -> None:
        self.path = Path(data_dir) / "LOCK"
        self.owner = owner
        self._fh: IO[str] | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+")  # noqa: SIM115 - held for the owner's lifetime
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = _holder(fh.read())
            fh.close()
            kind = str(holder.get("process", "epistream"))
            pid = holder.get("pid")
            who = f"an epistream {kind} (pid {pid})" if pid else "another epistream process"
            raise DataDirLocked(
                f"data directory {self.path.parent} is in use by {who}: {_REMEDY.get(kind, _DEFAULT_REMEDY)}",
                path=str(self.path.parent),
                holder=kind,
                pid=pid,
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(json.dumps({"pid": os.getpid(), "process": self.owner}))
        fh.flush()
        self._fh = fh

    def release(self) -> None:
        if self._fh is not None:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None

    def __enter__(self) -> DataDirLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _holder(text: str) -> dict[str, Any]:
    """Who wrote the lock file: ``{"pid", "process"}``, or a bare pid (older versions)."""
    text = text.strip()
    if text.isdigit():
        return {"pid": int(text)}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
