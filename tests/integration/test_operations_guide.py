"""docs/operations.md, read from the file itself and held to the code it describes.

Operators act on the guide's names without reading the code: they set the ``EPISTREAM_*``
variables it names, run its ``epistream`` commands, alert on its metric names, grep worker logs
for its quoted lines, query the ClickHouse tables and columns it names and branch on the exit
statuses it gives. Each of those is pulled out of the guide's text here (so an edit to the guide
is checked too) and looked up in the code; a failure quotes the guide's sentence that is wrong.
The schema facts are read from a fresh chDB log (its own database in the session engine path).
"""

from __future__ import annotations

import ast
import functools
import gc
import importlib
import inspect
import json
import logging
import os
import re
import shlex
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from epistream.api.metrics import ApiMetrics
from epistream.cli import app as cli_app
from schemas.settings import Settings
from sinks import opensearch_mapping
from sinks.clickhouse import OperationLog
from sinks.opensearch_index import OpenSearchIndex
from streams import faust_app, topics
from streams.metrics import WorkerMetrics
from tests.markdown_docs import Usage, check_usages, command_options, resolve, section, spans, table_cells

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DOC = "docs/operations.md"
GUIDE = (ROOT / DOC).read_text("utf-8")
SOURCE_PACKAGES = ("schemas", "engine", "extractors", "streams", "sinks", "retrieval", "epistream")
_ANY = "\x00"  # a wildcard in a glob of quoted and logged text (never in either text itself)


# ----------------------------------------------------------------------------- reading the guide


def _sentences(paragraph: str) -> list[str]:
    text = re.sub(r"\s+", " ", re.sub(r"^\s*[*-] ", "", paragraph, flags=re.M)).strip()
    return [s for s in re.split(r"(?<!e\.g\.)(?<=\.)\s+(?=[A-Z`*])", text) if s]


@functools.cache
def segments(text: str = GUIDE) -> tuple[str, ...]:
    """The guide's statements: each table cell, and each sentence of the prose (headings left out)."""
    found: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        lines = [line for line in block.splitlines() if not line.startswith("#")]
        if not lines:
            continue
        if lines[0].startswith("|"):
            for line in lines:
                if not re.fullmatch(r"\|[-| ]+\|", line.strip()):
                    found.extend(cell for cell in table_cells(line) if cell)
        else:
            # Bullets are statements of their own.
            for item in re.split(r"\n(?=\s*[*-] )", "\n".join(lines)):
                found.extend(_sentences(item))
    return tuple(found)


def paragraphs(text: str = GUIDE) -> list[str]:
    return [re.sub(r"\s+", " ", p).strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def grab(pattern: str, statement: str) -> tuple[str, ...]:
    """The groups of ``pattern`` in one of the guide's statements; a failure names the statement."""
    match = re.search(pattern, statement)
    assert match, f"{DOC} no longer says {pattern!r} here: {statement!r}"
    return match.groups()


def where(fragment: str) -> str:
    """The guide's statement that holds ``fragment`` (for failure messages)."""
    for segment in segments():
        if fragment in segment:
            return segment
    return fragment


# ----------------------------------------------------------------------------- reading the code


@functools.cache
def source_files() -> tuple[Path, ...]:
    return tuple(sorted(p for pkg in SOURCE_PACKAGES for p in (ROOT / pkg).rglob("*.py")))


@functools.cache
def source_text() -> str:
    return "\n".join(p.read_text("utf-8") for p in source_files())


_PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\d+|\*)?(?:\.\d+)?[sdifrxXeEgGc]")


@functools.cache
def source_strings() -> tuple[str, ...]:
    """Every string the code can print or log, as a glob: %-directives and f-string fields match anything."""
    found: set[str] = set()
    for path in source_files():
        tree = ast.parse(path.read_text("utf-8"))
        in_fstring = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                parts = [v.value if isinstance(v, ast.Constant) else _ANY for v in node.values]
                found.add("".join(str(p) for p in parts))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in in_fstring:
                found.add(_PERCENT.sub(_ANY, node.value).replace("%%", "%"))
    return tuple(sorted(found))


