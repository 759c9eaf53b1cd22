"""The ``epistream`` command line, driven as a user would: separate processes over one data directory.

Each call is a fresh process (chDB allows one engine path per process, and this
is how people and scripts use the CLI); ``--json`` output is parsed and checked.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from epistream.cli.demo import REFERENCE_TIME, demo_lines
from schemas.canonical import iso

pytestmark = pytest.mark.integration

#: Every CLI process of these tests runs at the demo's reference time, whatever the machine's date.
CLOCK = {"EPISTREAM_CLOCK": iso(REFERENCE_TIME)}
DEMO = Path(__file__).resolve().parents[2] / "epistream" / "demo" / "conversations.jsonl"


def cli(
    data_dir: Path, *args: str, stdin: bytes | None = None, expect: int = 0, env: dict[str, str] | None = None
) -> Any:
    proc = subprocess.run(
        [sys.executable, "-m", "epistream.cli", *args, "--data-dir", str(data_dir), "--json"],
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
        env={**CLOCK, "EPISTREAM_EMBEDDER": "hash", "PATH": "/usr/bin:/bin", **(env or {})},
    )
    assert proc.returncode == expect, proc.stderr.decode()[-2000:]
    out = proc.stdout.decode().strip()
    return json.loads(out) if out else None


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "data"
    report = cli(path, "ingest", str(DEMO))
    assert report["events"] == len(demo_lines()) and report["dead_letters"] == 0
    return path


def _node(data_dir: Path, owner: str, predicate: str, obj: str, mode: str = "explicit") -> dict[str, Any]:
    result = cli(
        data_dir, "query", f"{predicate} {obj}", "--tenant", "acme", "--owner", owner, "--mode", mode, "--limit", "100"
    )
    for item in result["items"]:
        if item["predicate"] == predicate and (item["object"] or "").lower() == obj.lower():
            return dict(item)
    raise AssertionError(f"no {predicate} {obj} for {owner}")


def test_ingest_is_idempotent_and_reports_bad_lines(data_dir: Path) -> None:
    again = cli(data_dir, "ingest", "-", stdin=DEMO.read_bytes())
    assert again["events"] == 0 and again["duplicates"] == len(demo_lines()) and again["operations"] == 0
    # Nothing processable at all: exit code 1, with a per-line code.
    bad = cli(data_dir, "ingest", "-", stdin=b"not json\n", expect=1)
    assert bad["errors"] == [{"line": 1, "code": "invalid_json", "message": "event is not valid JSON"}]


def test_query_default_vs_explicit(data_dir: Path) -> None:
    question = "does alice live in Paris, Berlin or Lisbon?"
    default = cli(data_dir, "query", question, "--tenant", "acme", "--owner", "alice", "--limit", "50")
    lives = {i["object"] for i in default["items"] if i["predicate"] == "lives_in"}
    assert lives == {"Berlin"}
    explicit = cli(
        data_dir, "query", "where does alice live", "--tenant", "acme", "--owner", "alice", "--mode", "explicit"
    )
    reasons = {x["reason"] for x in explicit["excluded"]}
    assert {"lifecycle_filtered:superseded", "epistemic_filtered:hypothetical"} <= reasons


def test_query_options_a_request_refuses_are_a_typed_error_not_a_traceback(data_dir: Path) -> None:
    empty = cli(data_dir, "query", "", "--tenant", "acme", "--owner", "alice", expect=2)
    assert empty["error"]["code"] == "invalid_options"
    assert empty["error"]["message"].startswith("query:")
    secret_owner = "alice/../../x"  # not a valid id; the message names the field, never the value
    refused = cli(data_dir, "query", "coffee", "--tenant", "acme", "--owner", secret_owner, expect=2)
    assert refused["error"]["code"] == "invalid_options" and secret_owner not in json.dumps(refused)
    proc = subprocess.run(
        [sys.executable, "-m", "epistream.cli", "query", "coffee", "--tenant", "acme", "--owner", "alice",
         "--mode", "bogus", "--data-dir", str(data_dir)],
        capture_output=True, timeout=120, check=False,
        env={**CLOCK, "EPISTREAM_EMBEDDER": "hash", "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr
    assert b"--mode must be default or explicit" in proc.stderr
    upper = cli(data_dir, "query", "coffee", "--tenant", "acme", "--owner", "alice", "--mode", "EXPLICIT")
    assert upper["mode"] == "explicit"


def test_readable_query_marks_each_conflict_once(data_dir: Path) -> None:
    """The readable table's note column says "conflict" once per flagged item (it printed it twice)."""
    args = ("query", "coffee", "--tenant", "acme", "--owner", "alice", "--data-dir", str(data_dir))
    flagged = sum(i["conflict_flag"] for i in cli(data_dir, *args[:-2])["items"])
    assert flagged >= 1  # alice's contested coffee preference
    proc = subprocess.run(
        [sys.executable, "-m", "epistream.cli", *args],
        capture_output=True,
        timeout=120,
        check=True,
        env={**CLOCK, "EPISTREAM_EMBEDDER": "hash", "PATH": "/usr/bin:/bin", "COLUMNS": "200"},
    )
    table = proc.stdout.decode().split("packed context")[0]
    assert table.count("conflict") == flagged


