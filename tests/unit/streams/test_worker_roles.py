"""``epistream worker --role``: which agents a worker process runs, and in which consumer group."""

from __future__ import annotations

from pathlib import Path

import pytest

from epistream.cli import WorkerRole
from schemas.errors import ValidationFailed
from schemas.settings import Settings
from streams.faust_app import ROLES, WorkerOptions, create_app


def _app(tmp_path: Path, role: str) -> object:
    return create_app(
        Settings(data_dir=tmp_path), data_dir=tmp_path, opensearch_url="http://127.0.0.1:1",
        options=WorkerOptions(app_id="grp", role=role),
    )


@pytest.mark.parametrize(
    ("role", "group", "agents"),
    [
        ("all", "grp", {"extract", "materialize", "oplog_dead_letters", "index_sink"}),
        ("core", "grp", {"extract", "materialize", "oplog_dead_letters"}),
        # its own group: the index sink's offsets on memory.nodes must not be the core workers'
        ("index", "grp-index", {"index_sink"}),
    ],
)
def test_a_role_runs_its_agents_in_its_group(tmp_path: Path, role: str, group: str, agents: set[str]) -> None:
    app = _app(tmp_path, role)
    assert set(app.agents) == agents  # type: ignore[attr-defined]
    assert app.conf.id == group  # type: ignore[attr-defined]


def test_core_and_index_together_cover_every_agent_of_all(tmp_path: Path) -> None:
    split = set(_app(tmp_path, "core").agents) | set(_app(tmp_path, "index").agents)  # type: ignore[attr-defined]
    assert split == set(_app(tmp_path, "all").agents)  # type: ignore[attr-defined]


def test_an_unknown_role_is_refused_with_a_code(tmp_path: Path) -> None:
    with pytest.raises(ValidationFailed) as err:
        _app(tmp_path, "sink")
    assert err.value.code == "invalid_option"


def test_the_cli_offers_exactly_the_worker_roles() -> None:
    assert tuple(r.value for r in WorkerRole) == ROLES
