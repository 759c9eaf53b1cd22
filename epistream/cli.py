"""The ``epistream`` command line: the imperative shell around the embedded runner.

Every command prints readable rich output for people and, with ``--json``,
one JSON document for machines. Commands that change state take
``--request-id`` so a retried call is applied once.
"""

from __future__ import annotations

import contextlib
import json
import sys
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from pydantic import BaseModel, ValidationError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from typer.core import TyperGroup

with contextlib.suppress(ImportError):  # onnxruntime must load before usearch (see sinks/embedded_index.py)
    import onnxruntime  # noqa: F401

from epistream.settings import Settings
from extractors.cli import extract_command
from schemas.commands import (
    ArchiveCommand,
    CommandBase,
    ContradictCommand,
    DeprecateCommand,
    EpistemicTransitionCommand,
    EvaluateConditionCommand,
    PenalizeCommand,
    PromoteCommand,
    ReinforceCommand,
    ResolveContradictionCommand,
)
from schemas.common import ActorRef, ScopeRef
from schemas.enums import (
    ActorType,
    ConditionState,
    EpistemicType,
    EvaluationMethod,
    Scope,
    SignalType,
    TriggerType,
)
from schemas.errors import EpistreamError, ValidationFailed

if TYPE_CHECKING:  # imported where used: the CLI starts without loading retrieval
    from retrieval.models import RetrievalMode

#: ``ctx.meta`` key (shared by every context of one invocation) set by the ``--json`` option.
_JSON_META = "epistream.json_output"


class _TypedErrorGroup(TyperGroup):
    """Reports a typed error from any command as its code and exit status 2, never a traceback.

    Commands that open a backend (``publish`` and ``dlq`` on Kafka, ``rebuild-index`` on
    ClickHouse and OpenSearch, ...) raise ``BackendUnavailable`` when it is down; a chat platform's
    script should branch on the code, in JSON with ``--json``, like every other error.
    """

    def invoke(self, ctx: Any) -> Any:  # typer's vendored click Context, which typer does not export
        try:
            return super().invoke(ctx)
        except EpistreamError as exc:
            _fail(exc, bool(ctx.meta.get(_JSON_META)))
        except ValidationError as exc:  # a request model built from the options refused them
            _fail(_invalid_options(exc), bool(ctx.meta.get(_JSON_META)))


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
    """``streams.faust_app.ROLES`` (kept equal by a test; faust is imported only by the worker command)."""

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


def _settings(data_dir: Path | None) -> Settings:
    settings = Settings()
    if data_dir is not None:
        settings = settings.model_copy(update={"data_dir": data_dir})
    return settings


@contextlib.contextmanager
def _runner(data_dir: Path | None) -> Iterator[Any]:
    """The embedded runner for one command; its typed errors (a locked data directory, a read-only
    distributed runner, ...) reach the user through ``_TypedErrorGroup``."""
    from streams.embedded import EmbeddedRunner

    settings = _settings(data_dir)
    runner = EmbeddedRunner(settings.data_dir, settings)
    try:
        yield runner
    finally:
        runner.close()


def _invalid_options(exc: ValidationError) -> ValidationFailed:
    """What was wrong with which field, never the value given (a query may quote stored memory)."""
    problems = [
        f"{'.'.join(str(part) for part in error['loc']) or 'input'}: {error['msg']}"
        for error in exc.errors(include_input=False, include_url=False)[:5]
    ]
    return ValidationFailed("; ".join(problems), code="invalid_options")


def _fail(exc: EpistreamError, json_output: bool = False) -> None:
    if json_output:
        print(json.dumps({"error": exc.to_dict()}))
    else:
        err_console.print(f"[red]error[/red] [bold]{exc.code}[/bold]: {exc.message}")
    raise typer.Exit(code=2)


