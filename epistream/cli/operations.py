"""Commands that run or operate a deployment: demo, migrate, api, api-key, worker, publish, dlq, lag,
rebuild-index, erase."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from epistream.cli.common import (
    DataDir,
    JsonOut,
    Tenant,
    WorkerRole,
    app,
    console,
    emit,
    err_console,
    read_lines,
    runner_for,
    settings_for,
)
from epistream.config import load_settings
from schemas.enums import PrincipalKind
from schemas.settings import Settings


@app.command()
def demo(
    data_dir: Annotated[Path, typer.Option("--data-dir", help="Fresh directory for the demo.")] = Path(
        ".epistream-demo"
    ),
    embedder: Annotated[str, typer.Option(help="minilm (default) or hash (no model).")] = "minilm",
    json_output: JsonOut = False,
) -> None:
    """Ingest the bundled conversations into a fresh data directory and show what epistream made of them."""
    from epistream.cli.demo import run_demo

    run_demo(data_dir, embedder=embedder, json_output=json_output, console=console)


@app.command()
def migrate(data_dir: DataDir = None, json_output: JsonOut = False) -> None:
    """Apply ClickHouse migrations (server if EPISTREAM_CLICKHOUSE_URL is set, else chDB) and the OpenSearch index."""
    from sinks.clickhouse import OperationLog
    from sinks.clickhouse_schema import MIGRATIONS

    settings = settings_for(data_dir)
    result: dict[str, Any] = {}
    log = OperationLog.connect(settings.clickhouse_url, path=settings.data_dir, run_migrations=False)
    try:
        result["clickhouse_applied"] = log.migrate()
    finally:
        log.close()
    if settings.opensearch_url:
        from sinks.opensearch_client import as_client
        from sinks.opensearch_mapping import ensure_index

        embedder = embedder_for(settings)
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

    emit(result, json_output, render)


def embedder_for(settings: Settings) -> Any:
    from sinks.embedding import embedder_from_settings

    return embedder_from_settings(settings)


@app.command()
def api(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8080,
    data_dir: DataDir = None,
) -> None:
    """Serve the retrieval API (needs EPISTREAM_API_KEYS_FILE: hashed bearer keys bound to tenants)."""
    from epistream.api.app import serve

    serve(settings_for(data_dir), host=host, port=port)


class McpTransport(StrEnum):
    STDIO = "stdio"
    HTTP = "http"


@app.command()
def mcp(
    transport: Annotated[McpTransport, typer.Option(
        help="stdio (one client, the configured principal) or http (streamable HTTP at /mcp, the API's keys)."
    )] = McpTransport.STDIO,
    host: Annotated[str, typer.Option(help="Interface to bind (http).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port (http).")] = 8081,
    data_dir: DataDir = None,
) -> None:
    """Serve memory as MCP tools (needs the mcp extra). Over http every request needs an API key of
    EPISTREAM_API_KEYS_FILE; over stdio it acts as EPISTREAM_MCP_TENANT_ID / _OWNERS / _PERMISSIONS."""
    from schemas.extras import require

    require("mcp")
    from epistream.mcp.server import serve

    serve(settings_for(data_dir), transport=transport.value, host=host, port=port)


@app.command("api-key")
def api_key(
    key_id: Annotated[str, typer.Option("--id", help="Name of the key (becomes the acting actor id).")],
    tenant: Tenant,
    permission: Annotated[list[str], typer.Option("--permission", help="read, write, assert, deprecate, admin")],
    owner: Annotated[list[str] | None, typer.Option("--owner", help="Restrict to these owners (repeatable).")] = None,
    kind: Annotated[
        PrincipalKind,
        typer.Option(help="Who holds it: platform (relays conversations), human (a person), agent (a model)."),
    ] = PrincipalKind.PLATFORM,
) -> None:
    """Generate a new API key: prints the secret once and the hashed entry for the keys file."""
    from epistream.api.auth import generate_key, hash_key_sha256

    secret = generate_key()
    entry: dict[str, Any] = {
        "id": key_id,
        "tenant_id": tenant,
        "permissions": permission,
        "sha256": hash_key_sha256(secret),
    }
    if owner:
        entry["owners"] = owner
    if kind is not PrincipalKind.PLATFORM:
        entry["kind"] = kind.value
    print(json.dumps({"api_key": secret, "keys_file_entry": entry}, indent=2))


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
    from streams.worker.options import WorkerOptions
    from streams.worker.run import run_worker

    settings = settings_for(data_dir)
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

    settings = load_settings()
    lines, _ = read_lines(file)
    events_topic = topic or deployment_topics(settings).events
    report = publish_lines(
        lines, bootstrap or settings.kafka_bootstrap, events_topic, max_content_bytes=settings.max_content_bytes,
        principal=PrincipalKind(settings.publisher_principal_kind),
    )
    report_published(report, json_output)


def deployment_topics(settings: Settings) -> Any:
    """The deployment's topic names: the workers' prefix (EPISTREAM_KAFKA_TOPIC_PREFIX) applies here too."""
    from streams import topics

    return topics.Topics(prefix=settings.kafka_topic_prefix, partitions=settings.partitions)


def report_published(report: Any, json_output: bool) -> None:
    """What ``publish`` and ``dlq replay`` say: events sent, lines refused (first 20, with codes)."""
    result = report.to_dict()

    def render() -> None:
        console.print(f"sent {report.sent} events; {len(report.errors)} refused")
        for err in report.errors[:20]:
            console.print(f"[yellow]line {err.line}[/yellow] {err.code}: {err.message}")

    emit(result, json_output, render)
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
    """Dead letters on the DLQ topics: where each came from, the reason code, masked bytes, the original's digest."""
    import base64

    from streams.worker.operations import dlq_list

    settings = load_settings()
    records = dlq_list(
        bootstrap or settings.kafka_bootstrap, deployment_topics(settings), limit=limit
    )
    rows = [
        {
            "topic": r.topic,
            "partition": r.partition,
            "offset": r.offset,
            "source": r.letter.source,
            "reason_code": r.letter.reason_code,
            "message": r.letter.message,
            "masked_b64": base64.b64encode(r.letter.masked_bytes).decode("ascii"),
            "original_sha256": r.letter.original_sha256,
            "original_length": r.letter.original_length,
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

    emit(rows, json_output, render)


@dlq_app.command("replay")
def dlq_replay_command(
    file: Annotated[str, typer.Argument(help="Fixed events (JSON lines), or - for stdin.")] = "-",
    bootstrap: Annotated[str | None, typer.Option(help="Kafka bootstrap servers (default: settings).")] = None,
    json_output: JsonOut = False,
) -> None:
    """Re-drive fixed events; still-broken lines are reported, not looped back into the DLQ."""
    from streams.worker.operations import dlq_replay

    settings = load_settings()
    lines, _ = read_lines(file)
    report = dlq_replay(lines, bootstrap or settings.kafka_bootstrap, deployment_topics(settings))
    report_published(report, json_output)


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

    settings = load_settings()
    stages, groups = asyncio.run(
        pipeline_lag(bootstrap or settings.kafka_bootstrap, deployment_topics(settings), app_id)
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

    emit(result, json_output, render)
    if over:
        raise typer.Exit(code=1)


@app.command("rebuild-index")
def rebuild_index(data_dir: DataDir = None, json_output: JsonOut = False) -> None:
    """Rebuild the search indexes (claims and source excerpts) from the log: the embedded indexes of the
    data directory, or with EPISTREAM_OPENSEARCH_URL the deployment's OpenSearch aliases (external
    versions keep a live index safe: a document never goes back to an older version)."""
    settings = settings_for(data_dir)
    if not settings.opensearch_url:
        with runner_for(data_dir) as runner:
            counts = runner.rebuild_indexes()
        emit(counts, json_output, lambda: console.print(
            f"embedded indexes rebuilt: {counts['claims']} claims, {counts['excerpts']} excerpts"))  # fmt: skip
        return
    from epistream.runner import excerpt_documents
    from sinks.clickhouse import OperationLog
    from sinks.documents import excerpt_alias
    from sinks.opensearch_index import OpenSearchIndex, UpsertReport, rebuild_from_snapshots

    log = OperationLog.connect(settings.clickhouse_url, path=settings.data_dir)
    try:
        embedder = embedder_for(settings)
        index = OpenSearchIndex.from_settings(settings, embedder)
        report = rebuild_from_snapshots(index, log.latest_node_snapshots())
        said = OpenSearchIndex.from_settings(settings, embedder, alias=excerpt_alias(settings.opensearch_index))
        excerpts = rebuild_from_snapshots(said, excerpt_documents(log, settings.excerpt_context_turns))
    finally:
        log.close()
    # Documents OpenSearch refused for good (e.g. the alias points at an index with another mapping):
    # count, first ids and error types, never content. Nothing else is held back by them.
    result: dict[str, Any] = {"received": report.received, "written": report.written, "stale": report.stale}
    result["rejected"] = UpsertReport.summary(report.rejected)
    result["excerpts"] = {"received": excerpts.received, "written": excerpts.written, "stale": excerpts.stale,
                          "rejected": UpsertReport.summary(excerpts.rejected)}  # fmt: skip

    def render() -> None:
        console.print(
            f"{report.received} node snapshots read; {report.written} documents written, "
            f"{report.stale} already current in the index; {excerpts.received} excerpts read, "
            f"{excerpts.written} written"
        )
        for refused in (result["rejected"], result["excerpts"]["rejected"]):
            if refused["count"]:
                console.print(
                    f"[yellow]{refused['count']} refused by OpenSearch[/yellow] "
                    f"({', '.join(refused['error_types'])}); first ids: {', '.join(refused['node_ids'])}"
                )

    emit(result, json_output, render)


_OWNER_HELP = "Owner whose memory is erased (all of it, or with --conversation / --event only that)."
_SPEAKER_HELP = "In place of --owner: all this speaker said and all attributed to them, in every owner's memory."
EraseOwner = Annotated[str | None, typer.Option("--owner", help=_OWNER_HELP)]
EraseSpeaker = Annotated[str | None, typer.Option("--speaker", help=_SPEAKER_HELP)]
EraseConversation = Annotated[str | None, typer.Option("--conversation", help="Only this conversation of the owner.")]
EraseEvent = Annotated[str | None, typer.Option("--event", help="Only this event of the owner and what came of it.")]
RequestedBy = Annotated[str, typer.Option("--requested-by", help="Who asked (kept in the receipt).")]
EraseRequestId = Annotated[str | None, typer.Option("--request-id", help="UUID; a retry returns the same receipt.")]


@app.command()
def erase(
    tenant: Tenant,
    owner: EraseOwner = None,
    speaker: EraseSpeaker = None,
    conversation: EraseConversation = None,
    event: EraseEvent = None,
    requested_by: RequestedBy = "operator",
    request_id: EraseRequestId = None,
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Erase on request (GDPR art. 17): destroy the data keys of what the scope names, delete its rows and index
    documents, append an ERASED operation (ids and counts only) and print the receipt. A repeated erase changes
    nothing and prints the same receipt. See docs/erasure.md for what is guaranteed and how to verify it."""
    from pydantic import ValidationError

    from epistream.cli.common import fail, invalid_options
    from schemas.erasure import ErasureScope

    kind = "speaker" if speaker is not None else "conversation" if conversation else "event" if event else "owner"
    try:
        scope = ErasureScope(tenant_id=tenant, kind=kind, owner_id=owner, speaker_id=speaker,
                             conversation_id=conversation, event_id=event)  # fmt: skip
    except ValidationError as exc:
        fail(invalid_options(exc), json_output)
        return
    with runner_for(data_dir) as runner:
        receipt = runner.erase(scope, requested_by=requested_by, request_id=request_id)

    def render() -> None:
        state = "already erased (the earlier receipt)" if receipt.repeated else "erased"
        console.print(f"[green]{state}[/green] {receipt.erasure_id} ({kind}) at {receipt.completed_at.isoformat()}")
        for name, count in receipt.counts.items():
            console.print(f"  {name}: {count}")
        verdict = "[green]passed[/green]" if receipt.verification.get("passed") else "[red]FAILED[/red]"
        console.print(f"verification {verdict}: {receipt.verification}")

    emit(receipt, json_output, render)
    if not receipt.verification.get("passed"):
        raise typer.Exit(code=1)