def _literal_overlap(pattern: str, text: str) -> int:
    """Most characters of ``pattern`` matched by literal characters of ``text`` in a common instance of both
    globs (-1: no string matches both). Bottom-up over suffixes: ``best[i][j]`` for ``pattern[i:]``, ``text[j:]``."""
    n, m = len(pattern), len(text)
    best = [[-1] * (m + 1) for _ in range(n + 1)]
    best[n][m] = 0
    for i in range(n, -1, -1):
        for j in range(m, -1, -1):
            if i == n and j == m:
                continue
            options = [-1]
            if i < n and pattern[i] == _ANY:  # the pattern's wildcard absorbs text[j] (or nothing)
                options += [best[i + 1][j], best[i][j + 1] if j < m else -1]
            if j < m and text[j] == _ANY:  # the text's wildcard absorbs pattern[i] (or nothing)
                options += [best[i][j + 1], best[i + 1][j] if i < n else -1]
            if i < n and j < m and pattern[i] == text[j] != _ANY and best[i + 1][j + 1] >= 0:
                options.append(best[i + 1][j + 1] + 1)
            best[i][j] = max(options)
    return best[0][0]


def logged_by_code(quote: str) -> bool:
    """Could a line the code prints contain ``quote``? Its "…" and ``<placeholders>`` stand for anything, and
    enough of its literal text must be the code's own (not all absorbed by a ``%s``)."""
    glob = _ANY + re.sub(r"…|<[^<>]+>", _ANY, quote) + _ANY
    literal = len(glob.replace(_ANY, ""))
    pieces = [p for p in glob.split(_ANY) if len(p) >= 6]
    probes = {p[k : k + 6] for p in pieces for k in range(len(p) - 5)}
    for candidate in source_strings():
        if len(candidate) > 400:  # docstrings and SQL, never a log line
            continue
        if probes and not any(probe in candidate for probe in probes):
            continue
        if _literal_overlap(glob, candidate) >= min(8, literal):
            return True
    return False


