"""What every command shares: the typer app, its option types, settings, the runner, output and errors.

Every command prints readable rich output for people and, with ``--json``, one JSON document
for machines; a typed error becomes its code and exit status 2, never a traceback.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from pydantic import BaseModel, ValidationError
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from epistream.config import load_settings
from schemas.common import ScopeRef
from schemas.enums import Scope
from schemas.errors import EpistreamError, ValidationFailed
from schemas.extras import missing_extra
from schemas.settings import Settings

if TYPE_CHECKING:  # imported where used: the CLI starts without loading retrieval
    from schemas.retrieval import RetrievalMode


_JSON_META = "epistream.json_output"


class _TypedErrorGroup(TyperGroup):
    """Reports a typed error from any command as its code and exit status 2, never a traceback.

    A command that needs an extra that is not installed (``worker`` without ``[kafka]``, an
    OpenSearch URL without ``[opensearch]``, ...) ends with ``missing_extra`` and the one line that
    names it (``schemas/extras.py``).

    Commands that open a backend (``publish`` and ``dlq`` on Kafka, ``rebuild-index`` on
    ClickHouse and OpenSearch, ...) raise ``BackendUnavailable`` when it is down; a chat platform's
    script should branch on the code, in JSON with ``--json``, like every other error.
    """

    def invoke(self, ctx: Any) -> Any:  # typer's vendored click Context, which typer does not export
        try:
            return super().invoke(ctx)
        except EpistreamError as exc:
            fail(exc, bool(ctx.meta.get(_JSON_META)))
        except ValidationError as exc:  # a request model built from the options refused them
            fail(invalid_options(exc), bool(ctx.meta.get(_JSON_META)))
        except ModuleNotFoundError as exc:  # an optional part that is not installed: say which extra, in one line
            typed = missing_extra(exc)
            if typed is None:
                raise
            fail(typed, bool(ctx.meta.get(_JSON_META)))


def _remember_json(ctx: typer.Context, value: bool) -> bool:
    ctx.meta[_JSON_META] = value
    return value


app = typer.Typer(
    cls=_TypedErrorGroup,
    add_completion=False,
    no_args_is_help=True,
    help="epistream: epistemically typed, cited, contradiction-aware memory for AI assistants.",
)


console = Console()


err_console = Console(stderr=True)


class WorkerRole(StrEnum):
    """``streams.worker.options.ROLES`` (kept equal by a test; faust is imported only by the worker command)."""

    ALL = "all"
    CORE = "core"
    INDEX = "index"


DataDir = Annotated[
    Path | None, typer.Option("--data-dir", help="Data directory (default: $EPISTREAM_DATA_DIR or ./.epistream).")
]


JsonOut = Annotated[
    bool, typer.Option("--json", help="Print one JSON document for machines.", callback=_remember_json)
]


Tenant = Annotated[str, typer.Option("--tenant", help="Tenant id.")]


Owner = Annotated[str, typer.Option("--owner", help="Owner id (whose memory).")]


ScopeOpt = Annotated[Scope | None, typer.Option("--scope", case_sensitive=False, help="Scope to restrict to.")]


ScopeIdOpt = Annotated[str | None, typer.Option("--scope-id", help="Scope id (e.g. a project id).")]


def settings_for(data_dir: Path | None) -> Settings:
    return load_settings(data_dir)


@contextlib.contextmanager
def runner_for(data_dir: Path | None, **options: Any) -> Iterator[Any]:
    """The embedded runner for one command; its typed errors (a locked data directory, a read-only
    distributed runner, ...) reach the user through ``_TypedErrorGroup``."""
    from epistream.runner import EmbeddedRunner

    settings = settings_for(data_dir)
    runner = EmbeddedRunner(settings.data_dir, settings, **options)
    try:
        yield runner
    finally:
        runner.close()


@contextlib.contextmanager
def log_for(settings: Settings, data_dir: Path | None = None, *, run_migrations: bool = True) -> Iterator[Any]:
    """The operation log a command reads: the ClickHouse server (``EPISTREAM_CLICKHOUSE_URL``), usable
    while the workers run, or the chDB store of a data directory, which only one process can hold: a
    directory a worker (or another command) holds is refused at once with who holds it and what to do
    (``data_dir_locked``), never the engine's own lock error."""
    from sinks.clickhouse import OperationLog
    from sinks.data_dir import DataDirLock

    path = data_dir if data_dir is not None else settings.data_dir
    lock = DataDirLock(path)
    if not settings.clickhouse_url:
        lock.acquire()
    try:
        log = OperationLog.connect(settings.clickhouse_url, path=path, run_migrations=run_migrations)
        try:
            yield log
        finally:
            log.close()
    finally:
        lock.release()


def invalid_options(exc: ValidationError) -> ValidationFailed:
    """What was wrong with which field, never the value given (a query may quote stored memory)."""
    problems = [
        f"{'.'.join(str(part) for part in error['loc']) or 'input'}: {error['msg']}"
        for error in exc.errors(include_input=False, include_url=False)[:5]
    ]
    return ValidationFailed("; ".join(problems), code="invalid_options")


def fail(exc: EpistreamError, json_output: bool = False) -> None:
    if json_output:
        print(json.dumps({"error": exc.to_dict()}))
    else:
        # One line, never wrapped, and the message's own brackets are text, not markup ("epistream[kafka]").
        err_console.print(f"[red]error[/red] [bold]{exc.code}[/bold]: {escape(exc.message)}", soft_wrap=True)
    raise typer.Exit(code=2)


def dump(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [dump(v) for v in value]
    if isinstance(value, dict):
        return {k: dump(v) for k, v in value.items()}
    return value


def emit(value: Any, json_output: bool, render: Callable[[], None]) -> None:
    if json_output:
        print(json.dumps(dump(value), ensure_ascii=False, default=str))
    else:
        render()


def scope_ref(tenant: str, owner: str, scope: Scope | None, scope_id: str | None) -> ScopeRef | None:
    if scope is None:
        return None
    return ScopeRef(tenant_id=tenant, owner_id=owner, scope=scope, scope_id=scope_id)


def retrieval_mode(value: str) -> RetrievalMode:
    from schemas.retrieval import RetrievalMode

    try:
        return RetrievalMode(value.lower())
    except ValueError:
        raise typer.BadParameter("--mode must be default or explicit") from None


def parse_time(value: str | None, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise typer.BadParameter(f"{name} must be an ISO-8601 time with a timezone") from None
    if parsed.tzinfo is None:
        raise typer.BadParameter(f"{name} must include a timezone")
    return parsed


def read_lines(file: str) -> tuple[Iterator[bytes], int | None]:
    """Lines are streamed (bounded memory); a file is counted first so the progress bar has a total."""
    if file == "-":
        return iter(sys.stdin.buffer), None
    path = Path(file)
    if not path.exists():
        raise typer.BadParameter(f"no such file: {file}")
    with path.open("rb") as fh:
        total = sum(1 for _ in fh)

    def lines() -> Iterator[bytes]:
        with path.open("rb") as fh:
            for line in fh:
                yield line.rstrip(b"\r\n")

    return lines(), total