def _dump(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [_dump(v) for v in value]
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    return value


def _emit(value: Any, json_output: bool, render: Callable[[], None]) -> None:
    if json_output:
        print(json.dumps(_dump(value), ensure_ascii=False, default=str))
    else:
        render()


def _scope(tenant: str, owner: str, scope: Scope | None, scope_id: str | None) -> ScopeRef | None:
    if scope is None:
        return None
    return ScopeRef(tenant_id=tenant, owner_id=owner, scope=scope, scope_id=scope_id)


def _retrieval_mode(value: str) -> RetrievalMode:
    from retrieval.models import RetrievalMode

    try:
        return RetrievalMode(value.lower())
    except ValueError:
        raise typer.BadParameter("--mode must be default or explicit") from None


def _parse_time(value: str | None, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise typer.BadParameter(f"{name} must be an ISO-8601 time with a timezone") from None
    if parsed.tzinfo is None:
        raise typer.BadParameter(f"{name} must include a timezone")
    return parsed


# ----------------------------------------------------------------------------- ingestion


def _read_lines(file: str) -> tuple[Iterator[bytes], int | None]:
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


@app.command()
def ingest(
    file: Annotated[str, typer.Argument(help="JSON lines of ConversationEvent, or - for stdin.")] = "-",
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Ingest conversation events into the embedded pipeline."""
    lines, total = _read_lines(file)
    with _runner(data_dir) as runner:
        if json_output:
            report = runner.ingest_lines(lines, source=file)
        else:
            with Progress(
                TextColumn("ingesting"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err_console
            ) as bar:
                task = bar.add_task("ingest", total=total)
                report = runner.ingest_lines(lines, source=file, progress=lambda n: bar.advance(task, n))

    def render() -> None:
        table = Table(title="ingestion summary", show_header=False)
        for key in ("received", "events", "duplicates", "dead_letters", "claims", "rejected_claims", "operations"):
            table.add_row(key, str(getattr(report, key)))
        console.print(table)
        for err in report.errors[:20]:
            console.print(f"[yellow]line {err['line']}[/yellow] {err['code']}: {err['message']}")

    _emit(report.as_dict(), json_output, render)
    if report.received and not report.events and not report.duplicates:
        raise typer.Exit(code=1)


app.command("extract")(extract_command)


# ----------------------------------------------------------------------------- reads


def _render_items(response: Any) -> None:
    table = Table(title=f"{response.mode.value} mode · {len(response.items)} items")
    table.add_column("#", justify="right")
    table.add_column("claim")
    table.add_column("type")
    table.add_column("conf", justify="right")
    table.add_column("lifecycle")
    table.add_column("note")
    for i, item in enumerate(response.items, 1):
        label = item.label
        note = []
        if item.conflict_flag:
            note.append("[red]conflict[/red]")
        if label.condition:
            note.append(f"if: {label.condition} ({label.condition_state.value if label.condition_state else '?'})")
        note.extend(f for f in item.flags if f not in ("contested", "conflict"))  # the lifecycle and note say them
        table.add_row(
            str(i),
            claim_line(item.subject, item.predicate, item.object, item.polarity),
            f"{label.epistemic_type.value}/{label.source_type.value}",
            f"{label.confidence:.2f}",
            label.lifecycle.value,
            " ".join(note),
        )
    console.print(table)


@app.command()
def query(
    text: Annotated[str, typer.Argument(help="What to retrieve.")],
    tenant: Tenant,
    owner: Owner,
    scope: ScopeOpt = None,
    scope_id: ScopeIdOpt = None,
    mode: Annotated[
        str, typer.Option(help="default (context for an answer) or explicit (everything, with reasons).")
    ] = "default",
    limit: Annotated[int, typer.Option(min=1, max=200)] = 10,
    token_budget: Annotated[int, typer.Option(help="Token budget of the packed context.")] = 4096,
    at: Annotated[str | None, typer.Option(help="Reference time (ISO, with timezone); default now.")] = None,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Hybrid retrieval with epistemic filtering."""
    from retrieval.models import RetrievalRequest

    request = RetrievalRequest(
        query=text,
        tenant_id=tenant,
        owner_id=owner,
        scope=scope,
        scope_id=scope_id,
        mode=_retrieval_mode(mode),
        limit=limit,
        token_budget=token_budget,
        reference_time=_parse_time(at, "--at") or datetime.now(UTC),
    )
    received_at = datetime.now(UTC)
    with _runner(data_dir) as runner:
        response = runner.retrieve(request)
        if runner.settings.retrieval_receipts:
            response = _record_receipt(runner, request, response, received_at)

    def render() -> None:
        _render_items(response)
        if response.embedding_mismatch:
            console.print("[yellow]embedding model mismatch: lexical results only[/yellow]")
        for ex in response.excluded[:20]:
            console.print(f"[dim]{'kept' if ex.included else 'excluded'} {ex.node_id[:8]}: {ex.reason}[/dim]")
        console.rule("packed context")
        console.print(response.context or "(empty)")

    _emit(response, json_output, render)


def _record_receipt(runner: Any, request: Any, response: Any, received_at: datetime) -> Any:
    """Store the retrieval's receipt before the one-shot process exits; the answer carries its id.

    A receipt that cannot be stored is reported on stderr and the answer still printed: an audit
    record never costs the retrieval it records.
    """
    from retrieval.models import RetrievalReceipt
    from streams.agents import masked_content

    try:
        store = runner.store
        receipt = RetrievalReceipt.of(
            request,
            response,
            actor_id="cli",
            query=request.query if runner.settings.retain_raw_secrets else masked_content(request.query),
            received_at=received_at,
            embedding_model=runner.embedder.model_name,
            embedding_version=runner.embedder.model_version,
            versions={i.node_id: n.version for i in response.items if (n := store.get_node(i.node_id)) is not None},
        )
        runner.log.write_retrievals([receipt])
    except Exception as exc:
        reason = exc.code if isinstance(exc, EpistreamError) else type(exc).__name__
        err_console.print(f"[yellow]retrieval receipt not recorded[/yellow] ({reason})")
        return response
    return response.model_copy(update={"receipt_id": receipt.receipt_id})


@app.command()
def world(
    tenant: Tenant,
    owner: Owner,
    scope: ScopeOpt = None,
    scope_id: ScopeIdOpt = None,
    at: Annotated[str | None, typer.Option(help="Reference time (ISO, with timezone); default now.")] = None,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Facts, conflicts, proposals and stale claims of one owner."""
    with _runner(data_dir) as runner:
        view = runner.world(
            tenant_id=tenant, owner_id=owner, scope=_scope(tenant, owner, scope, scope_id), at=_parse_time(at, "--at")
        )
    _emit(view, json_output, lambda: _render_world(view))


def claim_line(subject: str, predicate: str, obj: str | None, polarity: Any, condition: str | None = None) -> str:
    """``user not likes coffee (if …)``: the claim itself, not the sentence it came from."""
    negative = getattr(polarity, "value", polarity) == "negative"
    text = f"{subject} {'not ' if negative else ''}{predicate} {obj or ''}".strip()
    return f"{text} (if: {condition})" if condition else text


def _render_world(view: Any) -> None:
    def section(title: str, claims: Any) -> None:
        table = Table(title=title)
        table.add_column("claim")
        table.add_column("type")
        table.add_column("conf", justify="right")
        table.add_column("why")
        for c in claims:
            line = claim_line(c.subject, c.predicate, c.object, c.polarity, c.label.condition)
            table.add_row(line, c.label.epistemic_type.value, f"{c.label.confidence:.2f}", c.reason or "")
        console.print(table)

    section("facts", view.facts)
    table = Table(title="conflicts (shown in tie-break order; never two plain facts)")
    table.add_column("subject · predicate")
    table.add_column("sides")
    for conflict in view.conflicts:
        sides = "\n".join(
            f"{'[red]⚑[/red] ' if s.conflict_flag else ''}{claim_line(s.subject, s.predicate, s.object, s.polarity)}"
            f" ({s.label.confidence:.2f}) “{s.content}”"
            for s in conflict.sides
        )
        table.add_row(f"{conflict.subject} · {conflict.predicate}", sides)
    console.print(table)
    section("proposals (inferred / hypothetical / unresolved conditions)", view.proposals)
    section("stale (expired validity or condition)", view.stale)


@app.command()
def provenance(
    node_id: Annotated[str, typer.Argument(help="Node id.")],
    tenant: Tenant,
    owner: Owner,
    cursor: Annotated[str | None, typer.Option(help="Operation page cursor.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000)] = 100,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Why a claim is believed, who said it, how it is known, whether it was challenged, how it changed."""
    with _runner(data_dir) as runner:
        trail = runner.provenance(node_id, tenant_id=tenant, owner_id=owner, cursor=cursor, limit=limit)
    if trail is None:
        _fail(EpistreamError("no such node for this owner", code="node_not_found"), json_output)
    assert trail is not None
    _emit(trail, json_output, lambda: _render_provenance(trail))


def _render_provenance(trail: Any) -> None:
    node = trail.node
    console.print(f"[bold]{node.content}[/bold]")
    console.print(
        f"how known: {node.epistemic_type.value} · source {node.source_type.value} · confidence {node.confidence:.2f}"
        f" · lifecycle {node.lifecycle.value}"
    )
    console.print(f"asserted by: {node.asserted_by.actor_id} ({node.asserted_by.actor_type.value})")
    for event in trail.evidence_events:
        console.print(f"evidence {event['event_id']} ({event['role']}, {event['occurred_at']}): “{event['content']}”")
    if trail.missing_evidence_refs:
        console.print(f"[yellow]missing evidence: {', '.join(trail.missing_evidence_refs)}[/yellow]")
    for edge in trail.contradiction_edges:
        console.print(
            f"[red]challenged[/red]: contradicts {edge.target_id if edge.source_id == node.node_id else edge.source_id}"
        )
    table = Table(title="history")
    table.add_column("when")
    table.add_column("operation")
    table.add_column("by")
    for op in trail.operations:
        table.add_row(str(op.created_at), op.op_type, op.actor_id)
    console.print(table)


@app.command()
def state(
    tenant: Tenant,
    owner: Owner,
    subject: Annotated[str, typer.Option(help="Subject, e.g. user.")],
    predicate: Annotated[str, typer.Option(help="Predicate, e.g. lives_in.")],
    valid_at: Annotated[str | None, typer.Option(help="When in the world (ISO, timezone); default now.")] = None,
    knowledge_at: Annotated[str | None, typer.Option(help="Knowledge cutoff (ISO, timezone).")] = None,
    scope: ScopeOpt = None,
    scope_id: ScopeIdOpt = None,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Assertion state of (subject, predicate): unknown, single, consistent, multiple or contested."""
    with _runner(data_dir) as runner:
        result = runner.assertion(
            tenant_id=tenant,
            owner_id=owner,
            subject=subject,
            predicate=predicate,
            valid_at=_parse_time(valid_at, "--valid-at") or datetime.now(UTC),
            knowledge_at=_parse_time(knowledge_at, "--knowledge-at"),
            scope=_scope(tenant, owner, scope, scope_id),
        )

    def render() -> None:
        console.print(f"[bold]{subject} · {predicate}[/bold]: {result.status}")
        for value in result.current_values:
            console.print(f"  {value.object} ({value.polarity}) × {value.candidate_count}")
        for reason, count in result.exclusions.items():
            console.print(f"  [dim]excluded {count}: {reason}[/dim]")

    _emit(result, json_output, render)


@app.command()
def replay(
    verify: Annotated[bool, typer.Option("--verify", help="Rebuild state from the log and compare.")] = True,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Rebuild state from the operation log alone and report any difference from live state."""
    with _runner(data_dir) as runner:
        differences = runner.verify_replay() if verify else []
        nodes = len(runner.store)
    result = {"nodes": nodes, "identical": not differences, "differences": differences}

    def render() -> None:
        if differences:
            console.print(f"[red]{len(differences)} differences[/red]")
            for d in differences:
                console.print(f"  {d}")
        else:
            console.print(f"[green]replay identical[/green]: {nodes} nodes rebuilt from the operation log")

    _emit(result, json_output, render)
    if differences:
        raise typer.Exit(code=1)


@app.command()
def stats(
    tenant: Annotated[str | None, typer.Option("--tenant")] = None,
    owner: Annotated[str | None, typer.Option("--owner")] = None,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Operation-log analytics (SQL on the ClickHouse tables)."""
    with _runner(data_dir) as runner:
        result = runner.stats(tenant, owner)

    def render() -> None:
        from epistream.stats_view import render_stats

        render_stats(console, result)

    _emit(result, json_output, render)


@app.command()
def sql(
    query: Annotated[str, typer.Argument(help="A read-only ClickHouse SQL statement; '-' reads it from stdin.")],
    max_rows: Annotated[int, typer.Option("--max-rows", min=1, max=1_000_000)] = 1000,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Ad-hoc SQL on the operation log tables (operations, raw_events, node_snapshots, ...); reads only."""
    from sinks.clickhouse import OperationLog
    from streams.embedded import DataDirLock

    text = sys.stdin.read() if query == "-" else query
    settings = _settings(data_dir)
    lock = DataDirLock(settings.data_dir)
    try:
        if not settings.clickhouse_url:
            lock.acquire()  # chDB in the data directory: one process at a time
        # EPISTREAM_CLICKHOUSE_URL points at the server a distributed deployment writes to; an analyst's
        # account there may be read-only, so migrations run only on the data directory's own chDB.
        log = OperationLog.connect(
            settings.clickhouse_url, path=settings.data_dir, run_migrations=not settings.clickhouse_url
        )
        try:
            result = log.read_only_query(text, max_rows=max_rows)
        finally:
            log.close()
    finally:
        lock.release()

    def render() -> None:
        table = Table(*result.columns)
        for row in result.rows:
            table.add_row(*(str(v) for v in row))
        console.print(table)
        more = " (truncated: raise --max-rows)" if result.truncated else ""
        console.print(f"{len(result.rows)} row(s){more}")

    _emit(result._asdict(), json_output, render)


# ----------------------------------------------------------------------------- commands

RequestId = Annotated[str | None, typer.Option("--request-id", help="UUID; a retry with the same id is applied once.")]
Actor = Annotated[str, typer.Option("--actor", help="Who is acting.")]
Reason = Annotated[str | None, typer.Option("--reason")]
Evidence = Annotated[list[str] | None, typer.Option("--evidence", help="Evidence event id (repeatable).")]


def _submit(
    data_dir: Path | None,
    json_output: bool,
    build: Callable[[ScopeRef, dict[str, Any]], CommandBase],
    node_ids: list[str],
    tenant: str,
    request_id: str | None,
    actor: str,
    reason: str | None,
    evidence: list[str] | None,
) -> None:
    with _runner(data_dir) as runner:
        target = runner.node(node_ids[0], tenant_id=tenant)
        if target is None:
            _fail(EpistreamError("no such node in this tenant", code="node_not_found"), json_output)
        assert target is not None
        base: dict[str, Any] = {
            "command_id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"epistream:cli:{request_id}"))
            if request_id
            else str(uuid.uuid4()),
            "request_id": request_id,
            "actor": ActorRef(actor_id=actor, actor_type=ActorType.HUMAN_USER),
            "issued_at": datetime.now(UTC),
            "reason": reason,
            "evidence_ids": tuple(evidence or ()),
        }
        try:
            command = build(target.scope_ref(), base)
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

    _emit(outcome, json_output, render)
    if outcome.status == "rejected":
        raise typer.Exit(code=1)


def _scoped(scope: ScopeRef, base: dict[str, Any]) -> dict[str, Any]:
    return {**scope.model_dump(), **base}


@app.command()
def reinforce(
    node_id: str,
    tenant: Tenant,
    signal: Annotated[SignalType, typer.Option(case_sensitive=False)] = SignalType.CONFIRMED,
    session: Annotated[str | None, typer.Option("--session")] = None,
    request_id: RequestId = None,
    actor: Actor = "cli",
    reason: Reason = None,
    evidence: Evidence = None,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Apply a positive signal (CONFIRMED, REFERENCED, ...)."""
    _submit(
        data_dir, json_output,
        lambda s, b: ReinforceCommand(**_scoped(s, b), node_id=node_id, signal=signal, session_id=session),
        [node_id], tenant, request_id, actor, reason, evidence,
    )  # fmt: skip


@app.command()
def penalize(
    node_id: str,
    tenant: Tenant,
    signal: Annotated[SignalType, typer.Option(case_sensitive=False)] = SignalType.CORRECTED,
    session: Annotated[str | None, typer.Option("--session")] = None,
    request_id: RequestId = None,
    actor: Actor = "cli",
    reason: Reason = None,
    evidence: Evidence = None,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Apply a negative signal (CORRECTED, CONTRADICTED_BY_OBSERVATION, ...)."""
    _submit(
        data_dir, json_output,
        lambda s, b: PenalizeCommand(**_scoped(s, b), node_id=node_id, signal=signal, session_id=session),
        [node_id], tenant, request_id, actor, reason, evidence,
    )  # fmt: skip


@app.command()
def contradict(
    node_a: str,
    node_b: str,
    tenant: Tenant,
    request_id: RequestId = None,
    actor: Actor = "cli",
    reason: Reason = None,
    evidence: Evidence = None,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Record that two claims contradict each other (both become CONTESTED)."""
    _submit(
        data_dir, json_output,
        lambda s, b: ContradictCommand(**_scoped(s, b), node_a=node_a, node_b=node_b, description=reason),
        [node_a, node_b], tenant, request_id, actor, reason, evidence,
    )  # fmt: skip


@app.command()
def resolve(
    winner: str,
    loser: str,
    tenant: Tenant,
    request_id: RequestId = None,
    actor: Actor = "cli",
    reason: Reason = None,
    evidence: Evidence = None,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Resolve a contradiction explicitly: the winner becomes STABLE, the loser DEPRECATED."""
    _submit(
        data_dir, json_output,
        lambda s, b: ResolveContradictionCommand(**_scoped(s, b), winner_id=winner, loser_id=loser),
        [winner, loser], tenant, request_id, actor, reason, evidence,
    )  # fmt: skip


@app.command()
def condition(
    node_id: str,
    tenant: Tenant,
    state_value: Annotated[ConditionState, typer.Option("--state", case_sensitive=False)],
    method: Annotated[EvaluationMethod, typer.Option(case_sensitive=False)] = EvaluationMethod.USER,
    request_id: RequestId = None,
    actor: Actor = "cli",
    reason: Reason = None,
    evidence: Evidence = None,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Evaluate a CONDITIONAL claim's condition (UNKNOWN, TRUE, FALSE, EXPIRED)."""
    _submit(
        data_dir, json_output,
        lambda s, b: EvaluateConditionCommand(**_scoped(s, b), node_id=node_id, state=state_value, method=method),
        [node_id], tenant, request_id, actor, reason, evidence,
    )  # fmt: skip


@app.command()
def transition(
    node_id: str,
    tenant: Tenant,
    to: Annotated[EpistemicType, typer.Option("--to", case_sensitive=False)],
    trigger: Annotated[TriggerType, typer.Option(case_sensitive=False)] = TriggerType.USER_CORRECTION,
    request_id: RequestId = None,
    actor: Actor = "cli",
    reason: Reason = None,
    evidence: Evidence = None,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Change how a claim is known (e.g. HYPOTHETICAL → ASSERTED); forbidden moves are rejected."""
    _submit(
        data_dir, json_output,
        lambda s, b: EpistemicTransitionCommand(**_scoped(s, b), node_id=node_id, to_type=to, trigger_type=trigger),
        [node_id], tenant, request_id, actor, reason, evidence,
    )  # fmt: skip


def _lifecycle_command(
    name: str, model: type[PromoteCommand | ArchiveCommand | DeprecateCommand], help_text: str
) -> None:
    def command(
        node_id: str,
        tenant: Tenant,
        request_id: RequestId = None,
        actor: Actor = "cli",
        reason: Reason = None,
        evidence: Evidence = None,
        data_dir: DataDir = None,
        json_output: JsonOut = False,
    ) -> None:
        _submit(
            data_dir, json_output,
            lambda s, b: model(**_scoped(s, b), node_id=node_id),
            [node_id], tenant, request_id, actor, reason, evidence,
        )  # fmt: skip

    command.__doc__ = help_text
    app.command(name)(command)


_lifecycle_command("promote", PromoteCommand, "Promote a claim to STABLE.")
_lifecycle_command("archive", ArchiveCommand, "Archive a claim (final).")
_lifecycle_command("deprecate", DeprecateCommand, "Deprecate a claim (known wrong or replaced).")


@app.command()
def demo(
    data_dir: Annotated[Path, typer.Option("--data-dir", help="Fresh directory for the demo.")] = Path(
        ".epistream-demo"
    ),
    embedder: Annotated[str, typer.Option(help="minilm (default) or hash (no model).")] = "minilm",
    json_output: JsonOut = False,
) -> None:
    """Ingest the bundled conversations into a fresh data directory and show what epistream made of them."""
    from epistream.demo_run import run_demo

    run_demo(data_dir, embedder=embedder, json_output=json_output, console=console)


@app.command()
def migrate(data_dir: DataDir = None, json_output: JsonOut = False) -> None:
    """Apply ClickHouse migrations (server if EPISTREAM_CLICKHOUSE_URL is set, else chDB) and the OpenSearch index."""
    from sinks.clickhouse import OperationLog
    from sinks.clickhouse_schema import MIGRATIONS

    settings = _settings(data_dir)
    result: dict[str, Any] = {}
    log = OperationLog.connect(settings.clickhouse_url, path=settings.data_dir, run_migrations=False)
    try:
        result["clickhouse_applied"] = log.migrate()
    finally:
        log.close()
    if settings.opensearch_url:
        from sinks.opensearch_client import as_client
        from sinks.opensearch_mapping import ensure_index

        embedder = _embedder(settings)
        result["opensearch_index"] = ensure_index(
            as_client(settings.opensearch_url),
            alias=settings.opensearch_index,
            dimension=embedder.dimension,
            embedding_model=embedder.model_name,
            embedding_model_version=embedder.model_version,
            refresh_interval=settings.opensearch_refresh_interval,
        )

    def render() -> None:
        applied = result["clickhouse_applied"]
        latest = MIGRATIONS[-1].id
        console.print(
            f"ClickHouse: applied migrations {', '.join(map(str, applied))}; schema at version {latest}"
            if applied
            else f"ClickHouse: up to date (schema version {latest})"
        )
        if "opensearch_index" in result:
            console.print(f"OpenSearch: alias {settings.opensearch_index} -> index {result['opensearch_index']}")

    _emit(result, json_output, render)


def _embedder(settings: Settings) -> Any:
    from sinks.embedding import default_embedder

    return default_embedder(settings.embedder)


@app.command()
def api(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8080,
    data_dir: DataDir = None,
) -> None:
    """Serve the retrieval API (needs EPISTREAM_API_KEYS_FILE: hashed bearer keys bound to tenants)."""
    from retrieval.api.app import serve

    serve(_settings(data_dir), host=host, port=port)


@app.command("api-key")
def api_key(
    key_id: Annotated[str, typer.Option("--id", help="Name of the key (becomes the acting actor id).")],
    tenant: Tenant,
    permission: Annotated[list[str], typer.Option("--permission", help="read, write, assert, deprecate, admin")],
    owner: Annotated[list[str] | None, typer.Option("--owner", help="Restrict to these owners (repeatable).")] = None,
) -> None:
    """Generate a new API key: prints the secret once and the hashed entry for the keys file."""
    from retrieval.api.auth import generate_key, hash_key_sha256

    secret = generate_key()
    entry: dict[str, Any] = {
        "id": key_id,
        "tenant_id": tenant,
        "permissions": permission,
        "sha256": hash_key_sha256(secret),
    }
    if owner:
        entry["owners"] = owner
    print(json.dumps({"api_key": secret, "keys_file_entry": entry}, indent=2))


# ----------------------------------------------------------------------------- distributed mode


@app.command()
def worker(
    data_dir: DataDir = None,
    loglevel: Annotated[str, typer.Option(help="faust log level.")] = "warning",
    role: Annotated[
        WorkerRole,
        typer.Option(
            help="Agents to run: all; core (extract, materialize, dead letters); index (the OpenSearch sink alone, "
            "consumer group epistream-index), so indexing can scale in processes of its own."
        ),
    ] = WorkerRole.ALL,
) -> None:
    """Run the stream agents on Kafka (extract, materialize, ClickHouse and OpenSearch sinks) until stopped."""
    from streams.faust_app import WorkerOptions, run_worker

    settings = _settings(data_dir)
    run_worker(
        settings,
        data_dir=settings.data_dir,
        opensearch_url=settings.opensearch_url,
        options=WorkerOptions(
            topic_prefix=settings.kafka_topic_prefix, index_alias=settings.opensearch_index, role=role.value
        ),
        loglevel=loglevel,
    )


@app.command()
def publish(
    file: Annotated[str, typer.Argument(help="JSON lines of ConversationEvent, or - for stdin.")] = "-",
    bootstrap: Annotated[str | None, typer.Option(help="Kafka bootstrap servers (default: settings).")] = None,
    topic: Annotated[
        str | None, typer.Option(help="Input topic (default: conversation.events with EPISTREAM_KAFKA_TOPIC_PREFIX).")
    ] = None,
    json_output: JsonOut = False,
) -> None:
    """Validate events and publish them to Kafka (idempotent producer, key = tenant/owner/scope)."""
    from streams.publisher import publish_lines

    settings = Settings()
    lines, _ = _read_lines(file)
    events_topic = topic or _deployment_topics(settings).events
    report = publish_lines(
        lines, bootstrap or settings.kafka_bootstrap, events_topic, max_content_bytes=settings.max_content_bytes
    )
    _report_published(report, json_output)


def _deployment_topics(settings: Settings) -> Any:
    """The deployment's topic names: the workers' prefix (EPISTREAM_KAFKA_TOPIC_PREFIX) applies here too."""
    from streams import topics

    return topics.Topics(prefix=settings.kafka_topic_prefix, partitions=settings.partitions)


def _report_published(report: Any, json_output: bool) -> None:
    """What ``publish`` and ``dlq replay`` say: events sent, lines refused (first 20, with codes)."""
    result = report.to_dict()

    def render() -> None:
        console.print(f"sent {report.sent} events; {len(report.errors)} refused")
        for err in report.errors[:20]:
            console.print(f"[yellow]line {err.line}[/yellow] {err.code}: {err.message}")

    _emit(result, json_output, render)
    if report.errors and not report.sent:
        raise typer.Exit(code=1)


dlq_app = typer.Typer(help="Inspect and re-drive dead letters (bad input kept with its original bytes).")
app.add_typer(dlq_app, name="dlq")


@dlq_app.command("list")
def dlq_list_command(
    bootstrap: Annotated[str | None, typer.Option(help="Kafka bootstrap servers (default: settings).")] = None,
    limit: Annotated[int, typer.Option(min=1)] = 100,
    json_output: JsonOut = False,
) -> None:
    """Dead letters on the DLQ topics: where each came from, the reason code, the original bytes."""
    import base64

    from streams.faust_app import dlq_list

    settings = Settings()
    records = dlq_list(
        bootstrap or settings.kafka_bootstrap, _deployment_topics(settings), limit=limit
    )
    rows = [
        {
            "topic": r.topic,
            "partition": r.partition,
            "offset": r.offset,
            "source": r.letter.source,
            "reason_code": r.letter.reason_code,
            "message": r.letter.message,
            "original_b64": base64.b64encode(r.letter.original_bytes).decode("ascii"),
        }
        for r in records
    ]

    def render() -> None:
        table = Table(title=f"{len(rows)} dead letters")
        for col in ("topic", "partition", "offset", "reason_code", "message"):
            table.add_column(col)
        for row in rows:
            table.add_row(*(str(row[c]) for c in ("topic", "partition", "offset", "reason_code", "message")))
        console.print(table)

    _emit(rows, json_output, render)


@dlq_app.command("replay")
def dlq_replay_command(
    file: Annotated[str, typer.Argument(help="Fixed events (JSON lines), or - for stdin.")] = "-",
    bootstrap: Annotated[str | None, typer.Option(help="Kafka bootstrap servers (default: settings).")] = None,
    json_output: JsonOut = False,
) -> None:
    """Re-drive fixed events; still-broken lines are reported, not looped back into the DLQ."""
    from streams.faust_app import dlq_replay

    settings = Settings()
    lines, _ = _read_lines(file)
    report = dlq_replay(lines, bootstrap or settings.kafka_bootstrap, _deployment_topics(settings))
    _report_published(report, json_output)


@app.command()
def lag(
    app_id: Annotated[str, typer.Option(help="The workers' app id (their consumer group).")] = "epistream",
    bootstrap: Annotated[str | None, typer.Option(help="Kafka bootstrap servers (default: settings).")] = None,
    fail_above: Annotated[
        int | None,
        typer.Option(min=0, help="Exit 1 when a stage has more uncommitted records than this (health checks)."),
    ] = None,
    json_output: JsonOut = False,
) -> None:
    """Records each stage (extract, materialize, index, dead letters) has not finished, and its group's members."""
    import asyncio

    from streams.lag import pipeline_lag

    settings = Settings()
    stages, groups = asyncio.run(
        pipeline_lag(bootstrap or settings.kafka_bootstrap, _deployment_topics(settings), app_id)
    )
    over = [s.stage for s in stages if fail_above is not None and s.lag > fail_above]
    result = {
        "stages": [s.as_dict() for s in stages],
        "groups": [{"group": g.group, "state": g.state, "members": g.members} for g in groups],
        "over_limit": over,
    }

    def render() -> None:
        table = Table(title=f"consumer lag of {app_id}")
        for col in ("stage", "group", "lag", "records", "lagging partitions"):
            table.add_column(col)
        for s in stages:
            worst = sorted(s.lagging_partitions.items(), key=lambda kv: -kv[1])[:3]
            more = len(s.lagging_partitions) - len(worst)
            shown = ", ".join(f"{tp}: {n}" for tp, n in worst) + (f" (+{more})" if more > 0 else "")
            table.add_row(s.stage, s.group, f"{s.lag:,}", f"{s.records:,}", shown)
        console.print(table)
        for g in groups:
            console.print(f"group {g.group}: {g.state}, {g.members} member(s)")
        if over:
            err_console.print(f"[red]over {fail_above}[/red]: {', '.join(over)}")

    _emit(result, json_output, render)
    if over:
        raise typer.Exit(code=1)


@app.command("rebuild-index")
def rebuild_index(data_dir: DataDir = None, json_output: JsonOut = False) -> None:
    """Rebuild the OpenSearch index from the ClickHouse node snapshots (external versions keep it safe live)."""
    from sinks.clickhouse import OperationLog
    from sinks.opensearch_index import OpenSearchIndex, UpsertReport, rebuild_from_snapshots

    settings = _settings(data_dir)
    if not settings.opensearch_url:
        _fail(EpistreamError("EPISTREAM_OPENSEARCH_URL is not set", code="no_opensearch"), json_output)
    assert settings.opensearch_url is not None
    log = OperationLog.connect(settings.clickhouse_url, path=settings.data_dir)
    try:
        index = OpenSearchIndex.from_settings(settings, _embedder(settings))
        report = rebuild_from_snapshots(index, log.latest_node_snapshots())
    finally:
        log.close()
    # Documents OpenSearch refused for good (e.g. the alias points at an index with another mapping):
    # count, first ids and error types, never content. Nothing else is held back by them.
    result: dict[str, Any] = {"received": report.received, "written": report.written, "stale": report.stale}
    result["rejected"] = UpsertReport.summary(report.rejected)

    def render() -> None:
        console.print(
            f"{report.received} node snapshots read; {report.written} documents written, "
            f"{report.stale} already current in the index"
        )
        refused = result["rejected"]
        if refused["count"]:
            console.print(
                f"[yellow]{refused['count']} refused by OpenSearch[/yellow] ({', '.join(refused['error_types'])}); "
                f"first ids: {', '.join(refused['node_ids'])}"
            )

    _emit(result, json_output, render)


def main() -> None:
    """The console script: ingestion and serving commands run with the pipeline's GC tuning."""
    from epistream.runtime import tune_gc_for_throughput

    tune_gc_for_throughput()
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