def test_world_state_provenance_stats_replay(data_dir: Path) -> None:
    world = cli(data_dir, "world", "--tenant", "acme", "--owner", "alice")
    assert [c["predicate"] for c in world["conflicts"]] == ["likes"]
    assert any(p["epistemic_type"] == "HYPOTHETICAL" for p in (x["label"] for x in world["proposals"]))
    who = ("--tenant", "acme", "--owner", "alice", "--subject", "user")
    state = cli(data_dir, "state", *who, "--predicate", "likes")
    assert state["status"] == "contested"
    where = cli(data_dir, "state", *who, "--predicate", "lives in")
    assert where["status"] == "single" and where["current_values"][0]["object"] == "Berlin"
    # The superseded value stays in the timeline, with the reason it is not current.
    paris = [t for t in where["timeline"] if t["object"] == "Paris"]
    assert paris and all(any("superseded" in r for r in t["exclusion_reasons"]) for t in paris)
    coffee = _node(data_dir, "alice", "likes", "coffee")
    trail = cli(data_dir, "provenance", coffee["node_id"], "--tenant", "acme", "--owner", "alice")
    assert trail["node"]["lifecycle"] == "CONTESTED" and trail["contradiction_edges"]
    assert {e["event_id"] for e in trail["evidence_events"]} <= {"demo-a-004", "demo-a-015"}
    assert (
        cli(data_dir, "provenance", coffee["node_id"], "--tenant", "acme", "--owner", "bob", expect=2)["error"]["code"]
        == "node_not_found"
    )
    stats = cli(data_dir, "stats")
    assert stats and json.dumps(stats).count("CONTRADICTION_NOTED") >= 1
    assert cli(data_dir, "replay", "--verify") == {
        "nodes": stats_nodes(stats, data_dir),
        "identical": True,
        "differences": [],
        "index_drift": [],
        "repaired": False,
    }


def stats_nodes(stats: dict[str, Any], data_dir: Path) -> int:
    return int(cli(data_dir, "replay", "--verify")["nodes"])


def test_commands_with_request_ids_are_applied_once(data_dir: Path) -> None:
    berlin = _node(data_dir, "alice", "lives_in", "Berlin", mode="default")
    request = str(uuid.uuid4())
    first = cli(data_dir, "reinforce", berlin["node_id"], "--tenant", "acme", "--request-id", request)
    assert first["status"] == "applied" and not first["retried"]
    retry = cli(data_dir, "reinforce", berlin["node_id"], "--tenant", "acme", "--request-id", request)
    assert retry["status"] == "applied" and retry["retried"] and retry["op_ids"] == first["op_ids"]
    conflict = cli(data_dir, "penalize", berlin["node_id"], "--tenant", "acme", "--request-id", request, expect=1)
    assert conflict["status"] == "rejected" and conflict["error_code"] == "request_id_conflict"
    after = _node(data_dir, "alice", "lives_in", "Berlin", mode="default")
    assert after["label"]["confidence"] > berlin["label"]["confidence"]
    # A forbidden epistemic move is refused with a stable code.
    lisbon = _node(data_dir, "alice", "lives_in", "Lisbon")
    refused = cli(data_dir, "transition", lisbon["node_id"], "--tenant", "acme", "--to", "OBSERVED", expect=1)
    assert refused["error_code"] == "invalid_epistemic_transition"
    assert cli(data_dir, "promote", "no-such-node", "--tenant", "acme", expect=2)["error"]["code"] == "node_not_found"


