"""Session-wide fixtures shared by every test area.

chDB allows ONE engine path per process, so the whole session shares one data
directory (``chdb_path``; the engine lives in ``<chdb_path>/chdb``, which is what
``OperationLog.connect(path=chdb_path)`` opens). Tests isolate themselves with
their own database name (``chdb_database``), never with their own path.
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# onnxruntime must be loaded before usearch's SIMD library (numkong): the other
# order segfaults the interpreter (see sinks/embedded_index.py).
with contextlib.suppress(ImportError):
    import onnxruntime  # noqa: F401

_sink_factories = Path(__file__).parent / "unit" / "sinks" / "sink_factories.py"
if "sink_factories" not in sys.modules and _sink_factories.exists():
    _spec = importlib.util.spec_from_file_location("sink_factories", _sink_factories)
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["sink_factories"] = _module
    _spec.loader.exec_module(_module)

_db_counter = itertools.count(1)


@pytest.fixture(scope="session")
def chdb_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The one chDB data directory of this test process (engine under ``<path>/chdb``)."""
    return tmp_path_factory.mktemp("chdb-data")


@pytest.fixture
def chdb_database(request: pytest.FixtureRequest) -> str:
    """A database name no other test in this session uses."""
    return f"t_{os.getpid()}_{next(_db_counter)}"


@pytest.fixture
def embedded_runners(tmp_path: Path, chdb_path: Path, chdb_database: str) -> Iterator[Any]:
    """``make(name, log_class=OperationLog, **settings)``: embedded runners of their own (data dir and
    database), hash embedder and the demo's reference clock; all closed after the test."""
    from epistream.cli.demo import REFERENCE_TIME
    from epistream.runner import EmbeddedRunner
    from schemas.settings import Settings
    from sinks.clickhouse import OperationLog
    from sinks.embedding import HashEmbedder

    opened: list[tuple[Any, Any]] = []

    def make(name: str, log_class: type = OperationLog, embedder: Any = None, **settings: Any) -> EmbeddedRunner:
        log = log_class.connect(None, path=chdb_path, database=f"{chdb_database}_{name}")
        data = tmp_path / name
        runner = EmbeddedRunner(data, Settings(data_dir=data, **settings), embedder=embedder or HashEmbedder(),
                                log=log, clock=lambda: REFERENCE_TIME)  # fmt: skip
        opened.append((runner, log))
        return runner

    yield make
    for runner, log in opened:
        runner.close()
        log.close()
