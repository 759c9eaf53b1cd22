"""``epistream stats`` for people: every figure of the JSON result appears in a table, nothing as a dict dump."""

from __future__ import annotations

import re

from rich.console import Console

from epistream.cli.stats_view import render_stats, sparkline

RESULT = {
    "operations_total": 1234,
    "operations_by_type": {"ASSERT": 1000, "REINFORCE": 200, "CONTRADICTION_NOTED": 34},
    "operations_by_type_day": [
        {"day": "2026-09-01", "op_type": "ASSERT", "count": 600},
        {"day": "2026-09-02", "op_type": "ASSERT", "count": 400},
        {"day": "2026-09-02", "op_type": "REINFORCE", "count": 200},
        {"day": "2026-09-03", "op_type": "CONTRADICTION_NOTED", "count": 34},
    ],
    "contradictions_noted": 34,
    "contradictions_resolved": 5,
    "supersedences": 17,
    "confidence_by_epistemic_type": [
        {"epistemic_type": "ASSERTED", "nodes": 90, "mean": 0.78, "p10": 0.7, "p50": 0.8, "p90": 0.85,
         "deciles": [0, 0, 0, 0, 0, 0, 0, 30, 60, 0]},
    ],
    "extraction": {"results": 900, "claims_accepted": 1000, "claims_rejected": 77, "failed": 3,
                   "rejection_reasons": {"quote_not_in_source": 50, "secret_value": 27},
                   "failure_categories": {"timeout": 3}},
}  # fmt: skip


def _render() -> str:
    console = Console(width=200, record=True, color_system=None)
    render_stats(console, RESULT)
    return console.export_text()


def _row(text: str, *cells: str) -> bool:
    """Some table row holds these cells in this order."""
    pattern = r"\s*[│┃]\s*".join(re.escape(c) for c in cells)
    return any(re.search(pattern, line) for line in text.splitlines())


def test_every_figure_is_in_a_table_row() -> None:
    text = _render()
    assert _row(text, "operations", "1,234")
    assert _row(text, "contradictions resolved", "5") and _row(text, "supersedences", "17")
    assert _row(text, "claims rejected", "77") and _row(text, "extractions failed", "3")
    assert _row(text, "ASSERT", "1,000", "81%") and _row(text, "REINFORCE", "200", "16%")
    assert _row(text, "ASSERTED", "90", "0.78", "0.70", "0.80", "0.85")
    assert _row(text, "quote_not_in_source", "50") and _row(text, "timeout", "3")
    assert "{" not in text and "'" not in text  # no dict or list reprs


def test_days_are_rows_and_op_types_columns() -> None:
    text = _render()
    header = next(line for line in text.splitlines() if "day" in line and "REINFORCE" in line)
    assert header.index("ASSERT") < header.index("CONTRADICTION_NOTED") < header.index("REINFORCE")
    assert _row(text, "2026-09-02", "400", "", "200")  # no CONTRADICTION_NOTED that day
    assert _row(text, "2026-09-01", "600")


def test_sparkline_scales_to_the_largest_bucket() -> None:
    assert sparkline([0, 0, 30, 60]) == "  ▄█"
    assert sparkline([1, 100]) == "▁█"  # a non-empty bucket never vanishes
    assert sparkline([0, 0]) == "  " and sparkline([]) == ""
