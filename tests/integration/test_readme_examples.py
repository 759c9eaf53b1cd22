"""The README's examples, read from README.md itself and run or checked against the real code.

Analysts copy the ``epistream sql`` statements, chat platforms the event format,
assistant builders the routes and the client snippet; a README edit or a code
change that breaks one of them fails here. The SQL runs through the real
``epistream sql`` command over a chDB log holding the bundled demo conversations,
posted through ``POST /v1/events`` as a chat platform would (so ``recorded_at`` is
a real receive time). chDB allows one engine path per process: the log lives in
the session ``chdb_path`` under this module's own database, and the CLI's
connection is pointed at that database.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shlex
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr
from typer.testing import CliRunner

from epistream.api import ApiKey, ApiKeyRing, Permission, create_app, hash_key_sha256
from epistream.api.auth import generate_key
from epistream.cli import app as cli_app
from epistream.cli.demo import REFERENCE_TIME, demo_lines
from epistream.runner import EmbeddedRunner
from schemas.enums import EpistemicType, LifecycleState
from schemas.events import parse_event
from schemas.settings import Settings
from sinks.clickhouse import OperationLog
from sinks.clickhouse_schema import RECEIPTS_TABLE, TABLES
from sinks.embedding import HashEmbedder
from tests import markdown_docs
from tests.markdown_docs import (
    Usage,
    check_usages,
    epistream_argv,
    fenced,
    options,
    resolve,
    shell_commands,
    spans,
    table_cells,
)

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text("utf-8")
_HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


# ----------------------------------------------------------------------------- reading the README


def section(title: str) -> str:
    return markdown_docs.section(README, title)


@functools.cache
def cli_usages() -> tuple[Usage, ...]:
    usages: list[Usage] = []
    # The command table: "reinforce\|penalize NODE_ID …" names several commands; options given in the
    # description column ("`--request-id` makes retries safe") apply to every command of the row.
    for line in section("The command line").splitlines():
        if not line.startswith("| `"):
            continue
        usage_cell, *rest = table_cells(line)
        row_options = options([w for s in spans(" ".join(rest)) for w in s.split()])
        for span in spans(usage_cell):
            words = span.replace("\\|", "|").replace("[", " ").replace("]", " ").split()
            if words and words[0] == "epistream":
                words = words[1:]
            for name in words[0].split("|"):
                usages.append(Usage(span, (name,), options(words[1:]) + row_options))
    # Inline mentions elsewhere, e.g. `epistream api-key --id bot --tenant acme …`.
    for span in spans(README):
        if span.startswith("epistream "):
            words = span.replace("\\|", "|").replace("[", " ").replace("]", " ").split()[1:]
            if words and not words[0].startswith("-"):
                for name in words[0].split("|"):
                    usages.append(Usage(span, (name,), options(words[1:])))
    # Shell blocks, e.g. `EPISTREAM_OPENSEARCH_URL=… epistream worker &` and `epistream dlq list`.
    for block in fenced(README, "sh"):
        for argv in shell_commands(block):
            words = epistream_argv(argv)
            if words:
                usages.append(Usage(" ".join(argv), tuple(w for w in words if not w.startswith("-")), options(words)))
    return tuple(usages)


def sql_examples() -> list[list[str]]:
    """argv (after ``epistream``) of every ``epistream sql`` in the README's shell blocks."""
    found = []
    for block in fenced(README, "sh"):
        for argv in shell_commands(block):
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


