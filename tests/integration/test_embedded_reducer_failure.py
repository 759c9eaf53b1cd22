"""An input the reducer refuses with a broken invariant: the embedded runner dead-letters it and stores the rest.

The stream's materialize already did this; the embedded runner let the error escape the batch, leaving
the inputs before it in memory but not in the log.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.reducer import Reducer
from epistream.cli.demo import REFERENCE_TIME
from epistream.runner import EmbeddedRunner
from schemas.errors import IntegrityError
from schemas.settings import Settings
from sinks.clickhouse import OperationLog
from sinks.embedding import HashEmbedder

pytestmark = pytest.mark.integration


class RefusesOneEvent(Reducer):
    """The real reducer, except that one event breaks an invariant after its first operation."""

    def __init__(self, bad_event_id: str) -> None:
        super().__init__()
        self.bad = bad_event_id

    def _create(self, store: Any, em: Any, result: Any, *args: Any) -> None:
        super()._create(store, em, result, *args)
        if result.event.event_id == self.bad:
            raise IntegrityError("injected invariant break", code="injected_break")


def _line(event_id: str, owner: str, content: str) -> bytes:
    return json.dumps({"event_id": event_id, "tenant_id": "t", "owner_id": owner, "scope": "personal",
                       "role": "user", "content": content, "occurred_at": "2026-09-01T10:00:00Z"}).encode()  # fmt: skip


@pytest.fixture
def runner(tmp_path: Path, chdb_path: Path, chdb_database: str) -> Iterator[EmbeddedRunner]:
    log = OperationLog.connect(None, path=chdb_path, database=chdb_database)
    r = EmbeddedRunner(tmp_path / "data", Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder(), log=log,
                       clock=lambda: REFERENCE_TIME)  # fmt: skip
    yield r
    r.close()
    log.close()


def test_the_refused_input_is_a_dead_letter_and_the_rest_of_the_batch_is_stored(runner: EmbeddedRunner) -> None:
    runner.reducer = RefusesOneEvent("e-2")
    lines = [_line("e-1", "ana", "I live in Porto."), _line("e-2", "ana", "I drink oat milk."),
             _line("e-3", "bo", "I use Neovim.")]  # fmt: skip
    report = runner.ingest_lines(lines)
    assert report.events == 3 and report.dead_letters == 1
    [letter] = runner.log.list_dead_letters()
    assert letter.reason_code == "injected_break" and letter.source == "reducer"
    assert json.loads(letter.masked_bytes)["event"]["event_id"] == "e-2"
    objects = sorted(n.object or "" for n in runner.store.iter_nodes())
    assert objects == ["Neovim", "Porto"]  # nothing of e-2 stayed in memory
    assert runner.verify_replay() == []  # and memory is exactly the fold of the log
    # Fixed (here: the real reducer again), the same line goes through; the letter was no "seen" mark.
    runner.reducer = Reducer()
    again = runner.ingest_lines(lines[1:2])
    assert again.events == 1 and again.dead_letters == 0 and again.operations > 0