@functools.cache
def exit_codes_in_code() -> frozenset[int]:
    """Exit statuses the code can end with: ``typer.Exit(code=N)``, ``sys.exit``/``os._exit``, ``EXIT_* = N``."""
    codes: set[int] = set()
    for path in source_files():
        tree = ast.parse(path.read_text("utf-8"))
        constants = {
            t.id: n.value.value
            for n in tree.body
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, int)
            for t in n.targets
            if isinstance(t, ast.Name)
        }
        codes.update(v for k, v in constants.items() if k.startswith("EXIT_"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            args = [kw.value for kw in node.keywords if kw.arg == "code"] if name == "Exit" else []
            args += node.args[:1] if name in {"exit", "_exit"} else []
            for arg in args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, int):
                    codes.add(arg.value)
                elif isinstance(arg, ast.Name) and arg.id in constants:
                    codes.add(constants[arg.id])
    return frozenset(codes)


def metric_names() -> set[str]:
    names: set[str] = set()
    for family in (*ApiMetrics().registry.collect(), *WorkerMetrics().registry.collect()):
        names.add(family.name)
        if family.type == "counter":
            names.add(f"{family.name}_total")
        names.update(sample.name for sample in family.samples)
    return names


# ----------------------------------------------------------------------------- the schema, as migrated


@pytest.fixture(scope="module")
def schema(chdb_path: Path) -> Iterator[dict[str, Any]]:
    """Tables -> columns and engine of a freshly migrated log (what ``epistream migrate`` leaves)."""
    log = OperationLog.connect(None, path=chdb_path, database=f"ops_guide_{os.getpid()}_{uuid.uuid4().hex[:8]}")
    try:
        here = f"WHERE database = '{log.database}'"  # the client's own current database is not the log's
        columns: dict[str, set[str]] = {}
        # system tables are not readable through the analysts' SQL (sinks.sql_guard): asked directly here
        def rows(sql: str) -> list[Any]:
            return list(log.client.query(sql).result_rows)

        for table, name in rows(f"SELECT table, name FROM system.columns {here}"):
            columns.setdefault(table, set()).add(name)
        engines = dict(rows(f"SELECT name, engine_full FROM system.tables {here}"))
        known = "SELECT name FROM system.settings UNION ALL SELECT name FROM system.merge_tree_settings"
        settings = {row[0] for row in rows(known)}
        yield {"columns": columns, "engines": engines, "settings": settings}
    finally:
        log.close()


def _tables_named(segment: str, columns: dict[str, set[str]]) -> list[str]:
    return [s for s in spans(segment) if s in columns]


# ----------------------------------------------------------------------------- settings


def test_every_epistream_variable_is_a_setting_or_read_by_the_local_services() -> None:
    settings = {f"EPISTREAM_{name.upper()}" for name in Settings.model_fields}
    local = "\n".join(p.read_text("utf-8", "replace") for p in (ROOT / "deploy" / "local").iterdir() if p.is_file())
    named = set(re.findall(r"EPISTREAM_[A-Z0-9_]+", GUIDE))
    assert {"EPISTREAM_PARTITIONS", "EPISTREAM_KAFKA_STARTUP_WAIT_S", "EPISTREAM_CLICKHOUSE_URL"} <= named
    for name in sorted(named - settings):
        assert re.search(rf"\b{name}\b", local), f"{DOC} names {name}, which nothing reads: {where(name)!r}"


def test_settings_values_and_defaults_are_the_codes() -> None:
    """``EPISTREAM_X=value`` must validate; "`EPISTREAM_X` … default V" must be the field's default."""
    for name, value in re.findall(r"`(EPISTREAM_[A-Z0-9_]+)=([^`]+)`", GUIDE):
        field = name.removeprefix("EPISTREAM_").lower()
        assert getattr(Settings(**{field: value}), field) is not None, where(name)
    defaults = re.findall(r"`(EPISTREAM_[A-Z0-9_]+)`[^`]{0,80}?\bdefault `?(\d[\w.]*)`?", GUIDE)
    assert len(defaults) >= 4, defaults
    for name, stated in defaults:
        real = Settings.model_fields[name.removeprefix("EPISTREAM_").lower()].default
        if isinstance(real, int | float) and not isinstance(real, bool):
            assert float(stated) == float(real), f"{name}: the code's default is {real}, not {stated}: {where(name)!r}"
        else:
            assert stated == str(real), f"{name}: the code's default is {real!r}, not {stated!r}: {where(name)!r}"


# ----------------------------------------------------------------------------- commands


def _guide_usages() -> list[Usage]:
    usages = []
    for span in spans(GUIDE):
        if span.startswith("epistream "):
            words = shlex.split(span)[1:]
            path = tuple(w for w in words[:2] if not w.startswith("-"))
            usages.append(Usage(span, path, [(w, None) for w in words if w.startswith("--")]))
    return usages


def test_every_command_and_option_in_the_guide_exists() -> None:
    seen = check_usages(_guide_usages(), DOC)
    assert {("worker",), ("migrate",), ("rebuild-index",), ("sql",), ("dlq", "list"), ("dlq", "replay")} <= seen


def test_options_named_alone_belong_to_the_commands_of_their_sentence_with_their_defaults() -> None:
    """"`--topic` (default `conversation.events`)" in a sentence about `epistream publish` is publish's option."""
    checked = 0
    for segment in segments():
        named = [resolve(u.command, DOC) for u in _guide_usages() if u.text in spans(segment)]
        for span in spans(segment):
            option = span.split()[0]
            if not re.fullmatch(r"--[a-z][a-z0-9-]*", option):
                continue
            owners = [(p, c) for p, c in named if option in command_options(c)]
            if named:
                assert owners, f"no command of this sentence has {option}: {segment!r}"
            else:
                assert any(option in command_options(c) for c in resolve_all()), f"{option}: {segment!r}"
            stated = re.search(rf"`{re.escape(span)}`(?: \(default `([^`]+)`\)| by default)", segment)
            if stated:
                value = stated.group(1) or span.split()[1]
                for path, command in owners:
                    param = next(p for p in command.params if option in p.opts)
                    said = f"epistream {' '.join(path)} {option} defaults to {param.default}: {segment!r}"
                    assert str(param.default) == value, said
                    checked += 1
    assert checked >= 2


def resolve_all() -> list[Any]:
    from typer.main import get_command

    group: Any = get_command(cli_app)
    found = []
    for command in group.commands.values():
        found.extend(command.commands.values() if hasattr(command, "commands") else [command])
    return found


def test_files_and_python_names_the_guide_points_to_exist() -> None:
    checked = 0
    for span in spans(GUIDE):
        for word in span.split():
            head = word.split("/")[0]
            if "/" in word and head and (ROOT / head).is_dir():
                assert (ROOT / word).exists(), f"{DOC} points to {word}, which does not exist: {where(span)!r}"
                checked += 1
        dotted = re.fullmatch(r"([a-z_]+(?:\.[a-z_]+)+)\.([A-Za-z_]\w*)", span)
        if dotted and dotted.group(1).split(".")[0] in SOURCE_PACKAGES:
            module = importlib.import_module(dotted.group(1))
            assert hasattr(module, dotted.group(2)), f"{span} does not exist: {where(span)!r}"
            checked += 1
    assert checked >= 8


def test_identifiers_the_guide_quotes_are_in_the_code(schema: dict[str, Any]) -> None:
    """Error and reason codes, columns, fields: a renamed one leaves the guide pointing at nothing.
    (A ClickHouse setting the guide names is checked against the engine instead.)"""
    words = set(re.findall(r"\w+", source_text()))
    checked = 0
    for span in spans(GUIDE):
        if re.fullmatch(r"[a-z]+(?:_[a-z0-9]+)+", span):
            assert span in words or span in schema["settings"], f"{span} is not in the code: {where(span)!r}"
            checked += 1
    assert checked >= 15


# ----------------------------------------------------------------------------- topics


def _topic_rows() -> list[list[str]]:
    body = section(GUIDE, "Topics and partitions", DOC)
    return [table_cells(line) for line in body.splitlines() if line.startswith("| `")]


def test_the_topic_table_lists_every_topic_the_workers_create_and_which_are_compacted() -> None:
    created = topics.Topics().all()
    listed: dict[str, list[str]] = {}
    for row in _topic_rows():
        for name in spans(row[0]):
            listed[name] = row
    assert set(listed) == set(created), f"{DOC} lists {sorted(listed)}; the workers create {sorted(created)}"
    for name, row in listed.items():
        compacted = created[name].get("cleanup.policy") == "compact"
        assert ("**compacted**" in row[3]) == compacted, f"{name}: compacted is {compacted}: {' | '.join(row)!r}"


def test_the_per_owner_key_is_the_partition_key() -> None:
    row = next(r for r in _topic_rows() if spans(r[0]) == [topics.EVENTS])
    (key,) = spans(row[1])
    assert key == topics.partition_key("tenant", "owner", "scope"), row


def test_dead_letter_headers_are_the_ones_written() -> None:
    row = next(r for r in _topic_rows() if all(s.endswith(topics.DLQ_SUFFIX) for s in spans(r[0])))
    headers = set(spans(row[2].split("headers", 1)[1]))
    written = {v for k, v in vars(topics).items() if k.startswith("H_")}
    assert headers == written, f"DLQ headers: the code writes {sorted(written)}: {' | '.join(row)!r}"


def test_the_partition_count_default_and_mismatch_code() -> None:
    sentence = where("(`EPISTREAM_PARTITIONS`, default")
    assert f"default {topics.DEFAULT_PARTITIONS})" in sentence, sentence
    (code,) = grab(r"refuses to start \(`(\w+)`\)", where("refuses to start"))
    assert f'code="{code}"' in source_text(), f"no error has the code {code}: {where('refuses to start')!r}"


# ----------------------------------------------------------------------------- metrics and log lines


def test_every_metric_name_is_one_the_api_or_a_worker_exports() -> None:
    named = {m for s in spans(GUIDE) for m in re.findall(r"\bepistream_[a-z0-9_]+\b", s)}
    assert len(named) >= 4, named
    exported = metric_names()
    for name in sorted(named):
        assert name in exported, f"no metric {name} (exported: {sorted(exported)}): {where(name)!r}"


def _log_quotes() -> list[tuple[str, str]]:
    """Text the guide tells operators to find in a log: code spans after "log"/"logs" in the same statement."""
    found = []
    for segment in segments():
        match = re.search(r"\blogs?\b", segment)
        if not match:
            continue
        for span in spans(segment[match.end() :]):
            if " " in span and not span.startswith(("epistream ", "-")):
                found.append((span, segment))
    return found


def test_every_log_line_the_guide_quotes_is_logged_by_the_code() -> None:
    quotes = _log_quotes()
    assert len(quotes) >= 10, quotes
    for quote, segment in quotes:
        assert logged_by_code(quote), f"no log line of the code reads like {quote!r}: {segment!r}"


def test_the_log_matcher_tells_real_lines_from_altered_ones() -> None:
    """The matcher itself: a quote with one word changed, or its literal text left to a ``%s``, must fail."""
    assert logged_by_code("ClickHouse sink open") and logged_by_code("index sink: OpenSearch refused N node documents")
    assert not logged_by_code("ClickHouse sink opened")
    assert not logged_by_code("Kafka is not responding yet")
    assert not logged_by_code("agent … crashed (<error type>)")


def test_sink_open_lines_are_logged_below_the_workers_default_level() -> None:
    """The guide says the sink-open lines are info lines, seen only with ``--loglevel info``."""
    trees = [ast.parse(path.read_text("utf-8")) for path in sorted((ROOT / "streams" / "worker").glob("*.py"))]
    levels = {
        node.args[0].value: node.func.attr
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args
        and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
    }  # fmt: skip
    row = where("`ClickHouse sink open`")
    (level,) = grab(r"worker log \((\w+)\): `ClickHouse sink open`", row)
    assert levels["%s sink open"] == level, f"the sink-open lines are logged at {levels['%s sink open']}: {row!r}"
    (worker,) = [c for c in resolve_all() if c.callback.__name__ == "worker"]
    default = next(p.default for p in worker.params if "--loglevel" in p.opts)
    assert logging.getLevelName(str(default).upper()) > logging.getLevelName(level.upper())
    assert f"`--loglevel {default}` by default" in GUIDE, f"the worker logs at {default} by default"


# ----------------------------------------------------------------------------- exit statuses


def test_every_exit_status_the_guide_names_is_one_the_code_uses() -> None:
    named = {int(n) for n in re.findall(r"\bstatus (\d+)\b", GUIDE)}
    assert {2, 70} <= named
    for status in sorted(named):
        assert status in exit_codes_in_code(), f"the code never exits with {status}: {where(f'status {status}')!r}"
    row = where("worker exits with status")
    (stated,) = grab(r"status (\d+)", row)
    assert int(stated) == faust_app.EXIT_AGENT_FAILED, f"a failed agent exits {faust_app.EXIT_AGENT_FAILED}: {row!r}"


def test_a_worker_that_never_reaches_kafka_exits_as_the_guide_says(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sentence = where("exits with status")
    status, code = grab(r"exits with status (\d+) and `(\w+)`", sentence)
    (retry,) = grab(r"each retry logs `([^`]+)`", sentence)
    env = {"EPISTREAM_KAFKA_BOOTSTRAP": "127.0.0.1:1", "EPISTREAM_KAFKA_STARTUP_WAIT_S": "0.6"}
    thresholds = gc.get_threshold()  # the worker tunes the collector of the process it runs in: this one
    try:
        with caplog.at_level(logging.WARNING, logger="epistream.worker"):
            # --role core: a role that indexes would refuse at once without EPISTREAM_OPENSEARCH_URL
            result = CliRunner().invoke(cli_app, ["worker", "--data-dir", str(tmp_path), "--role", "core"], env=env)
    finally:
        gc.set_threshold(*thresholds)
    assert result.exit_code == int(status), (sentence, result.output[-1000:])
    assert code in result.output, result.output[-1000:]
    assert any(retry in r.getMessage() for r in caplog.records), [r.getMessage() for r in caplog.records]


def test_a_cli_command_reports_an_unreachable_backend_as_the_guide_says() -> None:
    sentence = where("Every CLI command reports an unreachable backend")
    (shape,) = [s for s in spans(sentence) if s.startswith('{"error"')]
    code = json.loads(shape.replace(", …", ""))["error"]["code"]
    status = int(grab(r"exit status (\d+)", sentence)[0])
    result = CliRunner().invoke(cli_app, ["dlq", "list", "--bootstrap", "127.0.0.1:1", "--json"])
    assert result.exit_code == status, (sentence, result.output[-1000:])
    assert json.loads(result.stdout.strip().splitlines()[-1])["error"]["code"] == code


# ----------------------------------------------------------------------------- ClickHouse and OpenSearch


def test_the_listed_tables_are_the_migrated_ones_with_the_stated_engine(schema: dict[str, Any]) -> None:
    columns, engines = schema["columns"], schema["engines"]
    listing = where("Tables: `")
    listed = set(_tables_named(listing.split(" — ")[0], columns))
    (migrations,) = grab(r"table `(\w+)`", where("versioned migrations"))
    assert listed | {migrations} == set(engines), f"migrated tables are {sorted(engines)}: {listing!r}"
    for table in listed:
        assert engines[table].startswith("ReplacingMergeTree"), (table, engines[table], listing)
        assert "PARTITION BY toYYYYMM(" in engines[table], f"{table} is not partitioned by month: {listing!r}"
    assert "`op_type`" in listing and "op_type" in columns["operations"]


def test_columns_named_beside_a_table_exist(schema: dict[str, Any]) -> None:
    """"`dead_letters` rows with `reason_code = 'index_rejected'` (`source` …)": columns of that one table."""
    columns = schema["columns"]
    checked = 0
    for segment in segments():
        tables = set(_tables_named(segment, columns))
        if len(tables) != 1:
            continue
        (table,) = tables
        for span in spans(segment):
            column = re.fullmatch(r"(\w+)(?: = '([^']*)')?", span)
            if not column or span in columns or span in topics.Topics().all():
                continue
            assert column.group(1) in columns[table], f"{table} has no column {column.group(1)}: {segment!r}"
            if column.group(2) is not None:  # a value the code writes
                assert f'"{column.group(2)}"' in source_text(), f"the code never writes {span}: {segment!r}"
            checked += 1
    assert checked >= 5


def test_cluster_recipe_fits_every_table(schema: dict[str, Any]) -> None:
    """Each table shards by columns it has, and keeps its ReplacingMergeTree version column."""
    columns, engines = schema["columns"], schema["engines"]
    cluster = next(p for p in paragraphs() if "Distributed(" in p)
    default_key: tuple[list[str], str] | None = None
    own_key: dict[str, tuple[list[str], str]] = {}
    for sentence in _sentences(cluster):
        for key in re.findall(r"cityHash64\(([^)]*)\)", sentence):
            cols = [c.strip() for c in key.split(",")]
            named = [t for t in _tables_named(sentence, columns) if "Distributed(" not in sentence]
            if named:
                own_key.update(dict.fromkeys(named, (cols, sentence)))
            else:
                default_key = (cols, sentence)
    assert default_key, cluster
    for table in set(engines) - {"schema_migrations"}:
        key, said = own_key.get(table, default_key)
        missing = [c for c in key if c not in columns[table]]
        assert not missing, f"{table} has no {missing} to shard by: {said!r}"
        version = re.match(r"ReplacingMergeTree\((\w+)\)", engines[table])
        if version:
            holder = [s for s in _sentences(cluster) if f"`{table}`" in s and version.group(1) in s]
            assert holder, f"{table} is ReplacingMergeTree({version.group(1)}); the cluster recipe drops it"


def test_index_names_are_the_codes() -> None:
    alias = Settings.model_fields["opensearch_index"].default
    assert alias == opensearch_mapping.DEFAULT_ALIAS
    text = section(GUIDE, "OpenSearch", DOC)
    assert f"`{alias}` (`EPISTREAM_OPENSEARCH_INDEX`)" in text, f"the alias is {alias} (EPISTREAM_OPENSEARCH_INDEX)"
    assert f"`{opensearch_mapping.index_name(alias, 1)}`" in text
    assert opensearch_mapping.VECTOR_ENGINE == "lucene" and "Lucene" in text
    # What `epistream migrate` (ensure_index) and a worker's writer (OpenSearchIndex) create the index with.
    made = {
        (sig.parameters["shards"].default, sig.parameters["replicas"].default)
        for sig in map(inspect.signature, (opensearch_mapping.ensure_index, OpenSearchIndex))
    }
    assert len(made) == 1, made
    ((shards, replicas),) = made
    said = f"created with {shards} shard and {replicas} replicas"
    assert said in text, f"indices are {said}"
