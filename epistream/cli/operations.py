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
    log_for,
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
    from sinks.clickhouse_schema import MIGRATIONS

    settings = settings_for(data_dir)
    result: dict[str, Any] = {}
    with log_for(settings, run_migrations=False) as log:
        result["clickhouse_applied"] = log.migrate()
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
    group: Annotated[list[str] | None, typer.Option(
        "--group", help="A group the holder belongs to: it reads other owners' records shared with it (repeatable).",
    )] = None,
    kind: Annotated[
        PrincipalKind,
        typer.Option(help="Who holds it: platform (relays conversations), human (a person), agent (a model)."),
    ] = PrincipalKind.PLATFORM,
) -> None:
    """Generate a new API key: prints the secret once and the hashed entry for the keys file."""
    from epistream.api.auth import ApiKey, generate_key, hash_key_sha256

    secret = generate_key()
    entry: dict[str, Any] = {
        "id": key_id,
        "tenant_id": tenant,
        "permissions": permission,
        "sha256": hash_key_sha256(secret),
    }
    if owner:
        entry["owners"] = owner
    if group:
        entry["groups"] = group
    if kind is not PrincipalKind.PLATFORM:
        entry["kind"] = kind.value
    ApiKey.model_validate(entry)  # a bad permission or group name is refused here, not when the API loads the file
    print(json.dumps({"api_key": secret, "keys_file_entry": entry}, indent=2))


