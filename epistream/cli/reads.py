"""Commands that feed and read memory: ingest, extract, query, world, provenance, state, replay, stats, sql."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from epistream.cli.common import (
    DataDir,
    JsonOut,
    Owner,
    ScopeIdOpt,
    ScopeOpt,
    Tenant,
    app,
    console,
    emit,
    err_console,
    fail,
    log_for,
    parse_time,
    read_lines,
    retrieval_mode,
    runner_for,
    scope_ref,
    settings_for,
)
from epistream.cli.extract import extract_command
from epistream.cli.render import render_items, render_provenance, render_world
from epistream.clock import now
from schemas.errors import EpistreamError


@app.command()
def ingest(
    file: Annotated[str, typer.Argument(help="JSON lines of ConversationEvent, or - for stdin.")] = "-",
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Ingest conversation events into the embedded pipeline."""
    lines, total = read_lines(file)
    with runner_for(data_dir) as runner:
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

    emit(report.as_dict(), json_output, render)
    if report.received and not report.events and not report.duplicates:
        raise typer.Exit(code=1)


app.command("extract")(extract_command)


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
    from schemas.retrieval import RetrievalRequest

    request = RetrievalRequest(
        query=text,
        tenant_id=tenant,
        owner_id=owner,
        scope=scope,
        scope_id=scope_id,
        mode=retrieval_mode(mode),
        limit=limit,
        token_budget=token_budget,
        reference_time=parse_time(at, "--at") or now(),
    )
    received_at = now()
    with runner_for(data_dir) as runner:
        response = runner.retrieve(request)
        if runner.settings.retrieval_receipts:
            response = record_receipt(runner, request, response, received_at)

    def render() -> None:
        render_items(response)
        if response.embedding_mismatch:
            console.print("[yellow]embedding model mismatch: lexical results only[/yellow]")
        for ex in response.excluded[:20]:
            console.print(f"[dim]{'kept' if ex.included else 'excluded'} {ex.node_id[:8]}: {ex.reason}[/dim]")
        console.rule("packed context")
        console.print(response.context or "(empty)")

    emit(response, json_output, render)


def record_receipt(runner: Any, request: Any, response: Any, received_at: datetime) -> Any:
    """Store the retrieval's receipt before the one-shot process exits; the answer carries its id.

    A receipt that cannot be stored is reported on stderr and the answer still printed: an audit
    record never costs the retrieval it records.
    """
    from schemas.retrieval import RetrievalReceipt
    from streams.agents import masked_content

    try:
        store = runner.store
        receipt = RetrievalReceipt.of(
            request,
            response,
            actor_id="cli",
            query=masked_content(request.query),
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
    task: Annotated[str | None, typer.Option("--task", help="Select one task id: its capsule and task context.")]
    = None,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Facts, conflicts, proposals and stale claims of one owner, and where its tasks stand."""
    with runner_for(data_dir) as runner:
        view = runner.world(
            tenant_id=tenant, owner_id=owner, scope=scope_ref(tenant, owner, scope, scope_id),
            at=parse_time(at, "--at"), task_id=task,
        )
    emit(view, json_output, lambda: render_world(view))


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
    with runner_for(data_dir) as runner:
        trail = runner.provenance(node_id, tenant_id=tenant, owner_id=owner, cursor=cursor, limit=limit)
    if trail is None:
        fail(EpistreamError("no such node for this owner", code="node_not_found"), json_output)
    assert trail is not None
    emit(trail, json_output, lambda: render_provenance(trail))


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
    with runner_for(data_dir) as runner:
        result = runner.assertion(
            tenant_id=tenant,
            owner_id=owner,
            subject=subject,
            predicate=predicate,
            valid_at=parse_time(valid_at, "--valid-at") or runner.now(),
            knowledge_at=parse_time(knowledge_at, "--knowledge-at"),
            scope=scope_ref(tenant, owner, scope, scope_id),
        )

    def render() -> None:
        console.print(f"[bold]{subject} · {predicate}[/bold]: {result.status}")
        for value in result.current_values:
            console.print(f"  {value.object} ({value.polarity}) × {value.candidate_count}")
        for reason, count in result.exclusions.items():
            console.print(f"  [dim]excluded {count}: {reason}[/dim]")

    emit(result, json_output, render)


@app.command()
def replay(
    verify: Annotated[bool, typer.Option("--verify", help="Rebuild state from the log and compare.")] = True,
    repair: Annotated[bool, typer.Option("--repair", help="Write what the indexes miss or hold stale.")] = False,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Rebuild state from the operation log alone and report any difference from live state, and any
    drift of the search indexes from the log (a node missing or at another version, missing excerpts)."""
    with runner_for(data_dir, repair_projections=False) as runner:
        differences = runner.verify_replay() if verify else []
        drift = runner.verify_projections(repair=repair)
        nodes = len(runner.store)
    result = {"nodes": nodes, "identical": not differences, "differences": differences,
              "index_drift": drift, "repaired": repair and bool(drift)}  # fmt: skip

    def render() -> None:
        if differences:
            console.print(f"[red]{len(differences)} differences[/red]")
            for d in differences:
                console.print(f"  {d}")
        else:
            console.print(f"[green]replay identical[/green]: {nodes} nodes rebuilt from the operation log")
        for d in drift:
            console.print(f"  [yellow]{'repaired' if repair else 'drift'}[/yellow] {d}")
        if not drift:
            console.print("[green]indexes level with the log[/green]")

    emit(result, json_output, render)
    if differences or (drift and not repair):
        raise typer.Exit(code=1)


@app.command()
def stats(
    tenant: Annotated[str | None, typer.Option("--tenant")] = None,
    owner: Annotated[str | None, typer.Option("--owner")] = None,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Operation-log analytics (SQL on the ClickHouse tables)."""
    with runner_for(data_dir) as runner:
        result = runner.stats(tenant, owner)

    def render() -> None:
        from epistream.cli.stats_view import render_stats

        render_stats(console, result)

    emit(result, json_output, render)


@app.command()
def sql(
    query: Annotated[str, typer.Argument(help="A read-only ClickHouse SQL statement; '-' reads it from stdin.")],
    max_rows: Annotated[int, typer.Option("--max-rows", min=1, max=1_000_000)] = 1000,
    max_memory_mb: Annotated[
        int, typer.Option("--max-memory-mb", min=1, max=65_536, help="Memory the statement may use.")
    ] = 1024,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Ad-hoc SQL on the operation log tables (operations, raw_events, node_snapshots, ...): one read,
    no file output, no table functions, no system tables."""
    text = sys.stdin.read() if query == "-" else query
    settings = settings_for(data_dir)
    # EPISTREAM_CLICKHOUSE_URL points at the server a distributed deployment writes to (queried live);
    # an analyst's account there may be read-only, so migrations run only on a data directory's chDB,
    # which one process holds at a time (a running worker's store is refused with what to do).
    with log_for(settings, run_migrations=not settings.clickhouse_url) as log:
        result = log.read_only_query(text, max_rows=max_rows, max_memory_bytes=max_memory_mb << 20)

    def render() -> None:
        table = Table(*result.columns)
        for row in result.rows:
            table.add_row(*(str(v) for v in row))
        console.print(table)
        more = " (truncated: raise --max-rows)" if result.truncated else ""
        console.print(f"{len(result.rows)} row(s){more}")

    emit(result._asdict(), json_output, render)

