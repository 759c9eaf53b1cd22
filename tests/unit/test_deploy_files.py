"""The deploy files cannot run here (no Docker engine); check they agree with the code."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from schemas.settings import Settings
from streams import topics

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())


def _epistream_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for service in COMPOSE["services"].values():
        for key, value in (service.get("environment") or {}).items():
            if key.startswith("EPISTREAM_"):
                env[key] = str(value)
    return env


def test_every_epistream_variable_is_a_real_setting_with_a_valid_value() -> None:
    env = _epistream_env()
    fields = {f"EPISTREAM_{name.upper()}" for name in Settings.model_fields}
    assert env, "compose sets no EPISTREAM_* variables"
    assert set(env) <= fields, sorted(set(env) - fields)
    values = {key.removeprefix("EPISTREAM_").lower(): value for key, value in env.items()}
    parsed = Settings(**values)  # raises if a value does not validate
    assert parsed.partitions == topics.DEFAULT_PARTITIONS


def test_partitions_agree_between_broker_default_and_settings() -> None:
    kafka = COMPOSE["services"]["kafka"]["environment"]
    assert int(kafka["KAFKA_NUM_PARTITIONS"]) == int(_epistream_env()["EPISTREAM_PARTITIONS"])


def test_commands_used_by_compose_exist_in_the_cli() -> None:
    from typer.main import get_command

    from epistream.cli import app

    cli = get_command(app)
    names = set(cli.commands)  # type: ignore[attr-defined]
    for service in COMPOSE["services"].values():
        command = service.get("command")
        if command and command[0] == "epistream":
            assert command[1] in names, command


def test_dockerfile_copies_every_package() -> None:
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    copied = set(re.findall(r"^COPY (\w+) \1$", dockerfile, flags=re.M))
    assert copied == {"schemas", "engine", "extractors", "streams", "sinks", "retrieval", "epistream"}


def test_dockerfile_installs_the_pure_python_package_without_a_compiler() -> None:
    """pyproject.toml is the only build configuration: nothing to compile, no setup.py to copy."""
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert not (ROOT / "setup.py").exists() and not list((ROOT / "engine").glob("*.c"))
    assert re.search(r"^COPY pyproject\.toml README\.md \./$", dockerfile, flags=re.M)
    assert 'pip install --no-cache-dir ".[' in dockerfile
    for word in ("gcc", "libc6-dev", "build-essential", "setup.py"):
        assert word not in dockerfile, word


def test_operations_guide_names_the_real_topics() -> None:
    guide = (ROOT / "docs" / "operations.md").read_text()
    for name in (topics.EVENTS, topics.COMMANDS, topics.EXTRACTIONS, topics.OPERATIONS, topics.NODES):
        assert f"`{name}`" in guide


def test_app_services_start_only_once_their_backends_answer_and_restart_on_failure() -> None:
    """Started beside a broker that is still booting, a worker used to crash on the first refused connection."""
    services = COMPOSE["services"]
    backends = {"kafka", "clickhouse", "opensearch"}
    for name in backends:
        assert services[name]["healthcheck"]["test"], name
    for name, service in services.items():
        command = service.get("command") or []
        if not command or command[0] != "epistream":
            continue
        depends = service.get("depends_on")
        assert isinstance(depends, dict), f"{name}: depends_on needs conditions, not a list"
        for backend, rule in depends.items():
            wanted = "service_healthy" if backend in backends else "service_completed_successfully"
            assert rule == {"condition": wanted}, (name, backend, rule)
        if command[1] in {"worker", "api"}:
            assert depends.get("migrate") == {"condition": "service_completed_successfully"}, name
            assert service.get("restart") in {"unless-stopped", "always"}, name


def test_compose_can_split_indexing_into_workers_of_its_own() -> None:
    """``WORKER_ROLE=core`` + the ``split-index`` profile: core workers beside index workers, no role twice."""
    from epistream.cli import WorkerRole

    services = COMPOSE["services"]
    core, index = services["worker"]["command"], services["index-worker"]["command"]
    assert core[:2] == index[:2] == ["epistream", "worker"]
    assert core[core.index("--role") + 1] == "${WORKER_ROLE:-all}"  # all by default, core when split
    assert index[index.index("--role") + 1] == WorkerRole.INDEX.value
    assert {"all", "core", "index"} <= {r.value for r in WorkerRole}
    assert services["index-worker"]["profiles"] == ["split-index"]  # not started unless asked for
    assert "profiles" not in services["worker"]



def test_every_worker_serves_metrics_on_the_port_it_exposes() -> None:
    workers = {name: svc for name, svc in COMPOSE["services"].items() if "worker" in (svc.get("command") or [])}
    assert set(workers) == {"worker", "index-worker"}
    for name, svc in workers.items():
        env = svc["environment"]
        port = Settings(metrics_port=env["EPISTREAM_METRICS_PORT"]).metrics_port
        assert port > 0, name
        assert str(port) in [str(p) for p in svc.get("expose", [])], name
        assert env["EPISTREAM_METRICS_HOST"] == "0.0.0.0", name  # reachable from the scraper's container
