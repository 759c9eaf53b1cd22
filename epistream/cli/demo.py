"""``epistream demo``: the bundled conversations through the embedded pipeline.

The demo is the first thing a new user runs, so it shows the product's
promises on real output rather than describing them: every claim with its
quote, every rejection with its reason, conflicts kept and flagged, default
versus explicit retrieval, one provenance trail, and the operation counts.
It uses a fixed reference time so its output is the same on every machine.
"""

from __future__ import annotations

import json
import shutil
import time
import uuid
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from extractors.secrets.admission import mask_event
from schemas.commands import EvaluateConditionCommand
from schemas.common import ActorRef
from schemas.enums import ActorType, ConditionState, EpistemicType
from schemas.events import parse_event
from schemas.retrieval import RetrievalMode, RetrievalRequest, RetrievalResponse
from schemas.settings import Settings

#: After the last bundled event; fixed so the demo is reproducible.
REFERENCE_TIME = datetime(2026, 10, 1, 12, 0, tzinfo=UTC)
DEMO_QUERIES = (
    ("alice", "Where does Alice live and what does she drink?"),
    ("alice", "What does Alice use for analytics?"),
    ("bob", "Which editor does Bob use?"),
)


def demo_lines() -> list[bytes]:
    return resources.files("epistream.demo").joinpath("conversations.jsonl").read_bytes().splitlines()


def run_demo(
    data_dir: Path, *, embedder: str = "minilm", json_output: bool = False, console: Console
) -> dict[str, Any]:
    from epistream.runner import EmbeddedRunner
    from sinks.embedding import default_embedder

    started = time.perf_counter()
    if data_dir.exists():
        if not (data_dir / "LOCK").exists() and any(data_dir.iterdir()):
            raise SystemExit(f"{data_dir} exists and is not an epistream data directory; choose another --data-dir")
        shutil.rmtree(data_dir)
    lines = demo_lines()
    # Self-contained whatever the environment says: never a deployment's ClickHouse or OpenSearch,
    # and never read-only distributed mode (EPISTREAM_* variables would otherwise apply).
    settings = Settings(data_dir=data_dir, clickhouse_url=None, opensearch_url=None, api_mode="embedded")
    out: dict[str, Any] = {}
    with EmbeddedRunner(
        data_dir, settings, embedder=default_embedder(embedder), clock=lambda: REFERENCE_TIME
    ) as runner:
        report = runner.ingest_lines(lines, source="demo")
        out["ingest"] = report.as_dict()
        events = {e.event_id: e for e in (mask_event(parse_event(line)) for line in lines)}
        extractions = _extractions(runner)
        out["extractions"] = extractions

        # A condition becomes known: the conditional claim now enters default retrieval.
        cycling = next(
            (
                n
                for n in runner.store.iter_nodes()
                if n.epistemic_type is EpistemicType.CONDITIONAL and n.owner_id == "alice"
            ),
            None,
        )
        if cycling is not None:
            result = runner.submit(
                EvaluateConditionCommand(
                    **cycling.scope_ref().model_dump(),
                    command_id="demo-condition-1",
                    request_id=str(uuid.uuid5(uuid.NAMESPACE_URL, "epistream-demo-condition")),
                    actor=ActorRef(actor_id="alice", actor_type=ActorType.HUMAN_USER),
                    issued_at=REFERENCE_TIME,
                    node_id=cycling.node_id,
                    state=ConditionState.TRUE,
                    reason="Alice confirmed the forecast is sunny",
                )
            )
            out["condition_evaluation"] = {"node_id": cycling.node_id, "status": result.outcome.status}

        worlds = {
            owner: runner.world(tenant_id="acme", owner_id=owner, at=REFERENCE_TIME) for owner in ("alice", "bob")
        }
        out["world"] = {owner: w.model_dump(mode="json") for owner, w in worlds.items()}
        retrievals: list[tuple[str, str, RetrievalResponse, RetrievalResponse]] = []
        for owner, text in DEMO_QUERIES:
            default = runner.retrieve(_request(owner, text, RetrievalMode.DEFAULT))
            explicit = runner.retrieve(_request(owner, text, RetrievalMode.EXPLICIT))
            retrievals.append((owner, text, default, explicit))
        out["retrievals"] = [
            {"owner": o, "query": q, "default": d.model_dump(mode="json"), "explicit": x.model_dump(mode="json")}
            for o, q, d, x in retrievals
        ]
        trail_node = _contested_node(runner)
        trail = runner.provenance(trail_node, tenant_id="acme", owner_id="alice") if trail_node is not None else None
        out["provenance"] = trail.model_dump(mode="json") if trail is not None else None
        out["operation_counts"] = dict(sorted(report.op_counts.items()))
        out["replay_differences"] = runner.verify_replay()
        nodes = {n.node_id: n for n in runner.store.iter_nodes()}
    out["seconds"] = round(time.perf_counter() - started, 2)

    if json_output:
        print(json.dumps(out, ensure_ascii=False, default=str))
    else:
        _render(console, {**out, "nodes": nodes}, events, worlds, retrievals, trail, data_dir)
    return out