@pytest.fixture(scope="module")
def deployment(chdb_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    root = tmp_path_factory.mktemp("readme")
    database = f"readme_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    settings = Settings(
        data_dir=root / "data", embedder="hash", extractor="rules", clickhouse_url=None, opensearch_url=None,
        api_mode="embedded", api_rate_limit_per_s=10_000.0, api_rate_burst=10_000,
    )  # fmt: skip
    token = generate_key()
    ring = ApiKeyRing(
        [ApiKey(id="platform", tenant_id="acme", permissions=frozenset(Permission), sha256=hash_key_sha256(token))]
    )
    log = OperationLog.connect(None, path=chdb_path, database=database)
    runner = EmbeddedRunner(settings.data_dir, settings, embedder=HashEmbedder(), log=log)
    try:
        app = create_app(runner, api_keys=ring, settings=settings, clock=lambda: REFERENCE_TIME)
        with TestClient(app) as http:
            events = [json.loads(line) for line in demo_lines()]
            posted = http.post("/v1/events", json={"events": events}, headers={"Authorization": f"Bearer {token}"})
            assert posted.status_code == 200, posted.text
            assert posted.json()["accepted"] == len(events)
            # One assistant question, so the retrieval receipts the analysts' SQL reads exist.
            asked = http.post("/v1/retrieve", json={"query": "where does alice live", "owner_id": "alice"},
                              headers={"Authorization": f"Bearer {token}"})
            assert asked.status_code == 200 and asked.json()["receipt_id"], asked.text
            assert app.state.api.receipts.flush()
            yield Deployment(runner, log, database, chdb_path, http, token)
    finally:
        runner.close()
        log.close()


