"""``epistream worker --role``: which stages a worker process runs, and in which consumer groups."""

from __future__ import annotations

from pathlib import Path

import pytest

from epistream.cli import WorkerRole
from schemas.errors import NotConfigured, ValidationFailed
from schemas.settings import Settings
from streams.faust_app import ROLES, WorkerOptions, create_app
from streams.lag import stage_inputs
from streams.topics import Topics


def _app(tmp_path: Path, role: str, prefix: str = "") -> object:
    return create_app(
        Settings(data_dir=tmp_path), data_dir=tmp_path, opensearch_url="http://127.0.0.1:1",
        options=WorkerOptions(app_id="grp", role=role, topic_prefix=prefix),
    )


@pytest.mark.parametrize(
    ("role", "agents", "indexes"),
    [
        ("all", {"extract", "materialize", "oplog_dead_letters"}, True),
        ("core", {"extract", "materialize", "oplog_dead_letters"}, False),
        # no faust agent at all: the index stage is a Kafka consumer of its own (streams.worker.index_consumer)
        ("index", set(), True),
    ],
)
def test_a_role_runs_its_stages(tmp_path: Path, role: str, agents: set[str], indexes: bool) -> None:
    app = _app(tmp_path, role)
    assert set(app.agents) == agents  # type: ignore[attr-defined]
    assert app.conf.id == "grp"  # type: ignore[attr-defined]
    consumer = app.epistream["index_consumer"]  # type: ignore[attr-defined]
    assert (consumer is not None) == indexes
    if consumer is not None:
        # its own group whatever the role: its offsets on memory.nodes are never the core stages'
        assert consumer.group == "grp-index"


def test_the_groups_carry_the_topic_prefix(tmp_path: Path) -> None:
    """Two deployments on one broker (prefixes a-, b-) must not rebalance each other."""
    a, b = _app(tmp_path / "a", "all", prefix="a-"), _app(tmp_path / "b", "all", prefix="b-")
    assert (a.conf.id, b.conf.id) == ("a-grp", "b-grp")  # type: ignore[attr-defined]
    assert a.epistream["index_consumer"].group == "a-grp-index"  # type: ignore[attr-defined]
    assert a.conf.broker_client_id == "epistream-a-grp"  # type: ignore[attr-defined]
    # `epistream lag` reads the same groups
    assert {group for _stage, group, _t in stage_inputs(Topics(prefix="a-"), "grp")} == {"a-grp", "a-grp-index"}


@pytest.mark.parametrize("role", ["all", "index"])
def test_a_role_with_the_index_stage_refuses_to_start_without_opensearch(tmp_path: Path, role: str) -> None:
    """It used to start, retry forever as if OpenSearch were down, and lose those writes on the next stop."""
    with pytest.raises(NotConfigured) as err:
        create_app(Settings(data_dir=tmp_path), data_dir=tmp_path, opensearch_url="",
                   options=WorkerOptions(app_id="grp", role=role))  # fmt: skip
    assert err.value.code == "not_configured" and err.value.http_status == 503
    assert err.value.details["setting"] == "EPISTREAM_OPENSEARCH_URL"
    assert "EPISTREAM_OPENSEARCH_URL" in err.value.message and "--role core" in err.value.message


def test_a_core_worker_needs_no_opensearch(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=tmp_path), data_dir=tmp_path, opensearch_url="",
                     options=WorkerOptions(app_id="grp", role="core"))  # fmt: skip
    assert app.epistream["index_consumer"] is None  # type: ignore[attr-defined]


def test_an_unknown_role_is_refused_with_a_code(tmp_path: Path) -> None:
    with pytest.raises(ValidationFailed) as err:
        _app(tmp_path, "sink")
    assert err.value.code == "invalid_option"


def test_the_cli_offers_exactly_the_worker_roles() -> None:
    assert tuple(r.value for r in WorkerRole) == ROLES
