"""The examples of README.md and docs/, read from the pages themselves and run or checked against the real code.

Newcomers run the README's tour and Python lines; analysts copy the ``epistream sql``
statements (docs/analytics.md), chat platforms the event format (docs/events.md), assistant
builders the routes, permissions and the client snippet (docs/api.md), operators the settings
(docs/configuration.md) and everyone the command reference (docs/cli.md). A page edit or a code
change that breaks one of them fails here. The SQL runs through the real ``epistream sql``
command over a chDB log holding the bundled demo conversations, posted through
``POST /v1/events`` as a chat platform would (so ``recorded_at`` is a real receive time). chDB
allows one engine path per process: the log lives in the session ``chdb_path`` under this
module's own database, and the CLI's connection is pointed at that database; the README's tour
and Python lines run in processes of their own.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shlex
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr
from typer.main import get_command
from typer.testing import CliRunner

import schemas.errors as errors_module
from engine.config import DEFAULT_MATRIX, DEFAULT_NODE_TTL_DAYS, DEFAULT_SIGNAL_WEIGHTS, DEFAULT_TYPE_CEILINGS
from engine.rules import LIFECYCLE_TRANSITIONS
from epistream.api import ApiKey, ApiKeyRing, Permission, create_app, hash_key_sha256
from epistream.api.auth import generate_key
from epistream.api.models import RetrieveBody
from epistream.cli import app as cli_app
from epistream.cli.demo import REFERENCE_TIME, demo_lines
from epistream.client import AsyncEpistreamClient, EpistreamClient
from epistream.runner import EmbeddedRunner
from schemas.canonical import iso
from schemas.commands import COMMANDS
from schemas.enums import EpistemicType, LifecycleState, NodeType
from schemas.errors import InvalidEvent
from schemas.events import ConversationEvent, EventCodes, parse_event
from schemas.settings import Settings
from sinks.clickhouse import OperationLog
from sinks.clickhouse_schema import RECEIPTS_TABLE, TABLES
from sinks.embedding import HashEmbedder
from tests.markdown_docs import (
    ROOT,
    Usage,
    all_docs,
    anchors,
    check_usages,
    doc_names,
    epistream_argv,
    fenced,
    links,
    options,
    read,
    section,
    shell_commands,
    spans,
    table_rows,
    tables,
)

pytestmark = pytest.mark.integration

README = read("README.md")
_HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
#: Paths of the layout before it moved (README and docs must not send anyone there).
_STALE_PATHS = (
    "retrieval/api", "retrieval/client.py", "streams/embedded.py", "retrieval/models.py", "retrieval/backend.py",
    "epistream/settings.py", "extractors/cli.py", "_canonical",
)  # fmt: skip


def page(name: str) -> str:
    return read(f"docs/{name}")


def in_page(name: str, title: str) -> str:
    return section(page(name), title, f"docs/{name}")


def _usage_words(span: str) -> list[str]:
    return span.replace("\\|", "|").replace("[", " ").replace("]", " ").split()


@functools.cache
def cli_usages() -> tuple[Usage, ...]:
    """Every way README.md and docs/ say to call ``epistream``: tables, inline spans and shell blocks."""
    usages: list[Usage] = []
    # The explicit commands' table: name, then the options of the "own options" column.
    for row in _explicit_rows():
        (name,) = spans(row[0])
        usages.append(Usage(row[0], (name,), options([w for s in spans(row[2]) for w in s.split()])))
    for name, text in all_docs().items():
        # Inline mentions, e.g. `epistream api-key --id bot --tenant acme …`.
        for span in spans(text):
            if span.startswith("epistream "):
                words = _usage_words(span)[1:]
                if words and not words[0].startswith("-"):
                    sub = [w for w in words[1:2] if not w.startswith("-")]  # `epistream dlq list`
                    for command in words[0].split("|"):
                        usages.append(Usage(f"{name}: {span}", (command, *sub), options(words[1:])))
        # Shell blocks, e.g. `EPISTREAM_OPENSEARCH_URL=… epistream worker &` and `epistream dlq list`.
        for block in fenced(text, "sh"):
            for argv in shell_commands(block, name):
                words = epistream_argv(argv)
                if words:
                    path = tuple(w for w in words if not w.startswith("-"))
                    usages.append(Usage(f"{name}: {' '.join(argv)}", path, options(words)))
    return tuple(usages)


def sql_examples() -> list[list[str]]:
    """argv (after ``epistream``) of every ``epistream sql`` in the shell blocks of README.md and docs/."""
    found = []
    for name, text in all_docs().items():
        for block in fenced(text, "sh"):
            for argv in shell_commands(block, name):
                words = epistream_argv(argv)
                if words and words[0] == "sql":
                    found.append(words)
    return found


# ----------------------------------------------------------------------------- the demo deployment


@dataclass
class Deployment:
    runner: EmbeddedRunner
    log: OperationLog
    database: str
    chdb_path: Path
    http: TestClient
    token: str
    #: Bearer tokens by name: "all-but-<permission>" and "only-<permission>" for every permission.
    tokens: dict[str, str]


@pytest.fixture(scope="module")
def deployment(chdb_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    root = tmp_path_factory.mktemp("readme")
    database = f"readme_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    settings = Settings(
        data_dir=root / "data", embedder="hash", extractor="rules", clickhouse_url=None, opensearch_url=None,
        api_mode="embedded", api_rate_limit_per_s=10_000.0, api_rate_burst=10_000,
    )  # fmt: skip
    token = generate_key()
    keys = [ApiKey(id="platform", tenant_id="acme", permissions=frozenset(Permission), sha256=hash_key_sha256(token))]
    tokens: dict[str, str] = {}
    for permission in Permission:
        for name, granted in ((f"all-but-{permission.value}", frozenset(Permission) - {permission, Permission.ADMIN}),
                              (f"only-{permission.value}", frozenset({permission}))):  # fmt: skip
            tokens[name] = generate_key()
            keys.append(ApiKey(id=name, tenant_id="acme", permissions=granted, sha256=hash_key_sha256(tokens[name])))
    log = OperationLog.connect(None, path=chdb_path, database=database)
    runner = EmbeddedRunner(settings.data_dir, settings, embedder=HashEmbedder(), log=log)
    try:
        app = create_app(runner, api_keys=ApiKeyRing(keys), settings=settings, clock=lambda: REFERENCE_TIME)
        with TestClient(app) as http:
            events = [json.loads(line) for line in demo_lines()]
            posted = http.post("/v1/events", json={"events": events}, headers={"Authorization": f"Bearer {token}"})
            assert posted.status_code == 200, posted.text
            assert posted.json()["accepted"] == len(events)
            # One assistant question, so the retrieval receipts the analysts' SQL reads exist.
            asked = http.post(
                "/v1/retrieve",
                json={"query": "where does alice live", "owner_id": "alice"},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert asked.status_code == 200 and asked.json()["receipt_id"], asked.text
            assert app.state.api.receipts.flush()
            yield Deployment(runner, log, database, chdb_path, http, token, tokens)
    finally:
        runner.close()
        log.close()


def run_cli(argv: list[str]) -> Any:
    result = CliRunner().invoke(
        cli_app, argv, catch_exceptions=False,
        env={"EPISTREAM_CLICKHOUSE_URL": None, "EPISTREAM_API_MODE": None, "EPISTREAM_CLOCK": iso(REFERENCE_TIME)},
    )
    assert result.exit_code == 0, f"{argv}: exit {result.exit_code}\n{result.output[-2000:]}"
    return json.loads(result.output)


@contextlib.contextmanager
def cli_log_in(deployment: Deployment, data_dir: Path) -> Iterator[list[Path]]:
    """Point the CLI's chDB connection at this module's database in the session engine path."""
    original = OperationLog.connect
    asked: list[Path] = []

    def connect(
        url: str | None = None, *, path: Any = None, database: str = "epistream", run_migrations: bool = True
    ) -> OperationLog:
        asked.append(Path(path))
        assert Path(path) == data_dir, "the CLI must open the log of its --data-dir"
        return original(url, path=deployment.chdb_path, database=deployment.database, run_migrations=run_migrations)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(OperationLog, "connect", connect)
        yield asked


def _empty(value: Any) -> bool:
    if isinstance(value, list | tuple):
        return all(_empty(v) for v in value)
    return value is None or value == "" or value == 0


def _own_process_env(data_dir: Path) -> dict[str, str]:
    """A shell with no deployment in it: the embedded pipeline, the hash embedder, this data directory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EPISTREAM_")}
    return {**env, "EPISTREAM_DATA_DIR": str(data_dir), "EPISTREAM_EMBEDDER": "hash", "PYTHONPATH": str(ROOT),
            "EPISTREAM_CLOCK": iso(REFERENCE_TIME)}  # the demo's "now", whatever the machine's date