def test_ingest_into_a_distributed_deployment_is_refused_with_a_code(tmp_path: Path) -> None:
    """Distributed, the workers write: the CLI's runner is read-only and says so instead of a traceback."""
    refused = cli(tmp_path / "ro", "ingest", str(DEMO), expect=2, env={"EPISTREAM_API_MODE": "distributed"})
    assert refused["error"]["code"] == "read_only_runner"
    assert cli(tmp_path / "ro", "stats")["operations_total"] == 0  # nothing was written


def test_second_process_on_the_same_data_dir_is_refused(data_dir: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys,time; from epistream.runner import EmbeddedRunner; "
         "from sinks.embedding import HashEmbedder; r = EmbeddedRunner(sys.argv[1], embedder=HashEmbedder()); "
         "print('ready', flush=True); time.sleep(60)", str(data_dir)],
        stdout=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"ready"
        locked = cli(data_dir, "stats", expect=2)
        assert locked["error"]["code"] == "data_dir_locked"
    finally:
        holder.kill()
        holder.wait()


def test_sql_answers_analyst_reads_and_refuses_writes(data_dir: Path) -> None:
    events = [json.loads(line) for line in demo_lines()]
    owners = cli(data_dir, "sql", "SELECT DISTINCT owner_id FROM raw_events FINAL ORDER BY owner_id")
    assert owners["columns"] == ["owner_id"]
    assert [r[0] for r in owners["rows"]] == sorted({e["owner_id"] for e in events})
    assert owners["truncated"] is False
    # Unqualified names resolve to the log's own database; the engine does the arithmetic.
    counted = cli(data_dir, "sql", "SELECT count() AS n FROM (SELECT DISTINCT event_id FROM raw_events)")
    assert counted["rows"] == [[len(events)]]
    noted = cli(data_dir, "sql", "SELECT count() FROM operations FINAL WHERE op_type = 'CONTRADICTION_NOTED'")
    assert noted["rows"][0][0] >= 1  # alice's conflicting preference (see the world test)
    capped = cli(data_dir, "sql", "SELECT event_id FROM raw_events ORDER BY event_id", "--max-rows", "2")
    assert len(capped["rows"]) == 2 and capped["truncated"] is True

    for statement in ("DROP TABLE operations", "INSERT INTO raw_events (event_id) VALUES ('x')",
                      "SET readonly = 0"):
        refused = cli(data_dir, "sql", statement, expect=2)
        assert refused["error"]["code"] == "read_only", statement
    broken = cli(data_dir, "sql", "SELEC 1", expect=2)
    assert broken["error"]["code"] == "sql_error"
    target = data_dir.parent / "appended.sh"
    target.write_text("echo before\n")
    for statement, code in ((f"SELECT 'echo pwned' FROM raw_events INTO OUTFILE '{target}' APPEND", "sql_writes_file"),
                            ("SELECT 1; SELECT 2", "sql_multiple_statements"),
                            ("SELECT * FROM file('/etc/hostname', 'LineAsString')", "sql_table_function"),
                            ("SELECT name FROM system.tables", "sql_table_not_allowed")):  # fmt: skip
        assert cli(data_dir, "sql", statement, expect=2)["error"]["code"] == code, statement
    assert target.read_text() == "echo before\n" and not (data_dir / "index" / "meta.json").read_text().startswith("1")
    big = cli(data_dir, "sql", "SELECT groupArray(repeat(content, 100000)) FROM raw_events", "--max-memory-mb", "16",
              expect=2)  # fmt: skip
    assert big["error"]["code"] == "sql_error" and "memory" in big["error"]["message"].lower()
    # The refused statements changed nothing.
    again = cli(data_dir, "sql", "SELECT count() FROM (SELECT DISTINCT event_id FROM raw_events)")
    assert again["rows"] == [[len(events)]]


