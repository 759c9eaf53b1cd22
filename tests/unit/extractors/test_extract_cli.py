"""``epistream extract`` through typer's CliRunner: JSON shape, per-line errors, table output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from epistream.cli.extract import app
from extractors.base import Extractor, UnknownExtractor, get_extractor
from extractors.rules import RuleExtractor


def _event_line(event_id: str, content: str, role: str = "user") -> str:
    return json.dumps({
        "event_id": event_id, "tenant_id": "t1", "owner_id": "o1", "scope": "personal", "role": role,
        "content": content, "occurred_at": "2026-03-01T12:00:00+01:00",
    })


LINES = "\n".join([
    _event_line("e1", "I might move to Paris."),
    "{not json",
    _event_line("e2", "Never use emojis. My password is hunter2."),
    json.dumps({"event_id": "e3", "tenant_id": "t1", "owner_id": "o1", "scope": "personal", "role": "robot",
                "content": "x", "occurred_at": "2026-03-01T12:00:00Z"}),
    "",
    _event_line("e4", "Thanks!"),
]) + "\n"


def _run_json(args: list[str], stdin: str | None = None) -> list[dict[str, object]]:
    result = CliRunner().invoke(app, args, input=stdin)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def test_json_output_per_event_and_bad_lines_do_not_stop_the_run() -> None:
    out = _run_json(["-", "--json"], LINES)
    assert [o.get("event_id") or o.get("line") for o in out] == ["e1", 2, "e2", 4, "e4"]
    e1 = out[0]["claims"][0]  # type: ignore[index]
    assert e1["epistemic_type"] == "HYPOTHETICAL" and e1["polarity"] == "positive"
    assert out[1]["error"]["code"] == "invalid_json"  # type: ignore[index]
    assert out[3]["error"]["code"] == "unknown_role"  # type: ignore[index]
    e2 = out[2]
    assert e2["claims"][0]["node_type"] == "INSTRUCTION" and e2["claims"][0]["polarity"] == "negative"  # type: ignore[index]
    # masked at admission: the extractor proposes the placeholder, validation refuses it as a secret value
    assert e2["rejected"][0]["reason_code"] == "secret_value"  # type: ignore[index]
    assert "hunter2" not in json.dumps(out)
    assert out[4] == {"event_id": "e4", "claims": [], "rejected": []}


def test_reads_a_file_argument(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text(_event_line("f1", "We switched from MySQL to Postgres.") + "\n", encoding="utf-8")
    (rec,) = _run_json([str(path), "--json", "--extractor", "rules"])
    (c,) = rec["claims"]  # type: ignore[misc]
    assert (c["predicate"], c["object"], c["temporal_intent"], c["replaces_object"]) == (
        "uses", "Postgres", "update", "MySQL")


def test_table_output_is_human_readable() -> None:
    result = CliRunner().invoke(app, ["-"], input=LINES)
    assert result.exit_code == 0
    assert "HYPOTHETICAL" in result.stdout and "secret_value" in result.stdout and "line 2" in result.stdout
    assert "hunter2" not in result.stdout


def test_unknown_extractor_exits_with_code_2() -> None:
    result = CliRunner().invoke(app, ["-", "--extractor", "magic", "--json"], input=LINES)
    assert result.exit_code == 2


def test_registry() -> None:
    ex = get_extractor("rules")
    assert isinstance(ex, RuleExtractor) and isinstance(ex, Extractor)
    assert ex.name == "rules" and ex.version
    with pytest.raises(UnknownExtractor) as err:
        get_extractor("magic")
    assert err.value.code == "unknown_extractor"
