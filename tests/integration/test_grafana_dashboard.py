"""deploy/grafana/epistream.json references only metrics and tables that exist.

Every PromQL expression's ``epistream_*`` series must be one the worker (``streams.metrics``) or the
API (``epistream.api.metrics``) registers, with the labels the expression groups or filters by; every
ClickHouse query runs, with Grafana's macros expanded, against a real chDB log made by the
migrations, so a renamed table or column fails here rather than on an operator's screen.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from epistream.api.metrics import ApiMetrics
from sinks.clickhouse import OperationLog
from streams.metrics import WorkerMetrics

pytestmark = pytest.mark.integration

DASHBOARD = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "epistream.json"


def _targets() -> list[tuple[str, dict[str, Any]]]:
    data = json.loads(DASHBOARD.read_text("utf-8"))
    out = []
    for panel in data["panels"]:
        for target in panel.get("targets", []):
            out.append((panel["title"], target))
    return out


def _series() -> dict[str, set[str]]:
    """Every sample name the two registries expose (``_total``, ``_bucket``, ...), with its label names.

    Read from the registries' collectors (prometheus_client keeps every sample name a collector
    produces), so a labelled counter that never moved counts too.
    """
    names: dict[str, set[str]] = {}
    for registry in (WorkerMetrics().registry, ApiMetrics().registry):
        for name, collector in registry._names_to_collectors.items():
            names[name] = set(getattr(collector, "_labelnames", ())) | ({"le"} if name.endswith("_bucket") else set())
    return names


def test_every_prometheus_series_and_label_exists() -> None:
    series = _series()
    exprs = [(title, t["expr"]) for title, t in _targets() if "expr" in t]
    assert len(exprs) >= 15
    seen: set[str] = set()
    for title, expr in exprs:
        used = re.findall(r"\bepistream_[a-z_]+\b", expr)
        assert used, title
        for name in used:
            assert name in series, f"{title}: {name} is not a metric the worker or the API registers"
            seen.add(name)
        for selector in re.findall(r"\{([^}]*)\}", expr):
            for label in re.findall(r"(\w+)\s*=", selector):
                assert any(label in series[n] for n in used), f"{title}: no series of {used} has label {label}"
        for group in re.findall(r"by \(([^)]*)\)", expr):
            for label in (g.strip() for g in group.split(",")):
                assert any(label in series[n] for n in used), f"{title}: no series of {used} has label {label}"
    # The four things the dashboard is for: lag, throughput, dead letters, retrieval latency.
    assert {"epistream_event_age_seconds_bucket", "epistream_events_admitted_total", "epistream_operations_total",
            "epistream_dead_letters_total", "epistream_http_request_duration_seconds_bucket"} <= seen  # fmt: skip


def _expand(sql: str, database: str) -> str:
    """Grafana's ClickHouse macros, as the plugin expands them for a six-hour range and 60 s steps."""
    sql = re.sub(r"\$__timeInterval\((\w+)\)", r"toStartOfInterval(toDateTime(\1), INTERVAL 60 second)", sql)
    sql = re.sub(r"\$__timeFilter\((\w+)\)", r"\1 >= now() - INTERVAL 6 HOUR AND \1 <= now()", sql)
    sql = sql.replace("${database}", database)
    assert "$" not in sql, sql
    return sql


def test_every_clickhouse_query_runs_on_the_migrated_log(chdb_path: Path, chdb_database: str) -> None:
    log = OperationLog.connect(None, path=chdb_path, database=chdb_database)
    try:
        queries = [(title, t["rawSql"]) for title, t in _targets() if "rawSql" in t]
        assert len(queries) == 6
        tables: set[str] = set()
        for title, sql in queries:
            tables |= set(re.findall(r"\$\{database\}\.(\w+)", sql))
            result = log.client.query(_expand(sql, chdb_database))  # an unknown table or column raises
            assert result.result_rows == [], title  # a fresh log: nothing in the range
        assert tables == {"operations", "dead_letters", "raw_events", "extraction_journal", "retrieval_requests"}
    finally:
        log.close()


def test_the_dashboard_declares_its_two_datasources() -> None:
    data = json.loads(DASHBOARD.read_text("utf-8"))
    assert {i["pluginId"] for i in data["__inputs"]} == {"prometheus", "grafana-clickhouse-datasource"}
    uids = {t["datasource"]["uid"] for _, t in _targets()}
    assert uids == {"${DS_PROMETHEUS}", "${DS_CLICKHOUSE}"}
    assert [v["name"] for v in data["templating"]["list"]] == ["database"]