def run_cli(argv: list[str]) -> Any:
    result = CliRunner().invoke(
        cli_app, argv, env={"EPISTREAM_CLICKHOUSE_URL": None, "EPISTREAM_API_MODE": None}, catch_exceptions=False
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


# ----------------------------------------------------------------------------- analysts' SQL


def test_readme_has_the_analyst_examples() -> None:
    examples = sql_examples()
    assert len(examples) >= 4, examples
    text = " ".join(" ".join(e) for e in examples)
    for must in ("operations", "extraction_journal", "raw_events", "<node id>"):
        assert must in text


def test_every_sql_example_runs_and_returns_real_values(deployment: Deployment, tmp_path: Path) -> None:
    # The memory whose life the README follows: one that changed after it was asserted.
    superseded = [n for n in deployment.runner.store.iter_nodes() if n.lifecycle is LifecycleState.SUPERSEDED]
    assert superseded, "the demo should supersede a claim (Paris -> Berlin)"
    substitutions = {"<node id>": superseded[0].node_id}
    data_dir = tmp_path / "cli"
    for example in sql_examples():
        argv = list(example)
        for placeholder in re.findall(r"<[^<>']+>", " ".join(argv)):
            assert placeholder in substitutions, f"no value for README placeholder {placeholder}"
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
    """The README's per-memory example, on the superseded claim: asserted, then superseded."""
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
    rows = deployment.log.read_only_query(
        "SELECT table, name FROM system.columns WHERE database = currentDatabase()", max_rows=10_000
    ).rows
    columns: dict[str, set[str]] = {}
    for table, name in rows:
        columns.setdefault(table, set()).add(name)
    documented = [line for line in section("For analysts").splitlines() if re.match(r"^\| `\w+` \|", line)]
    assert {table_cells(line)[0].strip("`") for line in documented} == {*TABLES, RECEIPTS_TABLE}
    for line in documented:
        table, _, useful = (c for c in table_cells(line))
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


def test_sql_options_in_the_readme_work(deployment: Deployment, tmp_path: Path) -> None:
    """``--max-rows`` and ``-`` (statement from stdin), as the analysts' paragraph describes."""
    text = section("For analysts")
    assert "--max-rows" in text and "`-` reads the" in text
    where = ["--data-dir", str(tmp_path / "cli"), "--json"]
    with cli_log_in(deployment, tmp_path / "cli"):
        capped = run_cli(["sql", "SELECT event_id FROM raw_events FINAL", "--max-rows", "2", *where])
        piped = CliRunner().invoke(
            cli_app, ["sql", "-", *where], input="SELECT count() FROM raw_events FINAL",
            env={"EPISTREAM_CLICKHOUSE_URL": None},
        )  # fmt: skip
    assert len(capped["rows"]) == 2 and capped["truncated"] is True
    assert piped.exit_code == 0, piped.output
    assert json.loads(piped.output)["rows"] == [[len(demo_lines())]]


# ----------------------------------------------------------------------------- the command line


def test_readme_names_the_commands_people_use() -> None:
    named = {u.command[0] for u in cli_usages()}
    assert {"demo", "ingest", "extract", "query", "sql", "api", "api-key", "worker", "publish", "dlq"} <= named


def test_every_command_and_option_in_the_readme_exists() -> None:
    check_usages(cli_usages())


def test_the_commands_of_the_command_table_take_json_and_a_data_dir() -> None:
    """README: every command prints one JSON document with --json; the data directory is --data-dir."""
    table = [u for u in cli_usages() if u.text in spans(section("The command line"))]
    assert len({u.command for u in table}) >= 15
    for usage in table:
        _, command = resolve(usage.command)
        opts = {o for p in command.params for o in p.opts}
        assert "--json" in opts, usage.command
        if usage.command != ("extract",):  # extract stores nothing and opens no data directory
            assert "--data-dir" in opts, usage.command


def test_api_key_example_makes_a_key_the_api_accepts(tmp_path: Path) -> None:
    span = next(s for s in spans(README) if s.startswith("epistream api-key "))
    out = CliRunner().invoke(cli_app, shlex.split(span)[1:])
    assert out.exit_code == 0, out.output
    printed = json.loads(out.output)
    assert '`{"keys": [entry, ...]}`' in section("The HTTP API for assistants")  # the file format people follow
    keys_file = tmp_path / "keys.json"
    keys_file.write_text(json.dumps({"keys": [printed["keys_file_entry"]]}))
    key = ApiKeyRing.from_file(keys_file).authenticate(f"Bearer {printed['api_key']}")
    assert key.tenant_id == "acme" and key.has(Permission.READ) and key.has(Permission.WRITE)
    assert not key.has(Permission.ADMIN)


def test_shell_helpers_the_readme_runs_exist() -> None:
    dev = (ROOT / "dev").read_text()
    cases = set(re.findall(r"^\s+([a-z]+)\)", dev, flags=re.M))
    used = {argv[1] for block in fenced(README, "sh") for argv in shell_commands(block) if argv[0] == "./dev"}
    used |= {s.split()[1] for s in spans(README) if s.startswith("./dev ")}
    assert {"demo", "test", "services"} <= used
    assert used <= cases, used - cases


def test_event_format_example_is_admitted() -> None:
    (example,) = fenced(section("The command line"), "json")
    event = parse_event(" ".join(example.split()).encode())
    assert event.tenant_id == "acme" and event.owner_id == "alice" and event.occurred_at.tzinfo is not None


def test_files_and_tests_the_readme_points_to_exist() -> None:
    referenced: set[str] = set()
    shell_words = [" ".join(argv) for block in fenced(README, "sh") for argv in shell_commands(block)]
    for span in spans(README) + re.findall(r"\]\(([^)]+)\)", README) + shell_words:
        for word in span.split():
            # Files anywhere; folders only with a parent ("deploy/local/"), since a bare "unit/" in the
            # layout table is relative to its row.
            if re.fullmatch(r"([\w.-]+/)+[\w.{},-]*\.(py|md|jsonl|yaml|toml)|[\w-]+/([\w-]+/)+", word):
                referenced.add(word)
    for line in section("Layout").splitlines():
        if line.startswith("| `"):
            referenced.add(table_cells(line)[0].strip("`"))
    assert {"deploy/local/README.md", "epistream/client.py", "epistream/demo/conversations.jsonl"} <= referenced
    for ref in sorted(referenced):
        brace = re.search(r"\{([^}]*)\}", ref)
        alternatives = brace.group(1).split(",") if brace else [""]
        for alternative in alternatives:
            path = ref[: brace.start()] + alternative + ref[brace.end() :] if brace else ref
            assert (ROOT / path).exists(), f"README points to {path}, which does not exist"
    tests_text = "\n".join(p.read_text("utf-8") for p in (ROOT / "tests").rglob("*.py"))
    for name in {s for s in spans(README) if re.fullmatch(r"test_\w+", s)}:
        assert f"def {name}(" in tests_text, f"README cites {name}, which no test defines"


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


def _readme_routes(text: str) -> list[tuple[str | None, str]]:
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


def test_every_route_in_the_readme_exists_with_its_method(deployment: Deployment) -> None:
    routes = _routes(deployment.http)
    mentioned = _readme_routes(README)
    assert len(mentioned) >= 18, mentioned
    for method, path in mentioned:
        if method is None:
            assert any(p == path for _, p in routes), f"README names {path}; the API has no such route"
        else:
            assert (method, path) in routes, f"README names {method} {path}; the API has no such route"


def test_command_endpoints_are_idempotent_and_can_wait(deployment: Deployment) -> None:
    """Each route in "the command endpoints (…)" takes Idempotency-Key, and ?wait=true / Prefer: wait=N."""
    api = section("The HTTP API for assistants")
    listed = re.search(r"the command endpoints\s*\((.*?)\)", api, flags=re.S)
    assert listed and "Idempotency-Key" in listed.group(1)
    assert "?wait=true" in api and "Prefer: wait=N" in api
    schema = deployment.http.get("/openapi.json").json()
    paths = {re.sub(r"\{[^}]+\}", "{}", p): ops for p, ops in schema["paths"].items()}
    commands = _readme_routes(listed.group(1))
    assert len(commands) >= 9
    for method, path in commands:
        assert method is not None, f"give the method of {path}"
        params = {(p["in"], p["name"]) for p in paths[path][method.lower()].get("parameters", [])}
        assert {("header", "Idempotency-Key"), ("query", "wait"), ("header", "Prefer")} <= params, (method, path)


def test_errors_have_the_documented_shape(deployment: Deployment) -> None:
    shape = re.search(r'`\{"error": \{"code", "message", "details"\}\}`', section("The HTTP API for assistants"))
    assert shape, "README no longer documents the error shape"
    auth = {"Authorization": f"Bearer {deployment.token}"}
    missing = deployment.http.get("/v1/nodes/no-such-node", headers=auth)
    anonymous = deployment.http.get("/v1/world-context", params={"owner_id": "alice"})
    for response, status, code in ((missing, 404, "node_not_found"), (anonymous, 401, None)):
        assert response.status_code == status
        error = response.json()["error"]
        assert set(error) == {"code", "message", "details"}
        assert code is None or error["code"] == code


def test_python_client_example_answers_from_the_demo(deployment: Deployment, monkeypatch: pytest.MonkeyPatch) -> None:
    """The snippet as written (its placeholder key replaced), over ASGI instead of a socket."""
    (snippet,) = fenced(section("The HTTP API for assistants"), "python")
    assert '"eps_..."' in snippet and generate_key().startswith("eps_")
    http = deployment.http

    def client(base_url: str, timeout: float) -> httpx.Client:
        assert base_url.startswith("http://")
        return http

    monkeypatch.setattr(httpx, "Client", client)
    namespace: dict[str, Any] = {}
    exec(compile(snippet.replace('"eps_..."', repr(deployment.token)), "README.md", "exec"), namespace)
    answer = namespace["answer"]
    assert answer.mode.value == "default" and answer.items, "the README's question finds nothing in the demo"
    assert all(i.label.epistemic_type is not EpistemicType.HYPOTHETICAL for i in answer.items)
    assert any(i.predicate == "lives_in" and i.object == "Berlin" for i in answer.items)


# ----------------------------------------------------------------------------- configuration


def _config_table() -> dict[str, str]:
    rows = re.findall(r"^\| `(EPISTREAM_\w+)` \| `([^`]*)` \|", section("Configuration"), flags=re.M)
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
            assert shown == str(default), f"EPISTREAM_{name.upper()}: README {shown!r}, code {default!r}"
    assert fields["llm_api_key"].annotation is SecretStr  # "never logged or echoed"


def test_every_epistream_variable_in_the_readme_is_read_somewhere() -> None:
    """A name that is not a setting must be read by the scripts the README sends people to."""
    settings = {f"EPISTREAM_{name.upper()}" for name in Settings.model_fields}
    others = set(re.findall(r"EPISTREAM_[A-Z0-9_]+", README)) - settings
    readers = [p for p in (ROOT / "deploy" / "local").iterdir() if p.is_file()]
    readers += list((ROOT / "tests").rglob("*.py"))
    texts = "\n".join(p.read_text("utf-8", errors="replace") for p in readers if p.resolve() != Path(__file__))
    for name in sorted(others):
        assert re.search(rf"\b{name}\b", texts), f"README mentions {name}; nothing reads it"