# ----------------------------------------------------------------------------- the front door


def test_readme_is_a_front_door_of_at_most_12_kib() -> None:
    assert len(README.encode()) <= 12 * 1024, f"README.md is {len(README.encode()):,} bytes; move detail to docs/"


def test_readme_links_every_page_and_every_link_resolves() -> None:
    pages = {name for name in doc_names() if name != "README.md"}
    assert pages >= {f"docs/{p}.md" for p in (
        "model", "cli", "events", "analytics", "distributed", "api", "configuration", "operations", "performance",
        "layout",
    )}  # fmt: skip
    assert pages <= set(links(README)), f"README.md does not link {sorted(pages - set(links(README)))}"
    for name, text in all_docs().items():
        for target in links(text):
            if re.match(r"\w+://", target):
                continue
            path, _, fragment = target.partition("#")
            resolved = (ROOT / name).parent / path if path else ROOT / name
            assert resolved.exists(), f"{name} links {target}, which does not exist"
            if fragment:
                assert fragment in anchors(resolved.read_text("utf-8")), f"{name} links {target}: no such heading"


def test_the_pages_send_nobody_to_the_old_layout() -> None:
    for name, text in all_docs().items():
        for stale in _STALE_PATHS:
            assert stale not in text, f"{name} mentions {stale}, which moved"