def test_sql_on_a_data_directory_with_nothing_ingested_yet_answers_empty(tmp_path: Path) -> None:
    result = cli(tmp_path / "fresh", "sql", "SELECT count() FROM operations")
    assert result == {"columns": ["count()"], "rows": [[0]], "truncated": False}


def test_rebuild_index_feeds_opensearch_from_the_snapshots_and_reports_refusals(data_dir: Path) -> None:
    from test_opensearch_support import create_mismatched_index, drop_alias, opensearch_client, unique_alias

    from sinks.embedding import HashEmbedder
    from sinks.opensearch_index import OpenSearchIndex

    client = opensearch_client()
    url = client.transport.hosts[0]
    url = url if isinstance(url, str) else f"http://{url['host']}:{url['port']}"
    nodes = cli(data_dir, "sql", "SELECT count(DISTINCT node_id) FROM node_snapshots")["rows"][0][0]
    assert nodes > 20
    fresh, broken = unique_alias("it-cli"), unique_alias("it-cli")
    try:
        env = {"EPISTREAM_OPENSEARCH_URL": url, "EPISTREAM_OPENSEARCH_INDEX": fresh}
        first = cli(data_dir, "rebuild-index", env=env)
        assert (first["received"], first["written"], first["rejected"]["count"]) == (nodes, nodes, 0)
        again = cli(data_dir, "rebuild-index", env=env)  # a rerun changes nothing: every version is there
        assert (again["written"], again["stale"]) == (0, nodes)
        assert OpenSearchIndex(client, fresh, HashEmbedder(), create=False).count() == nodes

        # An alias over an index where `condition` is numeric: the conditional nodes are refused, by id.
        create_mismatched_index(client, broken, HashEmbedder(), "condition")
        partial = cli(data_dir, "rebuild-index", env={**env, "EPISTREAM_OPENSEARCH_INDEX": broken})
        conditional = cli(
            data_dir,
            "sql",
            "SELECT count(DISTINCT node_id) FROM node_snapshots WHERE JSONExtractString(node, 'condition') != ''",
        )["rows"][0][0]
        assert conditional > 0
        refused = partial["rejected"]
        assert refused["count"] == conditional and partial["written"] == nodes - conditional
        assert len(refused["node_ids"]) == min(conditional, 20)
        assert refused["error_types"] in (["mapper_parsing_exception"], ["document_parsing_exception"])
        # People get a sentence, not a dict: the counts and the first refused id.
        proc = subprocess.run(
            [sys.executable, "-m", "epistream.cli", "rebuild-index", "--data-dir", str(data_dir)],
            capture_output=True, timeout=120, check=True,
            env={**CLOCK, "EPISTREAM_EMBEDDER": "hash", "PATH": "/usr/bin:/bin", "COLUMNS": "400", **env,
                 "EPISTREAM_OPENSEARCH_INDEX": broken},
        )  # fmt: skip
        text = proc.stdout.decode()
        assert f"{nodes} node snapshots read; 0 documents written, {nodes - conditional} already current" in text
        assert f"{conditional} refused by OpenSearch" in text and refused["node_ids"][0] in text
    finally:
        drop_alias(client, fresh)
        drop_alias(client, broken)


def test_migrate_says_what_it_applied_then_that_the_schema_is_current(tmp_path: Path) -> None:
    from sinks.clickhouse_schema import MIGRATIONS

    def readable() -> str:
        proc = subprocess.run(
            [sys.executable, "-m", "epistream.cli", "migrate", "--data-dir", str(tmp_path / "m")],
            capture_output=True, timeout=120, check=True,
            env={**CLOCK, "PATH": "/usr/bin:/bin", "EPISTREAM_EMBEDDER": "hash"},
        )  # fmt: skip
        return proc.stdout.decode()

    ids = [m.id for m in MIGRATIONS]
    assert f"applied migrations {', '.join(map(str, ids))}" in readable()
    assert f"up to date (schema version {ids[-1]})" in readable()
