"""The explicit state-changing commands, generated from the one registry (``schemas.commands.COMMANDS``).

Each registered command becomes ``epistream <name> NODE… --tenant T`` with an option per field the
command adds (``--signal``, ``--state``, ``--to``…) and the options every command shares
(``--request-id`` makes a retry safe, ``--actor``, ``--reason``, ``--evidence``, ``--session``).
"""

from __future__ import annotations

import inspect
import uuid
from datetime import datetime
from enum import Enum
from typing import Annotated, Any

import typer

from epistream.cli.common import DataDir, JsonOut, Tenant, app, console, emit, fail, runner_for
from epistream.clock import now
from schemas.commands import COMMANDS, CommandSpec
from schemas.common import ActorRef
from schemas.enums import ActorType
from schemas.errors import EpistreamError

RequestId = Annotated[str | None, typer.Option("--request-id", help="UUID; a retry with the same id is applied once.")]
Actor = Annotated[str, typer.Option("--actor", help="Who is acting.")]
Reason = Annotated[str | None, typer.Option("--reason", help="Why (journaled with the operation).")]
Evidence = Annotated[list[str] | None, typer.Option("--evidence", help="Evidence event id (repeatable).")]
Session = Annotated[str | None, typer.Option("--session", help="Session id (per-session reinforcement cap).")]

#: Options every command takes after its own: (name, annotation, default).
_SHARED: tuple[tuple[str, Any, Any], ...] = (
    ("request_id", RequestId, None),
    ("actor", Actor, "cli"),
    ("reason", Reason, None),
    ("evidence", Evidence, None),
    ("session", Session, None),
    ("data_dir", DataDir, None),
    ("json_output", JsonOut, False),
)


def submit(spec: CommandSpec, values: dict[str, Any]) -> None:
    """Build the command against the first target's owner and scope, apply it, print its outcome."""
    json_output = bool(values.pop("json_output"))
    request_id = values.pop("request_id")
    targets = {name: values.pop(name) for name in spec.targets}
    tenant = values.pop("tenant")
    common: dict[str, Any] = {
        "command_id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"epistream:cli:{request_id}"))
        if request_id
        else str(uuid.uuid4()),
        "request_id": request_id,
        "actor": ActorRef(actor_id=values.pop("actor"), actor_type=ActorType.HUMAN_USER),
        "issued_at": now(),
        "reason": values.pop("reason"),
        "evidence_ids": tuple(values.pop("evidence") or ()),
        "session_id": values.pop("session"),
    }
    with runner_for(values.pop("data_dir")) as runner:
        target = runner.node(targets[spec.targets[0]], tenant_id=tenant)
        if target is None:
            fail(EpistreamError("no such node in this tenant", code="node_not_found"), json_output)
        assert target is not None
        try:
            command = spec.model(**target.scope_ref().model_dump(), **common, **targets, **values)
        except ValueError as exc:
            raise typer.BadParameter(str(exc).splitlines()[0]) from None
        result = runner.submit(command)
    outcome = result.outcome

    def render() -> None:
        colour = {"applied": "green", "duplicate": "yellow", "rejected": "red"}[outcome.status]
        console.print(f"[{colour}]{outcome.status}[/{colour}]" + (" (retry)" if outcome.retried else ""))
        if outcome.error_code:
            console.print(f"{outcome.error_code}: {outcome.error_message}")
        for op in result.operations:
            console.print(f"  {op.op_type.value} → {op.target_id}")

    emit(outcome, json_output, render)
    if outcome.status == "rejected":
        raise typer.Exit(code=1)


def _field_option(spec: CommandSpec, name: str) -> inspect.Parameter:
    field = spec.model.model_fields[name]
    annotation = field.annotation
    enum = isinstance(annotation, type) and issubclass(annotation, Enum)
    flag = spec.option_name(name)
    option = typer.Option(flag, case_sensitive=False) if enum else typer.Option(flag)
    if annotation is datetime or annotation == datetime | None:
        # typer's own datetime formats have no UTC offset; the command's model reads ISO-8601 with one
        annotation = str if annotation is datetime else str | None
        option = typer.Option(flag, help="ISO-8601 time with a timezone, e.g. 2026-06-01T09:00:00+00:00.")
    default = inspect.Parameter.empty if field.is_required() else field.default
    annotated = Annotated[annotation, option]  # type: ignore[valid-type]
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotated, default=default)


def _register(spec: CommandSpec) -> None:
    params = [
        inspect.Parameter(t, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Annotated[str, typer.Argument()])
        for t in spec.targets
    ]
    params.append(inspect.Parameter("tenant", inspect.Parameter.KEYWORD_ONLY, annotation=Tenant))
    params.extend(_field_option(spec, name) for name in spec.own_fields())
    params.extend(
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)
        for name, annotation, default in _SHARED
    )

    def command(*args: str, **values: Any) -> None:
        values.update(zip(spec.targets, args, strict=False))
        submit(spec, values)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    command.__doc__ = spec.summary
    command.__name__ = spec.name
    app.command(spec.name)(command)


for _spec in COMMANDS:
    _register(_spec)