@app.command()
def worker(
    data_dir: Annotated[
        Path | None,
        typer.Option(
            "--data-dir",
            help="The worker's data directory (default: $EPISTREAM_WORKER_DATA_DIR or ./.epistream-worker): its "
            "own chDB store when EPISTREAM_CLICKHOUSE_URL is unset, one worker per directory.",
        ),
    ] = None,
    loglevel: Annotated[str, typer.Option(help="faust log level.")] = "warning",
    role: Annotated[
        WorkerRole,
        typer.Option(
            help="Stages to run: all; core (extract, materialize, dead letters); index (the OpenSearch sink alone), "
            "so indexing can scale in processes of its own. The index stage always consumes in the group "
            "<prefix>epistream-index."
        ),
    ] = WorkerRole.ALL,
) -> None:
    """Run the stream stages on Kafka (extract, materialize, ClickHouse and OpenSearch sinks) until stopped."""
    from streams.worker.options import WorkerOptions
    from streams.worker.run import run_worker

    settings = load_settings()
    run_worker(
        settings,
        data_dir=data_dir if data_dir is not None else settings.worker_data_dir,
        opensearch_url=settings.opensearch_url,
        options=WorkerOptions(
            topic_prefix=settings.kafka_topic_prefix, index_alias=settings.opensearch_index, role=role.value,
            session_timeout_s=settings.kafka_session_timeout_s,
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
            "source_partition": r.letter.partition,
            "source_offset": r.letter.offset,
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
        columns = ("source", "source_partition", "source_offset", "reason_code", "message")
        for col in ("source", "partition", "offset", "reason_code", "message"):
            table.add_column(col)
        for row in rows:
            table.add_row(*("-" if row[c] is None else str(row[c]) for c in columns))
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
    app_id: Annotated[
        str, typer.Option(help="The workers' app id (their group is <EPISTREAM_KAFKA_TOPIC_PREFIX><app id>).")
    ] = "epistream",
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
        table = Table(title=f"consumer lag of {deployment_topics(settings).prefix}{app_id}")
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
    data directory, or with EPISTREAM_OPENSEARCH_URL the deployment's OpenSearch aliases. Safe while
    workers write the index (external versions: a document never goes back to an older version); the
    log must be readable: the ClickHouse server, or a chDB store no running process holds."""
    settings = settings_for(data_dir)
    if not settings.opensearch_url:
        with runner_for(data_dir) as runner:
            counts = runner.rebuild_indexes()
        emit(counts, json_output, lambda: console.print(
            f"embedded indexes rebuilt: {counts['claims']} claims, {counts['excerpts']} excerpts"))  # fmt: skip
        return
    from sinks.documents import excerpt_alias
    from sinks.opensearch_index import OpenSearchIndex, UpsertReport, rebuild_from_snapshots
    from streams.agents import excerpt_documents

    with log_for(settings) as log:
        embedder = embedder_for(settings)
        index = OpenSearchIndex.from_settings(settings, embedder)
        report = rebuild_from_snapshots(index, log.latest_node_snapshots())
        said = OpenSearchIndex.from_settings(settings, embedder, alias=excerpt_alias(settings.opensearch_index))
        excerpts = rebuild_from_snapshots(said, excerpt_documents(log, settings.excerpt_context_turns))
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


@app.command("combine-logs")
def combine_logs(
    sources: Annotated[list[Path], typer.Argument(help="Data directories of stopped workers (their chDB stores).")],
    data_dir: DataDir = None,
    json_output: JsonOut = False,
) -> None:
    """Combine the chDB stores of several workers (the development topology) into one operation log: the
    ClickHouse server of EPISTREAM_CLICKHOUSE_URL, or the chDB store of --data-dir. Rows are keyed by
    their derived ids, so running it again adds nothing; afterwards every node's chain of versions is
    verified (exit 1 on a gap, a fork or a conflicting operation)."""
    from engine.chains import verify_chains
    from sinks.clickhouse_combine import combine_stores

    settings = settings_for(data_dir)
    with log_for(settings) as log:
        reports = combine_stores(log, [str(s) for s in sources])
        chains = verify_chains(log.stream_operations())
        totals = {t: log.count(t) for t in ("operations", "raw_events", "node_snapshots")}
    conflicting = sum(r["conflicting_operations"] for r in reports)
    result = {"sources": reports, "chains": chains.as_dict(), "totals": totals, "conflicting_operations": conflicting}

    def render() -> None:
        for r in reports:
            added = ", ".join(f"{t} +{n}" for t, n in sorted(r["added"].items()) if n) or "nothing new"
            console.print(f"{r['source']}: {added}")
        console.print(
            f"combined log: {totals['operations']} operations, {totals['raw_events']} events, "
            f"{chains.nodes} nodes; chains {'verified' if chains.ok else 'BROKEN'} "
            f"({len(chains.gaps)} gaps, {len(chains.forks)} forks, {conflicting} conflicting operations)"
        )
        if chains.gaps:
            err_console.print("[yellow]a gap means part of a node's history is in a store not combined yet[/yellow]")

    emit(result, json_output, render)
    if not chains.ok or conflicting:
        raise typer.Exit(code=1)


@app.command()
def repair(
    data_dir: Annotated[
        Path | None,
        typer.Option(
            "--data-dir",
            help="Without EPISTREAM_CLICKHOUSE_URL: the chDB store to restore Kafka from (a stopped worker's, or "
            "the store combine-logs wrote; default $EPISTREAM_WORKER_DATA_DIR).",
        ),
    ] = None,
    check: Annotated[bool, typer.Option("--check", help="Only report what is missing (exit 1 if anything).")] = False,
    reindex: Annotated[
        bool, typer.Option("--reindex", help="Re-feed the OpenSearch index even when its alias exists.")
    ] = False,
    json_output: JsonOut = False,
) -> None:
    """Detect and repair a Kafka or OpenSearch that came back empty: missing topics are created, an empty
    memory.operations is restored from the operation log (with memory.nodes), a missing index alias is
    recreated and re-fed from memory.nodes (or from the log). Safe to run again and beside running workers
    (stop the core workers while Kafka is restored: they refuse to start until then)."""
    import asyncio

    from streams.topics import ensure_topics
    from streams.worker.recovery import missing_aliases, missing_topics, repair_index, restore_kafka, topic_records

    settings = load_settings()
    topics = deployment_topics(settings)
    store = data_dir if data_dir is not None else settings.worker_data_dir
    result: dict[str, Any] = {"kafka": {}, "opensearch": {}}
    needs: list[str] = []

    missing = asyncio.run(missing_topics(settings.kafka_bootstrap, topics))
    result["kafka"]["missing_topics"] = missing
    if missing and not check:
        ensure_topics(settings.kafka_bootstrap, topics)
    needs += [f"topic {name}" for name in missing]
    if not asyncio.run(topic_records(settings.kafka_bootstrap, topics.operations)):
        with log_for(settings, store) as log:
            stored = log.count("operations", final=False)
            result["kafka"]["log_operations"] = stored
            if stored:
                needs.append(f"{topics.operations} (empty; the log holds {stored} operations)")
                if not check:
                    turns = settings.excerpt_context_turns
                    restored = asyncio.run(restore_kafka(settings.kafka_bootstrap, topics, log, excerpt_turns=turns))
                    result["kafka"]["restored"] = dict(restored.__dict__)

    if settings.opensearch_url:
        from sinks.opensearch_client import as_client

        client = as_client(settings.opensearch_url)
        try:
            lost = missing_aliases(client, settings.opensearch_index)
        finally:
            client.close()
        result["opensearch"]["missing_aliases"] = lost
        needs += [f"index alias {name}" for name in lost]
        if (lost or reindex) and not check:
            repaired = repair_index(
                settings, topics, embedder_for(settings),
                oplog=lambda: log_for(settings, store), reindex=reindex,
            )  # fmt: skip
            result["opensearch"]["repaired"] = repaired.as_dict()
    result["needed"] = needs

    def render() -> None:
        if not needs:
            console.print("Kafka topics and OpenSearch aliases are all there; nothing to repair")
        for what in needs:
            console.print(f"{'missing' if check else 'repaired'}: {what}")
        restored = result["kafka"].get("restored")
        if restored:
            console.print(
                f"{topics.operations}: {restored['records']} records ({restored['operations']} operations of "
                f"{restored['inputs']} inputs); {topics.nodes}: {restored['nodes']} nodes, "
                f"{restored['excerpts']} excerpts"
            )
        repaired = result["opensearch"].get("repaired")
        if repaired:
            console.print(
                f"OpenSearch {repaired['alias']}: {repaired['written']} documents written from {repaired['source']} "
                f"({repaired['stale']} already current, {repaired['rejected']} refused)"
            )

    emit(result, json_output, render)
    if check and needs:
        raise typer.Exit(code=1)
