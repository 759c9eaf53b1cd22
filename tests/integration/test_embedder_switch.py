"""Switching embedder on an embedded data directory: the index refuses the new model's vectors until
``rebuild-index`` (here ``EmbeddedRunner.rebuild_indexes``) re-embeds it, with an OpenAI-compatible
endpoint (a real HTTP server on 127.0.0.1) as the first model and the hashing embedder as the next.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from epistream.cli.demo import REFERENCE_TIME, demo_lines
from epistream.runner import EmbeddedRunner
from schemas.retrieval import RetrievalRequest
from schemas.settings import Settings
from sinks.clickhouse import OperationLog
from sinks.embedding import HashEmbedder, embedder_from_settings
from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.integration


def _ask(runner: EmbeddedRunner) -> tuple[bool, list[str]]:
    answer = runner.retrieve(RetrievalRequest(query="where does alice live", tenant_id="acme", owner_id="alice",
                                              sources="claims", limit=5))  # fmt: skip
    return answer.embedding_mismatch, [str(i.object) for i in answer.items]


def test_a_new_embedder_needs_rebuild_index_and_then_answers_with_vectors(
    tmp_path: Path, chdb_path: Path, chdb_database: str
) -> None:
    data = tmp_path / "data"
    with FakeOpenAIServer(embedding_dimension=48) as server:
        settings = Settings(data_dir=data, embedder="openai", embedding_base_url=server.base_url,
                            embedding_model="nomic-embed-text", embedding_dimension=48)  # fmt: skip
        log = OperationLog.connect(None, path=chdb_path, database=chdb_database)
        with EmbeddedRunner(data, settings, embedder=embedder_from_settings(settings), log=log,
                            clock=lambda: REFERENCE_TIME) as runner:  # fmt: skip
            report = runner.ingest_lines(demo_lines(), source="demo")
            assert report.events == 33
            nodes = sum(1 for _ in runner.store.iter_nodes())
            mismatch, objects = _ask(runner)
            assert mismatch is False and "Berlin" in objects
            embedded = sum(len(r.body["input"]) for r in server.embedding_requests)
            assert embedded >= nodes + 33  # every claim and every message's excerpt went through the endpoint

    # Another model on the same data directory: its vectors are not comparable with the stored ones.
    with EmbeddedRunner(data, Settings(data_dir=data), embedder=HashEmbedder(64), log=log,
                        clock=lambda: REFERENCE_TIME) as runner:  # fmt: skip
        mismatch, objects = _ask(runner)
        assert mismatch is True and "Berlin" in objects  # still found, by words only
        assert runner.index.embedding_mismatch and runner.excerpts.embedding_mismatch
        counts = runner.rebuild_indexes()
        assert counts == {"claims": nodes, "excerpts": 33}
        mismatch, objects = _ask(runner)
        assert mismatch is False and "Berlin" in objects
    log.close()
