"""The readable form of ``epistream stats``: tables an analyst can scan, from the same dict ``--json`` prints.

Kept apart from the query (``OperationLog.stats``) so the figures a script reads and the ones a
person reads cannot disagree: this module only lays them out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

_BARS = " ▁▂▃▄▅▆▇█"


def sparkline(counts: Sequence[int]) -> str:
    """One block character per bucket, scaled to the largest; an empty bucket is a space."""
    top = max(counts, default=0)
    if top <= 0:
        return " " * len(counts)
    return "".join(_BARS[0] if c <= 0 else _BARS[max(1, round(c / top * (len(_BARS) - 1)))] for c in counts)


def _summary(result: Mapping[str, Any]) -> Table:
    table = Table(title="operation log", show_header=False)
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("operations", f"{result.get('operations_total', 0):,}")
    table.add_row("contradictions noted", f"{result.get('contradictions_noted', 0):,}")
    table.add_row("contradictions resolved", f"{result.get('contradictions_resolved', 0):,}")
    table.add_row("supersedences", f"{result.get('supersedences', 0):,}")
    extraction = result.get("extraction") or {}
    for key, label in (
        ("results", "extractions"),
        ("claims_accepted", "claims accepted"),
        ("claims_rejected", "claims rejected"),
        ("failed", "extractions failed"),
    ):
        if key in extraction:
            table.add_row(label, f"{extraction[key]:,}")
    return table


def _by_type(counts: Mapping[str, int]) -> Table:
    total = sum(counts.values()) or 1
    table = Table(title="operations by type")
    table.add_column("op type")
    table.add_column("count", justify="right")
    table.add_column("share", justify="right")
    for op_type, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        table.add_row(op_type, f"{count:,}", f"{count / total:.0%}")
    return table


def _by_day(rows: Sequence[Mapping[str, Any]]) -> Table:
    """Days down, op types across: how activity moved over time at a glance."""
    types = sorted({str(r["op_type"]) for r in rows})
    days: dict[str, dict[str, int]] = {}
    for r in rows:
        days.setdefault(str(r["day"]), {})[str(r["op_type"])] = int(r["count"])
    table = Table(title="operations by day")
    table.add_column("day")
    for op_type in types:
        table.add_column(op_type, justify="right")
    for day in sorted(days):
        table.add_row(day, *(f"{days[day][t]:,}" if t in days[day] else "" for t in types))
    return table


def _confidence(rows: Sequence[Mapping[str, Any]]) -> Table:
    table = Table(title="confidence by epistemic type (latest version of each node)")
    for name in ("epistemic type", "nodes", "mean", "p10", "p50", "p90"):
        table.add_column(name, justify="left" if name == "epistemic type" else "right")
    table.add_column("0 ─ deciles ─ 1")
    for r in rows:
        table.add_row(
            str(r["epistemic_type"]),
            f"{r['nodes']:,}",
            *(f"{r[k]:.2f}" for k in ("mean", "p10", "p50", "p90")),
            sparkline([int(c) for c in r.get("deciles", ())]),
        )
    return table


def _counted(title: str, column: str, counts: Mapping[str, int]) -> Table:
    table = Table(title=title)
    table.add_column(column)
    table.add_column("count", justify="right")
    for name, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        table.add_row(name, f"{count:,}")
    return table


def render_stats(console: Console, result: Mapping[str, Any]) -> None:
    console.print(_summary(result))
    if result.get("operations_by_type"):
        console.print(_by_type(result["operations_by_type"]))
    if result.get("operations_by_type_day"):
        console.print(_by_day(result["operations_by_type_day"]))
    if result.get("confidence_by_epistemic_type"):
        console.print(_confidence(result["confidence_by_epistemic_type"]))
    extraction = result.get("extraction") or {}
    if extraction.get("rejection_reasons"):
        console.print(_counted("why extraction rejected claims", "reason code", extraction["rejection_reasons"]))
    if extraction.get("failure_categories"):
        console.print(_counted("why extractions failed", "category", extraction["failure_categories"]))
