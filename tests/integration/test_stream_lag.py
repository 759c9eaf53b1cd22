"""``epistream lag``: per-stage consumer lag of a deployment against the real broker and real workers.

Before any worker runs, every published event is extract's lag; with a core worker and an index
worker running, everything is done, the index stage is read from its own group (``<prefix><app
id>-index``, whatever the role split) and both groups show their member. ``--fail-above`` turns the
figures into a health check's exit status.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_stream_pipeline import ROOT, Deployment, sample_events, start_services

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def services() -> tuple[str, str]:
    return start_services()


def lag(dep: Deployment, *args: str) -> tuple[int, dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "epistream.cli", "lag", "--app-id", dep.app_id(), "--bootstrap", dep.bootstrap,
         "--json", *args],
        capture_output=True,
        timeout=120,
        check=False,
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(ROOT),
            "EPISTREAM_KAFKA_TOPIC_PREFIX": dep.prefix,
            "EPISTREAM_PARTITIONS": str(dep.topics.partitions),
        },
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr.decode()[-2000:]
    return proc.returncode, json.loads(proc.stdout)


def by_stage(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    stages = {s["stage"]: s for s in report["stages"]}
    assert len(stages) == len(report["stages"]), "a stage was reported twice"
    return stages


def test_lag_per_stage_before_and_after_the_workers_ran(services: tuple[str, str], tmp_path: Path) -> None:
    dep = Deployment(*services, tmp_path)
    lines = sample_events(n_labelled=60, n_pairs=10)
    report = dep.publish(lines)
    assert report.ok

    code, before = lag(dep, "--fail-above", "0")
    stages = by_stage(before)
    assert set(stages) == {"extract", "materialize", "index", "dead_letters"}
    assert stages["extract"]["lag"] == stages["extract"]["records"] == len(lines)
    # where the backlog sits: per partition, adding up to the whole
    assert sum(stages["extract"]["lagging_partitions"].values()) == len(lines)
    assert {p.split("/")[0] for p in stages["extract"]["lagging_partitions"]} == {dep.topics.events}
    assert len({r[0] for r in report.records}) == len(stages["extract"]["lagging_partitions"])
    assert stages["materialize"]["lag"] == 0 and stages["dead_letters"]["lag"] == 0
    # the groups carry the deployment's topic prefix: another deployment's workers never join them
    assert stages["extract"]["group"] == f"{dep.prefix}app0" and stages["index"]["group"] == f"{dep.prefix}app0-index"
    assert code == 1 and before["over_limit"] == ["extract"]
    assert all(g["members"] == 0 for g in before["groups"])

    try:
        dep.start(data_dir=tmp_path / "core", role="core")
        dep.start(data_dir=tmp_path / "index", role="index")
        dep.wait_idle(expect_events=len(lines))
        code, after = lag(dep, "--fail-above", "0")
    finally:
        dep.stop()
    stages = by_stage(after)
    assert code == 0 and after["over_limit"] == []
    assert all(s["lag"] == 0 and s["lagging_partitions"] == {} for s in stages.values())
    assert stages["extract"]["records"] == len(lines)
    assert stages["materialize"]["records"] > 0  # extraction records were produced and consumed
    assert stages["index"]["group"] == dep.index_group() and stages["index"]["records"] > 0
    members = {g["group"]: (g["state"], g["members"]) for g in after["groups"]}
    assert members == {dep.group(): ("Stable", 1), dep.index_group(): ("Stable", 1)}
