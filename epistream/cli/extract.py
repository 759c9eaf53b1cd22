"""``epistream extract``: run an extractor over ConversationEvent JSON lines.

Evaluation tooling reads the ``--json`` output, so its shape is fixed: one
object per input line, claims with enum values as upper-case names and polarity
lower-case, and a per-line error object (never a crash) for bad input.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

import typer

from epistream.config import load_settings
from extractors.base import Extractor, get_extractor
from extractors.secrets import mask
from extractors.secrets.admission import mask_event
from schemas.errors import EpistreamError
from schemas.events import parse_event

app = typer.Typer(add_completion=False, help="Extract claims from conversation events.")


def _lines(file: str) -> Iterator[str]:
    if file == "-":
        yield from sys.stdin
        return
    with open(file, encoding="utf-8") as handle:
        yield from handle


def run_extract(lines: Iterable[str], extractor: Extractor) -> Iterator[dict[str, Any]]:
    """One output record per non-blank input line; failures become ``{"line", "error"}`` records."""
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = mask_event(parse_event(line))  # the masking pass of admission: output never holds a secret
            result = extractor.extract(event)
        except EpistreamError as exc:
            yield {"line": n, "error": {"code": exc.code, "message": mask(exc.message)[0]}}
            continue
        except Exception as exc:  # an extractor bug must not stop the run; no message echo (may hold content)
            yield {"line": n, "error": {"code": "extraction_failed", "message": type(exc).__name__}}
            continue
        yield {
            "event_id": event.event_id,
            "claims": [c.model_dump(mode="json") for c in result.claims],
            "rejected": [{"reason_code": r.reason_code, "detail": r.detail, "claim": r.claim} for r in result.rejected],
        }


def _print_table(records: Iterable[dict[str, Any]], out: TextIO) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out, width=160)
    for rec in records:
        if "error" in rec:
            console.print(f"[red]line {rec['line']}: {rec['error']['code']}[/red] {rec['error']['message']}")
            continue
        table = Table(title=f"event {rec['event_id']}", show_lines=False)
        for col in ("type", "epistemic", "subject", "predicate", "object", "polarity", "condition / reason"):
            table.add_column(col)
        for c in rec["claims"]:
            table.add_row(
                c["node_type"], c["epistemic_type"], c["subject"], c["predicate"], c.get("object") or "",
                c["polarity"], c.get("condition") or "",
            )
        for r in rec["rejected"]:
            claim = r["claim"]
            table.add_row(
                "[dim]rejected[/dim]", "", str(claim.get("subject", "")), str(claim.get("predicate", "")),
                str(claim.get("object") or ""), "", r["reason_code"],
            )
        console.print(table)


@app.command("extract")
def extract_command(
    file: str = typer.Argument("-", help="JSON-lines file of ConversationEvents, or - for stdin."),
    extractor: str = typer.Option("rules", "--extractor", help="rules or llm"),
    json_output: bool = typer.Option(False, "--json", help="One JSON object per event."),
) -> None:
    """Extract claims from ConversationEvent JSON lines."""
    try:
        chosen = get_extractor(extractor, load_settings())
    except EpistreamError as exc:
        typer.echo(json.dumps({"error": exc.to_dict()}), err=True)
        raise typer.Exit(code=2) from None
    records = run_extract(_lines(file), chosen)
    if json_output:
        for rec in records:
            typer.echo(json.dumps(rec, ensure_ascii=False, sort_keys=True))
    else:
        _print_table(records, sys.stdout)
