"""What a chat platform's or operator's script sees when a backend is down: a typed error, not a traceback.

Each call is the real ``epistream`` command in a fresh process (``python -m epistream.cli``
runs the console script's ``main``), pointed at a port where nothing listens.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
import tomllib
import uuid
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SECRET_CONTENT = "my door code is 4711-secret"
PASSWORD = "pw-never-printed"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _event() -> bytes:
    return json.dumps({
        "event_id": "e-1", "tenant_id": "acme", "owner_id": "ana", "scope": "personal", "conversation_id": "c",
        "session_id": "s", "role": "user", "content": SECRET_CONTENT, "occurred_at": "2026-11-30T08:00:00+00:00",
    }).encode()  # fmt: skip


def run(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> tuple[int, Any, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "epistream.cli", *args],
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
        env={"PATH": "/usr/bin:/bin", "EPISTREAM_EMBEDDER": "hash", "EPISTREAM_CLOCK": "2026-10-01T12:00:00Z",
             **(env or {})},
    )
    out = proc.stdout.decode()
    return proc.returncode, json.loads(out) if out.strip() else None, proc.stderr.decode()


def _assert_kafka_unavailable(code: int, out: Any, err: str) -> None:
    assert code == 2, err[-2000:]
    assert out["error"]["code"] == "backend_unavailable"
    assert out["error"]["details"]["backend"] == "kafka"
    assert "Traceback" not in err
    assert "Unclosed" not in err  # the client that failed to start was closed again


def test_publish_to_an_unreachable_broker_is_a_typed_error_without_the_content() -> None:
    code, out, err = run("publish", "-", "--bootstrap", f"127.0.0.1:{_closed_port()}", "--json", stdin=_event())
    _assert_kafka_unavailable(code, out, err)
    assert SECRET_CONTENT not in json.dumps(out) and SECRET_CONTENT not in err


def test_publish_without_json_prints_the_code_not_a_traceback() -> None:
    code, _out, err = run("publish", "-", "--bootstrap", f"127.0.0.1:{_closed_port()}", stdin=_event())
    assert code == 2
    assert "backend_unavailable" in err and "Traceback" not in err


def test_dead_letter_listing_from_an_unreachable_broker_is_a_typed_error() -> None:
    code, out, err = run("dlq", "list", "--bootstrap", f"127.0.0.1:{_closed_port()}", "--json")
    _assert_kafka_unavailable(code, out, err)


def test_lag_from_an_unreachable_broker_is_a_typed_error() -> None:
    code, out, err = run("lag", "--bootstrap", f"127.0.0.1:{_closed_port()}", "--json", "--fail-above", "0")
    _assert_kafka_unavailable(code, out, err)


def test_rebuild_index_with_clickhouse_down_names_the_code_and_hides_the_password(tmp_path: Path) -> None:
    env = {
        "EPISTREAM_CLICKHOUSE_URL": f"http://reader:{PASSWORD}@127.0.0.1:{_closed_port()}",
        "EPISTREAM_OPENSEARCH_URL": f"http://127.0.0.1:{_closed_port()}",
        "EPISTREAM_DATA_DIR": str(tmp_path),
    }
    code, out, err = run("rebuild-index", "--json", env=env)
    assert code == 2, err[-2000:]
    assert out["error"]["code"] == "backend_unavailable"
    assert PASSWORD not in json.dumps(out) and PASSWORD not in err and "Traceback" not in err


def test_the_console_script_runs_main_which_tunes_the_collector() -> None:
    """``epistream ingest`` is a pipeline process: it gets the same GC tuning as the workers and benches."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["epistream"] == "epistream.cli:main"
    probe = (
        "import gc, sys\n"
        "from epistream.cli import main\n"
        "from streams.runtime import GC_YOUNG_THRESHOLD\n"
        "sys.argv = ['epistream', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(gc.get_threshold()[0] == GC_YOUNG_THRESHOLD)\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=60, check=True)
    assert proc.stdout.decode().strip().splitlines()[-1] == "True"


def test_library_calls_raise_backend_unavailable_and_close_their_clients() -> None:
    """The Python publisher and the lag probe raise the typed error too (scripts import them)."""
    probe = f"""
import warnings
warnings.simplefilter("error", ResourceWarning)
from schemas.errors import BackendUnavailable
from streams.publisher import publish_lines
from streams.faust_app import consumer_lag
bootstrap = "127.0.0.1:{_closed_port()}"
codes = []
for call in (
    lambda: publish_lines([{_event()!r}], bootstrap),
    lambda: consumer_lag(bootstrap, "g", ["conversation.events"]),
):
    try:
        call()
    except BackendUnavailable as exc:
        codes.append((exc.code, exc.details["backend"]))
print(codes)
"""
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=120, check=False, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert proc.stdout.decode().strip() == str([("backend_unavailable", "kafka")] * 2)
    assert "Unclosed" not in proc.stderr.decode()


def _forward_later(port: int, target: tuple[str, int], after_s: float, stop: threading.Event) -> threading.Thread:
    """Listen on ``port`` only after ``after_s``, then relay every connection to ``target``: a broker that
    is still starting when the worker does."""

    def pump(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    def serve() -> None:
        time.sleep(after_s)
        with socket.socket() as server:
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind(("127.0.0.1", port))
            server.listen()
            server.settimeout(0.2)
            while not stop.is_set():
                try:
                    client, _ = server.accept()
                except TimeoutError:
                    continue
                upstream = socket.create_connection(target)
                for a, b in ((client, upstream), (upstream, client)):
                    threading.Thread(target=pump, args=(a, b), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def test_a_starting_worker_waits_for_a_broker_that_answers_later() -> None:
    from test_stream_pipeline import start_services

    from schemas.settings import Settings
    from streams import topics as tn
    from streams.faust_app import WorkerOptions, prepare

    host, _, real_port = start_services()[0].partition(":")
    port, stop = _closed_port(), threading.Event()
    _forward_later(port, (host, int(real_port)), 2.0, stop)
    prefix = f"wait-{uuid.uuid4().hex[:8]}."
    settings = Settings(kafka_bootstrap=f"127.0.0.1:{port}", partitions=1, kafka_startup_wait_s=60)
    start = time.monotonic()
    try:
        created = prepare(settings, WorkerOptions(topic_prefix=prefix))
    finally:
        stop.set()
    assert time.monotonic() - start >= 2.0  # it did wait
    assert set(created) == set(tn.Topics(prefix=prefix, partitions=1).all())


def test_a_worker_gives_up_on_an_absent_broker_with_a_code_after_its_wait(tmp_path: Path) -> None:
    env = {
        "EPISTREAM_KAFKA_BOOTSTRAP": f"127.0.0.1:{_closed_port()}",
        "EPISTREAM_KAFKA_STARTUP_WAIT_S": "2",
        "EPISTREAM_WORKER_DATA_DIR": str(tmp_path),
    }
    start = time.monotonic()
    # --role core: a role that indexes would refuse at once without EPISTREAM_OPENSEARCH_URL (not_configured)
    code, _out, err = run("worker", "--role", "core", env=env)
    assert code == 2, err[-2000:]
    assert time.monotonic() - start >= 2.0
    assert "Kafka is not answering yet" in err and "backend_unavailable" in err and "Traceback" not in err