def test_the_tour_runs_on_the_bundled_demo(tmp_path: Path) -> None:
    """Each command of the README's tour, as written, in a fresh process (the hash embedder, for speed)."""
    (block,) = fenced(section(README, "A 60-second tour"), "sh")
    commands = shell_commands(block)
    names = [(epistream_argv(a) or ["?"])[0] for a in commands]
    assert names[:5] == ["ingest", "query", "query", "world", "provenance"], names
    env = _own_process_env(tmp_path / "tour")
    said = re.search(r"(\d+) events -> (\d+) claims, (\d+) operations", block)
    assert said, "the tour says what the ingest makes of the demo"
    outputs: dict[str, list[Any]] = {}
    for argv in commands:
        words = epistream_argv(argv)
        assert words is not None, f"the tour runs only epistream: {argv}"
        run = subprocess.run(
            [sys.executable, "-c", "from epistream.cli import main; main()", *words, "--json"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=180, check=False,
        )  # fmt: skip
        assert run.returncode == 0, f"{' '.join(argv)}: exit {run.returncode}\n{run.stderr[-2000:]}"
        outputs.setdefault(words[0], []).append(json.loads(run.stdout))
    (ingested,) = outputs["ingest"]
    assert (ingested["events"], ingested["claims"], ingested["operations"]) == tuple(map(int, said.groups()))
    assert ingested["events"] == len(demo_lines())
    default, explicit = outputs["query"]
    assert default["items"] and all(i["label"]["epistemic_type"] != "HYPOTHETICAL" for i in default["items"])
    assert any(e["reason"].startswith("lifecycle_filtered:superseded") for e in explicit["excluded"])
    (world,) = outputs["world"]
    assert world["facts"] and world["conflicts"]
    (provenance,) = outputs["provenance"]
    assert provenance["node"]["lifecycle"] == "CONTESTED" and provenance["node"]["content"] in block
    (state,) = outputs["state"]
    assert state["status"] == "single" and state["status"] in block and "Berlin" in block
    assert [v["object"] for v in state["current_values"]] == ["Berlin"]


def test_the_python_surface_runs(tmp_path: Path) -> None:
    """The README's Python lines, as written, in a fresh process; and the methods the README names exist."""
    (snippet,) = fenced(section(README, "From Python"), "python")
    from epistream import Memory

    named = set(spans(section(README, "From Python"))) | set(re.findall(r"memory\.(\w+)\(", snippet))
    for name in sorted(n for n in named if re.fullmatch(r"[a-z_]+", n)):
        assert callable(getattr(Memory, name, None)), f"README names Memory.{name}, which does not exist"
    check = (
        "\nassert any(i.predicate == 'lives_in' and i.object == 'Berlin' for i in answer.items), answer.items"
        "\nassert world.facts and why is not None and why.node.content"
    )
    run = subprocess.run(
        [sys.executable, "-c", snippet + check], cwd=tmp_path, env=_own_process_env(tmp_path / "unused"),
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Berlin" in run.stdout


def test_shell_helpers_the_pages_run_exist() -> None:
    dev = (ROOT / "dev").read_text()
    cases = set(re.findall(r"^\s+([a-z]+)\)", dev, flags=re.M))
    used: set[str] = set()
    for name, text in all_docs().items():
        used |= {a[1] for block in fenced(text, "sh") for a in shell_commands(block, name) if a[0] == "./dev"}
        used |= {s.split()[1] for s in spans(text) if s.startswith("./dev ")}
    assert {"demo", "test", "services"} <= used
    assert used <= cases, used - cases


def test_files_and_tests_the_pages_point_to_exist() -> None:
    referenced: dict[str, str] = {}
    for name, text in all_docs().items():
        shell_words = [" ".join(argv) for block in fenced(text, "sh") for argv in shell_commands(block, name)]
        for span in spans(text) + shell_words:  # (links: test_readme_links_every_page_and_every_link_resolves)
            for word in span.split():
                # Files anywhere; folders only with a parent ("deploy/local/"), since a bare "unit/" in the
                # layout table is relative to its row.
                if re.fullmatch(r"([\w.-]+/)+[\w.{},-]*\.(py|md|jsonl|yaml|toml)|[\w-]+/([\w-]+/)+", word):
                    referenced.setdefault(word, name)
    for row in tables(page("layout.md"))[0][1:]:  # folder -> what it owns
        referenced.setdefault(row[0].strip("`"), "docs/layout.md")
    assert {"deploy/local/README.md", "epistream/client.py", "epistream/demo/conversations.jsonl"} <= set(referenced)
    for ref, name in sorted(referenced.items()):
        brace = re.search(r"\{([^}]*)\}", ref)
        alternatives = brace.group(1).split(",") if brace else [""]
        for alternative in alternatives:
            path = ref[: brace.start()] + alternative + ref[brace.end() :] if brace else ref
            assert (ROOT / path).exists(), f"{name} points to {path}, which does not exist"
    tests_text = "\n".join(p.read_text("utf-8") for p in (ROOT / "tests").rglob("*.py"))
    for name, text in all_docs().items():
        for test in {s for s in spans(text) if re.fullmatch(r"test_\w+", s)}:
            assert f"def {test}(" in tests_text, f"{name} cites {test}, which no test defines"


# ----------------------------------------------------------------------------- the model


def _number(cell: str) -> float | None:
    return None if cell.strip() in {"—", "-", ""} else float(cell)


def test_the_confidence_matrix_is_the_engines() -> None:
    (matrix,) = [t for t in tables(page("model.md")) if t[0][0].startswith("type \\ source")]
    sources = matrix[0][1:]
    found = {}
    for row in matrix[1:]:
        for source, cell in zip(sources, row[1:], strict=True):
            value = _number(cell)
            if value is not None:
                found[f"{row[0].lower()}:{source.lower()}"] = value
    assert found == DEFAULT_MATRIX


def test_the_signals_ceilings_lifecycle_and_ttls_are_the_engines() -> None:
    text = page("model.md")
    signals = {row[0]: row[2] for row in table_rows(in_page("model.md", "Confidence evolution")) if len(row) == 3}
    assert set(signals) == {s.value for s in DEFAULT_SIGNAL_WEIGHTS}
    for signal, weight in DEFAULT_SIGNAL_WEIGHTS.items():
        stated = re.search(r"\d\.\d+", signals[signal.value])
        assert (float(stated.group(0)) if stated else 0.0) == weight, signal
    for kind, ceiling in DEFAULT_TYPE_CEILINGS.items():
        assert f"{kind.value} {ceiling:.2f}" in re.sub(r"\s+", " ", text), f"ceiling of {kind.value}"
    lifecycle = {row[0]: row[1] for row in table_rows(in_page("model.md", "Lifecycle"))}
    for state, targets in LIFECYCLE_TRANSITIONS.items():
        stated = set(re.findall(r"[A-Z]+", lifecycle[state.value]))
        assert stated == {t.value for t in targets}, state
    world = re.sub(r"\s+", " ", in_page("model.md", "World view"))
    ttl_clause = re.search(r"TTL: (.*?), counted from", world)
    forever_clause = re.search(r"; ([^;]*) never expire", world)
    assert ttl_clause and forever_clause, world
    stated: dict[str, float] = {}
    for part in ttl_clause.group(1).split(", "):
        days = float(re.findall(r"\d+", part)[0])
        stated.update((word, days) for word in re.findall(r"[a-z]+", part) if word not in {"and", "days"})

    def named(node_type: NodeType, words: Any) -> bool:
        return any(w.startswith(node_type.value.lower()[:-1]) for w in words)

    for node_type in NodeType:
        matches = [days for word, days in stated.items() if named(node_type, [word])]
        if node_type in DEFAULT_NODE_TTL_DAYS:
            assert matches == [DEFAULT_NODE_TTL_DAYS[node_type]], f"TTL of {node_type.value}: {matches}"
        else:
            assert not matches and named(node_type, forever_clause.group(1).split()), f"{node_type.value} never expires"


# ----------------------------------------------------------------------------- analysts' SQL


def test_the_pages_have_the_analyst_examples() -> None:
    examples = sql_examples()
    assert len(examples) >= 4, examples
    text = " ".join(" ".join(e) for e in examples)
    for must in ("operations", "extraction_journal", "raw_events", "retrieval_requests", "<node id>"):
        assert must in text


def test_every_sql_example_runs_and_returns_real_values(deployment: Deployment, tmp_path: Path) -> None:
    # The memory whose life docs/analytics.md follows: one that changed after it was asserted.
    superseded = [n for n in deployment.runner.store.iter_nodes() if n.lifecycle is LifecycleState.SUPERSEDED]
    assert superseded, "the demo should supersede a claim (Paris -> Berlin)"
    substitutions = {"<node id>": superseded[0].node_id}
    data_dir = tmp_path / "cli"
    for example in sql_examples():
        argv = list(example)
        for placeholder in re.findall(r"<[^<>']+>", " ".join(argv)):
            assert placeholder in substitutions, f"no value for the placeholder {placeholder}"
        argv = [re.sub(r"<[^<>']+>", lambda m: substitutions[m.group(0)], a) for a in argv]
        with cli_log_in(deployment, data_dir) as asked:
            result = run_cli([*argv, "--data-dir", str(data_dir), "--json"])
        assert asked == [data_dir], "epistream sql must read the log of its --data-dir"
        statement = argv[1]
        assert result["rows"], f"no rows on the demo data for: {statement}"
        assert result["truncated"] is False
        # A misspelt JSON path or an always-missing value reads as ''/0, not as an error: every column
        # must carry at least one real value.
        for i, column in enumerate(result["columns"]):
            assert not all(_empty(row[i]) for row in result["rows"]), f"column {column} is empty: {statement}"


def test_the_life_of_a_memory_shows_each_lifecycle_step(deployment: Deployment, tmp_path: Path) -> None:
    """The per-memory example, on the superseded claim: asserted, then superseded."""
    example = next(e for e in sql_examples() if "<node id>" in e[1])
    node = next(n for n in deployment.runner.store.iter_nodes() if n.lifecycle is LifecycleState.SUPERSEDED)
    data_dir = tmp_path / "cli"
    with cli_log_in(deployment, data_dir):
        statement = example[1].replace("<node id>", node.node_id)
        result = run_cli([example[0], statement, "--data-dir", str(data_dir), "--json"])
    rows = [dict(zip(result["columns"], row, strict=True)) for row in result["rows"]]
    assert rows[0]["op_type"] == "ASSERT" and rows[0]["lifecycle"] == LifecycleState.TENTATIVE.value
    assert rows[-1]["lifecycle"] == LifecycleState.SUPERSEDED.value
    assert all(0 < float(r["confidence"]) <= 0.97 for r in rows)


def test_the_documented_columns_exist(deployment: Deployment) -> None:
    """The analysts' table: each listed column is in its table, each JSON key (in parentheses) in its JSON."""
    # system tables are not readable through the analysts' SQL (sinks.sql_guard): asked directly here
    rows = deployment.log.client.query(
        "SELECT table, name FROM system.columns WHERE database = {db:String}",
        parameters={"db": deployment.log.database},
    ).result_rows
    columns: dict[str, set[str]] = {}
    for table, name in rows:
        columns.setdefault(table, set()).add(name)
    documented = table_rows(in_page("analytics.md", "Tables"))
    assert {row[0].strip("`") for row in documented} == {*TABLES, RECEIPTS_TABLE}
    for table, _, useful in documented:
        table = table.strip("`")
        outside = re.sub(r"\([^()]*\)", "", useful)
        for span in spans(outside):
            for name in span.split("/"):
                assert name in columns[table], f"{table}.{name} is not a column"
        for before, inner in re.findall(r"`(\w+)`\s*\(([^()]*)\)", useful):
            for key in spans(inner):
                statement = f"SELECT count() FROM {table} FINAL WHERE JSONHas({before}, '{key}')"
                found = deployment.log.read_only_query(statement).rows[0][0]
                assert found > 0, f"no {table}.{before} JSON has the key {key!r}"


def test_sql_options_in_the_pages_work(deployment: Deployment, tmp_path: Path) -> None:
    """``--max-rows`` and ``-`` (statement from stdin), as docs/analytics.md describes."""
    text = page("analytics.md")
    assert "--max-rows" in text and "`-` reads the" in text
    where = ["--data-dir", str(tmp_path / "cli"), "--json"]
    with cli_log_in(deployment, tmp_path / "cli"):
        capped = run_cli(["sql", "SELECT event_id FROM raw_events FINAL", "--max-rows", "2", *where])
        piped = CliRunner().invoke(
            cli_app, ["sql", "-", *where], input="SELECT count() FROM raw_events FINAL",
            env={"EPISTREAM_CLICKHOUSE_URL": None, "EPISTREAM_CLOCK": iso(REFERENCE_TIME)},
        )  # fmt: skip
    assert len(capped["rows"]) == 2 and capped["truncated"] is True
    assert piped.exit_code == 0, piped.output
    assert json.loads(piped.output)["rows"] == [[len(demo_lines())]]


# ----------------------------------------------------------------------------- the command line


def _leaf_commands() -> dict[tuple[str, ...], Any]:
    found: dict[tuple[str, ...], Any] = {}
    for name, command in get_command(cli_app).commands.items():
        if hasattr(command, "commands"):
            found.update({(name, sub): c for sub, c in command.commands.items()})
        else:
            found[(name,)] = command
    return found


def _explicit_rows() -> list[list[str]]:
    return tables(in_page("cli.md", "Explicit commands"))[0][1:]


def _params(command: Any) -> tuple[set[str], list[str]]:
    """Options (without --help) and argument names (upper case, in order) of a command."""
    opts = {o for p in command.params if p.param_type_name == "option" for o in p.opts} - {"--help"}
    args = [p.name.upper() for p in command.params if p.param_type_name == "argument"]
    return opts, args


def test_the_pages_name_the_commands_people_use() -> None:
    named = {u.command[0] for u in cli_usages()}
    assert {"demo", "ingest", "extract", "query", "sql", "api", "api-key", "worker", "publish", "dlq"} <= named


def test_every_command_and_option_in_the_pages_exists() -> None:
    check_usages(cli_usages(), "README.md or docs/")


def test_the_cli_reference_lists_every_command_and_option() -> None:
    """docs/cli.md: one section per command with exactly its arguments and options; defaults are the code's."""
    text = page("cli.md")
    sections = re.findall(r"^### `epistream ([a-z -]+)`\n(.*?)(?=^##|\Z)", text, flags=re.M | re.S)
    explicit = {tuple(spans(row[0])) for row in _explicit_rows()}
    leaves = _leaf_commands()
    assert {tuple(name.split()) for name, _ in sections} | explicit == set(leaves)
    assert not {tuple(name.split()) for name, _ in sections} & explicit
    for name, body in sections:
        command = leaves[tuple(name.split())]
        opts, args = _params(command)
        rows = table_rows(body)
        listed = [spans(row[0])[0] for row in rows]
        assert {o for o in listed if o.startswith("--")} == opts, f"epistream {name}: options"
        assert [a for a in listed if not a.startswith("--")] == args, f"epistream {name}: arguments"
        by_opt = {o: p for p in command.params for o in (p.opts if p.param_type_name == "option" else [p.name.upper()])}
        for row in rows:
            stated = spans(row[2])
            if stated:
                default = by_opt[spans(row[0])[0]].default
                value = getattr(default, "value", default)
                assert stated[0] == str(value), f"epistream {name} {row[0]}: default {value!r}, not {stated[0]}"


def test_the_explicit_commands_are_the_registry() -> None:
    rows = _explicit_rows()
    assert [spans(row[0])[0] for row in rows] == [spec.name for spec in COMMANDS]
    common = {spans(row[0])[0] for row in tables(in_page("cli.md", "Explicit commands"))[1][1:]}
    leaves = _leaf_commands()
    for row, spec in zip(rows, COMMANDS, strict=True):
        opts, args = _params(leaves[(spec.name,)])
        own = {w for s in spans(row[2]) for w in s.split() if w.startswith("--")}
        assert own | common == opts, f"{spec.name}: options {sorted(opts)}"
        assert spans(row[1]) == args, f"{spec.name}: arguments {args}"
        assert row[3].split()[0] == spec.permission, f"{spec.name} needs the {spec.permission} permission"
        for option, default in re.findall(r"`(--[a-z-]+)`[^`]*?default `([^`]+)`", row[2]):
            param = next(p for p in leaves[(spec.name,)].params if option in p.opts)
            assert str(getattr(param.default, "value", param.default)) == default, (spec.name, option)


def test_the_conventions_name_the_commands_without_json_or_a_data_dir() -> None:
    conventions = re.sub(r"\s+", " ", in_page("cli.md", "Conventions"))
    leaves = _leaf_commands()

    def named(sentence: str) -> set[tuple[str, ...]]:
        found: set[tuple[str, ...]] = set()
        for span in spans(sentence):
            found |= {path for path in leaves if path[0] == span}
        return found

    no_json = re.search(r"[^.]*have no `--json`[^.]*\.", conventions)
    no_data_dir = re.search(r"Commands that talk only to Kafka[^.]*\.", conventions)
    assert no_json and no_data_dir, conventions
    assert named(no_json.group(0)) == {p for p, c in leaves.items() if "--json" not in _params(c)[0]}
    assert named(no_data_dir.group(0)) == {p for p, c in leaves.items() if "--data-dir" not in _params(c)[0]}


def test_api_key_example_makes_a_key_the_api_accepts(tmp_path: Path) -> None:
    span = next(s for s in spans(page("api.md")) if s.startswith("epistream api-key "))
    out = CliRunner().invoke(cli_app, shlex.split(span)[1:])
    assert out.exit_code == 0, out.output
    printed = json.loads(out.output)
    assert '`{"keys": [entry, ...]}`' in in_page("api.md", "Keys and permissions")  # the file format people follow
    keys_file = tmp_path / "keys.json"
    keys_file.write_text(json.dumps({"keys": [printed["keys_file_entry"]]}))
    key = ApiKeyRing.from_file(keys_file).authenticate(f"Bearer {printed['api_key']}")
    assert key.tenant_id == "acme" and key.has(Permission.READ) and key.has(Permission.WRITE)
    assert not key.has(Permission.ADMIN)


# ----------------------------------------------------------------------------- events


def test_event_examples_are_admitted() -> None:
    examples = [
        (name, block) for name, text in all_docs().items() for block in fenced(text, "json") if '"event_id"' in block
    ]
    assert any(name == "docs/events.md" for name, _ in examples)
    for _, block in examples:
        event = parse_event(" ".join(block.split()).encode())
        assert event.tenant_id == "acme" and event.owner_id == "alice" and event.occurred_at.tzinfo is not None


def test_the_event_fields_are_the_models() -> None:
    listed = {spans(row[0])[0] for row in table_rows(in_page("events.md", "Fields"))}
    assert listed == set(ConversationEvent.model_fields)


def test_every_reason_code_is_listed_and_each_example_fails_with_its_code() -> None:
    admission, later = tables(in_page("events.md", "Dead letters"))
    codes = {v for k, v in vars(EventCodes).items() if k.isupper()}
    assert {spans(row[0])[0] for row in admission[1:]} == codes
    checked = 0
    for row in admission[1:]:
        (code,) = spans(row[0])
        for example in spans(row[2]):
            with pytest.raises(InvalidEvent) as refused:
                parse_event(example.encode())
            assert refused.value.code == code, f"{example} is refused as {refused.value.code}, not {code}"
            checked += 1
    assert checked >= 10
    source = "\n".join(p.read_text("utf-8") for pkg in ("streams", "epistream") for p in (ROOT / pkg).rglob("*.py"))
    for row in later[1:]:
        (code,) = spans(row[0])
        assert f'"{code}"' in source, f"no stage writes the reason code {code}"


# ----------------------------------------------------------------------------- the HTTP API


def _routes(http: TestClient) -> set[tuple[str, str]]:
    """(method, path) of the published OpenAPI schema, which is what assistant builders code against."""
    schema = http.get("/openapi.json")
    assert schema.status_code == 200
    found = {("GET", "/openapi.json")}
    for path, operations in schema.json()["paths"].items():
        for method in operations:
            found.add((method.upper(), re.sub(r"\{[^}]+\}", "{}", path)))
    return found


def _doc_routes(text: str) -> list[tuple[str | None, str]]:
    """``POST /v1/nodes/{id}/reinforce|penalize`` -> one (method, path) per alternative."""
    found: list[tuple[str | None, str]] = []
    for span in spans(text):
        match = re.fullmatch(rf"(?:({'|'.join(_HTTP_METHODS)}) )?(/(?:v1/|metrics|openapi\.json)[^\s?]*)", span)
        if not match:
            continue
        method, path = match.groups()
        head, _, tail = path.rpartition("/")
        for alternative in tail.split("|"):
            found.append((method, re.sub(r"\{[^}]+\}", "{}", f"{head}/{alternative}")))
    return found


def test_every_route_in_the_pages_exists_with_its_method(deployment: Deployment) -> None:
    routes = _routes(deployment.http)
    mentioned = [(name, r) for name, text in all_docs().items() for r in _doc_routes(text)]
    assert len({r for _, r in mentioned}) >= 18, mentioned
    for name, (method, path) in mentioned:
        if method is None:
            assert any(p == path for _, p in routes), f"{name} names {path}; the API has no such route"
        else:
            assert (method, path) in routes, f"{name} names {method} {path}; the API has no such route"
    listed = {r for row in table_rows(page("api.md")) for r in _doc_routes(row[0])}
    assert {r for r in routes if r[1].startswith("/v1/")} <= listed, "docs/api.md lists every /v1 route"


_BODIES: dict[str, Any] = {
    "/v1/events": {"events": [json.loads(demo_lines()[0])]},
    "/v1/retrieve": {"query": "coffee", "owner_id": "alice"},
    "/v1/assertions/state": {"owner_id": "alice", "subject": "user", "predicate": "lives_in",
                             "valid_at": "2026-09-21T11:00:00Z"},
    "/v1/contradictions": {"node_a": "a", "node_b": "b"},
    "/v1/contradictions/resolve": {"winner_id": "a", "loser_id": "b"},
    "/v1/nodes/{}/condition": {"state": "TRUE"},
    "/v1/nodes/{}/transition": {"to_type": "ASSERTED"},
    "/v1/nodes/{}/revalidate": {"expires_at": "2027-01-01T00:00:00Z", "evidence_quote": "still true"},
}  # fmt: skip


def _call(deployment: Deployment, method: str, path: str, token: str, body: Any = None) -> httpx.Response:
    url = path.replace("{}", "no-such-node").replace("/v1/retrievals/no-such-node", f"/v1/retrievals/{uuid.uuid4()}")
    params = {"owner_id": "alice"} if path == "/v1/world-context" else None
    payload = _BODIES.get(path, {}) if body is None and method in {"POST", "PUT"} else body
    return deployment.http.request(method, url, json=payload, params=params,
                                   headers={"Authorization": f"Bearer {token}"})  # fmt: skip


def test_each_route_needs_the_permission_the_page_gives(deployment: Deployment) -> None:
    """A key with every permission but the listed one is refused (403); one with only that one is not."""
    checked = 0
    for row in table_rows(in_page("api.md", "Routes")) + table_rows(in_page("api.md", "Commands")):
        ((method, path),) = _doc_routes(row[0])
        permission = row[1].split()[0]
        if permission == "none":
            assert _call(deployment, method or "GET", path, "no-key").status_code != 401
            continue
        denied = _call(deployment, method or "GET", path, deployment.tokens[f"all-but-{permission}"])
        assert denied.status_code == 403, f"{row[0]} without {permission}: {denied.status_code} {denied.text}"
        assert denied.json()["error"]["code"] == "permission_denied"
        allowed = _call(deployment, method or "GET", path, deployment.tokens[f"only-{permission}"])
        assert allowed.status_code != 403, f"{row[0]} with only {permission}: {allowed.text}"
        checked += 1
    assert checked >= 16
    # "a transition to DEPRECATED (which needs `assert` too)"
    to_deprecated = {"to_type": "DEPRECATED"}
    only_assert = _call(deployment, "POST", "/v1/nodes/{}/transition", deployment.tokens["only-assert"], to_deprecated)
    assert only_assert.status_code == 403


def test_command_endpoints_are_idempotent_and_can_wait(deployment: Deployment) -> None:
    """Each route of the Commands table takes Idempotency-Key, and ?wait=true / Prefer: wait=N."""
    text = page("api.md")
    assert "Idempotency-Key" in in_page("api.md", "Commands")
    assert "?wait=true" in text and "Prefer: wait=N" in text
    schema = deployment.http.get("/openapi.json").json()
    paths = {re.sub(r"\{[^}]+\}", "{}", p): ops for p, ops in schema["paths"].items()}
    commands = [r for row in table_rows(in_page("api.md", "Commands")) for r in _doc_routes(row[0])]
    assert len(commands) == len(COMMANDS)
    for method, path in commands:
        assert method is not None, f"give the method of {path}"
        params = {(p["in"], p["name"]) for p in paths[path][method.lower()].get("parameters", [])}
        assert {("header", "Idempotency-Key"), ("query", "wait"), ("header", "Prefer")} <= params, (method, path)


def test_errors_have_the_documented_shape(deployment: Deployment) -> None:
    shape = re.search(r'`\{"error": \{"code", "message", "details"\}\}`', in_page("api.md", "Errors and limits"))
    assert shape, "docs/api.md no longer documents the error shape"
    auth = {"Authorization": f"Bearer {deployment.token}"}
    missing = deployment.http.get("/v1/nodes/no-such-node", headers=auth)
    anonymous = deployment.http.get("/v1/world-context", params={"owner_id": "alice"})
    for response, status, code in ((missing, 404, "node_not_found"), (anonymous, 401, "unauthenticated")):
        assert response.status_code == status
        error = response.json()["error"]
        assert set(error) == {"code", "message", "details"}
        assert error["code"] == code


def test_the_error_codes_are_the_codes_with_their_status() -> None:
    classes = {
        cls.code: cls for cls in vars(errors_module).values()
        if isinstance(cls, type) and issubclass(cls, errors_module.EpistreamError)
    }  # fmt: skip
    source = "\n".join(p.read_text("utf-8") for pkg in ("schemas", "epistream") for p in (ROOT / pkg).rglob("*.py"))
    checked = 0
    for row in table_rows(in_page("api.md", "Errors and limits")):
        status = int(row[0])
        for code in (s for s in spans(row[1]) if re.fullmatch(r"[a-z]+(_[a-z]+)*", s)):
            if code in classes:
                assert classes[code].http_status == status, f"{code} answers {classes[code].http_status}"
            else:
                assert f'code="{code}"' in source or f'= "{code}"' in source, f"no error has the code {code}"
            checked += 1
    assert checked >= 20


def test_the_retrieve_example_is_a_valid_request() -> None:
    (example,) = fenced(in_page("api.md", "Routes"), "json")
    body = RetrieveBody.model_validate_json(example)
    named = {s for s in spans(in_page("api.md", "Routes")) if s in RetrieveBody.model_fields}
    assert body.query and named == set(RetrieveBody.model_fields), set(RetrieveBody.model_fields) - named


def test_python_client_example_answers_from_the_demo(deployment: Deployment, monkeypatch: pytest.MonkeyPatch) -> None:
    """The snippet as written (its placeholder key replaced), over ASGI instead of a socket."""
    (snippet,) = fenced(in_page("api.md", "The typed client"), "python")
    assert '"eps_..."' in snippet and generate_key().startswith("eps_")
    http = deployment.http

    def client(base_url: str, timeout: float) -> httpx.Client:
        assert base_url.startswith("http://")
        return http

    monkeypatch.setattr(httpx, "Client", client)
    namespace: dict[str, Any] = {}
    exec(compile(snippet.replace('"eps_..."', repr(deployment.token)), "docs/api.md", "exec"), namespace)
    answer = namespace["answer"]
    assert answer.mode.value == "default" and answer.items, "the snippet's question finds nothing in the demo"
    assert all(i.label.epistemic_type is not EpistemicType.HYPOTHETICAL for i in answer.items)
    assert any(i.predicate == "lives_in" and i.object == "Berlin" for i in answer.items)


def test_the_client_methods_exist() -> None:
    listed = re.search(r"Methods: (.*?)\.", re.sub(r"\s+", " ", in_page("api.md", "The typed client")))
    assert listed
    for name in spans(listed.group(1)):
        for cls in (EpistreamClient, AsyncEpistreamClient):
            assert callable(getattr(cls, name, None)), f"{cls.__name__}.{name}"


# ----------------------------------------------------------------------------- configuration


def _config_table() -> dict[str, str]:
    rows = re.findall(r"^\| `(EPISTREAM_\w+)` \| `([^`]*)` \|", page("configuration.md"), flags=re.M)
    return dict(rows)


def test_every_setting_is_documented_with_its_default() -> None:
    table = _config_table()
    fields = Settings.model_fields
    assert set(table) == {f"EPISTREAM_{name.upper()}" for name in fields}, set(table) ^ {
        f"EPISTREAM_{n.upper()}" for n in fields
    }
    for name, info in fields.items():
        default = info.default
        shown = table[f"EPISTREAM_{name.upper()}"]
        if isinstance(default, SecretStr):
            assert shown == "(empty)" and default.get_secret_value() == ""
        else:
            assert shown == str(default), f"EPISTREAM_{name.upper()}: docs {shown!r}, code {default!r}"
    assert fields["llm_api_key"].annotation is SecretStr  # "never logged or echoed"


def test_every_epistream_variable_in_the_pages_is_read_somewhere() -> None:
    """A name that is not a setting must be read by the scripts or tests the pages send people to."""
    settings = {f"EPISTREAM_{name.upper()}" for name in Settings.model_fields}
    readers = [p for p in (ROOT / "deploy" / "local").iterdir() if p.is_file()]
    readers += list((ROOT / "tests").rglob("*.py"))
    texts = "\n".join(p.read_text("utf-8", errors="replace") for p in readers if p.resolve() != Path(__file__))
    for doc, text in all_docs().items():
        for name in sorted(set(re.findall(r"EPISTREAM_[A-Z0-9_]+", text)) - settings):
            assert re.search(rf"\b{name}\b", texts), f"{doc} mentions {name}; nothing reads it"


# ----------------------------------------------------------------------------- performance


def test_performance_is_one_table_of_latest_figures() -> None:
    (table,) = tables(page("performance.md"))
    assert table[0] == ["what", "command", "latest measured value", "target", "date", "machine"]
    for row in table[1:]:
        assert len(row) == 6 and all(row), row
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", row[4]), row[4]
        scripts = re.findall(r"bench/\w+\.py", row[1])
        assert scripts, f"{row[0]}: no bench script"
        text = "\n".join((ROOT / script).read_text("utf-8") for script in scripts)
        for option in re.findall(r"(--[a-z-]+)", row[1]):
            assert f'"{option}"' in text, f"{row[0]}: {scripts} take no {option}"