def _request(owner: str, text: str, mode: RetrievalMode) -> RetrievalRequest:
    return RetrievalRequest(
        query=text,
        tenant_id="acme",
        owner_id=owner,
        mode=mode,
        limit=8,
        token_budget=400,
        reference_time=REFERENCE_TIME,
    )


def _extractions(runner: Any) -> list[dict[str, Any]]:
    return [r.model_dump(mode="json") for r in runner.log.read_extractions()]  # the journal is stored sealed


def _contested_node(runner: Any) -> str | None:
    for node in sorted(runner.store.iter_nodes(), key=lambda n: (n.created_at, n.node_id)):
        if node.owner_id == "alice" and node.contradicts:
            return str(node.node_id)
    return None


def _render(
    console: Console,
    out: dict[str, Any],
    events: dict[str, Any],
    worlds: dict[str, Any],
    retrievals: list[tuple[str, str, RetrievalResponse, RetrievalResponse]],
    trail: Any,
    data_dir: Path,
) -> None:
    ing = out["ingest"]
    console.print(
        Panel(
            f"{ing['events']} conversation events from 3 owners (user, participant, assistant, system, tool) → "
            f"{ing['claims']} claims, {ing['rejected_claims']} rejected, {ing['operations']} operations",
            title="epistream demo",
        )
    )
    claims = Table(title="1 · what was extracted, and the evidence it rests on", show_lines=False)
    for col in ("event", "role", "claim", "how known", "evidence quote"):
        claims.add_column(col, overflow="fold")
    rejected = Table(title="2 · what was refused, and why")
    for col in ("event", "reason", "proposed"):
        rejected.add_column(col, overflow="fold")
    for ex in out["extractions"]:
        ev = ex["event"]
        for c in ex["claims"]:
            obj = c.get("object") or ""
            pol = "not " if c["polarity"] == "negative" else ""
            how = c["epistemic_type"] + (f" if “{c['condition']}”" if c.get("condition") else "")
            claims.add_row(
                ev["event_id"], ev["role"], f"{c['subject']} {pol}{c['predicate']} {obj}", how, c["evidence_quote"]
            )
        for r in ex["rejected"]:
            proposed = r["claim"]
            rejected.add_row(
                ev["event_id"],
                r["reason_code"],
                f"{proposed.get('subject', '')} {proposed.get('predicate', '')} {proposed.get('object') or ''}",
            )
    console.print(claims)
    console.print(rejected)
    quiet = [e for e in events if not any(x["event"]["event_id"] == e and x["claims"] for x in out["extractions"])]
    console.print(f"[dim]no claims (questions, pleasantries, recommendations, secrets): {', '.join(quiet)}[/dim]")

    from epistream.cli.render import claim_line, render_items, render_world

    for owner, world in worlds.items():
        console.rule(f"3 · world view of {owner}: facts, conflicts, proposals, stale")
        render_world(world)
    for owner, text, default, explicit in retrievals:
        console.rule(f"4 · {owner}: “{text}”")
        render_items(default)
        console.print("[bold]packed context (default mode)[/bold]")
        console.print(default.context or "(empty)")
        hidden = [x for x in explicit.excluded if x.included]
        if hidden:
            console.print("[bold]explicit mode adds[/bold] (with the reason default mode leaves them out):")
            for x in hidden:
                node = out["nodes"].get(x.node_id)
                line = claim_line(node.subject, node.predicate, node.object, node.polarity) if node else x.node_id
                console.print(f"  • {line}  [dim]{x.reason}[/dim]")
    if trail is not None:
        console.rule("5 · provenance of a contested claim")
        from epistream.cli.render import render_provenance

        render_provenance(trail)
    counts = Table(title="6 · operations in the append-only log")
    counts.add_column("op type")
    counts.add_column("count", justify="right")
    for op_type, count in out["operation_counts"].items():
        counts.add_row(op_type, str(count))
    console.print(counts)
    verdict = "identical" if not out["replay_differences"] else f"{len(out['replay_differences'])} differences"
    console.print(f"replay of the log → state {verdict} · {out['seconds']} s")
    console.print(
        Panel(
            "\n".join(
                [
                    f"epistream query 'coffee' --tenant acme --owner alice --data-dir {data_dir}",
                    f"epistream query 'coffee' --tenant acme --owner alice --mode explicit --data-dir {data_dir}",
                    f"epistream world --tenant acme --owner bob --data-dir {data_dir}",
                    f"epistream state --tenant acme --owner alice --subject user --predicate lives_in"
                    f" --data-dir {data_dir}",
                    f"epistream stats --data-dir {data_dir}",
                    f"epistream replay --verify --data-dir {data_dir}",
                    "epistream extract epistream/demo/conversations.jsonl --json   (claims and rejections per event)",
                ]
            ),
            title="try next (after ./dev demo: source .venv/bin/activate)",
        )
    )
