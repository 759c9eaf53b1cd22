"""deploy/local/services: the local Kafka and OpenSearch keep what they stored across `up` (issue 27).

Starting the services is not done here (they are shared on the machine); these check what `up`
would give them: data paths outside the per-run scratch dir, Kafka's existing cluster id reused
with its log dirs left formatted, and `--wipe` removing only what was asked.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def services(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    spec = importlib.util.spec_from_file_location("local_services_under_test", ROOT / "deploy/local/services.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(mod, "DATA", tmp_path / "data")
    return mod


def test_kafka_keeps_its_log_dirs_and_cluster_id_across_runs(services: Any, tmp_path: Path) -> None:
    ports = {"kafka": 19092, "kafka_controller": 19093}
    props = services._kafka_properties(tmp_path / "run-1", ports)
    assert f"log.dirs={tmp_path / 'data' / 'kafka'}\n" in props  # not under the per-run dir
    assert services._kafka_properties(tmp_path / "run-2", ports) == props
    data = tmp_path / "data" / "kafka"
    data.mkdir(parents=True)
    fresh = services._kafka_cluster_id(data)
    assert len(fresh) == 22 and not fresh.startswith("-")  # unformatted: a new id
    (data / "meta.properties").write_text("#\nnode.id=1\nversion=1\ncluster.id=q1Sh-9_ISia_zwGINzRvyQ\n")
    assert services._kafka_cluster_id(data) == "q1Sh-9_ISia_zwGINzRvyQ"


def test_wipe_removes_only_the_named_services_data(services: Any, tmp_path: Path) -> None:
    for name in ("kafka", "opensearch"):
        (tmp_path / "data" / name / "x").mkdir(parents=True)
    assert services.wipe_data(["opensearch"]) == [tmp_path / "data" / "opensearch"]
    assert (tmp_path / "data" / "kafka" / "x").is_dir() and not (tmp_path / "data" / "opensearch").exists()
    assert services.wipe_data(["opensearch"]) == []  # nothing left to remove


def test_the_command_line_takes_wipe_only_with_up(services: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bool] = []
    monkeypatch.setattr(services, "up", lambda wipe=False: calls.append(wipe))
    monkeypatch.setattr(services, "status", lambda quiet=False: {"kafka": {"healthy": True}})
    assert services.main(["up", "--wipe"]) == 0 and services.main(["up"]) == 0
    assert calls == [True, False]
    assert services.main(["down", "--wipe"]) == 2 and services.main(["up", "--all"]) == 2
