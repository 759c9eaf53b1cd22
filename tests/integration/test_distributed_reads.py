"""Reads of a runner in distributed mode come from the log the workers write, not from a start-up copy.

In a distributed deployment the stream workers are the writers; the API's runner only reads. These
tests stand a writer (an embedded runner, which writes exactly what a worker writes) and a reader in
distributed mode over one real chDB database: the reader must answer world context (conflicts
included), assertion state and provenance as the writer does, for data written after it started,
and it must not fold the whole log into memory at start.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_api_support import settings_for

from epistream.cli.demo import REFERENCE_TIME, demo_lines
from epistream.runner import DataDirLock, EmbeddedRunner
from schemas.enums import EdgeType
from schemas.errors import BackendUnavailable, ReadOnlyRunner
from schemas.nodes import Edge, MemoryNode
from sinks.clickhouse import OperationLog
from sinks.embedding import HashEmbedder

pytestmark = pytest.mark.integration

TENANT = "acme"
_db = itertools.count()


@pytest.fixture
def database(chdb_path: Path) -> Iterator[str]:
    name = f"dist_reads_{next(_db)}"
    yield name
    with OperationLog.connect(None, path=chdb_path, database=name) as log:
        log.client.command(f"DROP DATABASE IF EXISTS {name}")


def open_runner(chdb_path: Path, data_dir: Path, database: str, **overrides: object) -> EmbeddedRunner:
    log = OperationLog.connect(None, path=chdb_path, database=database)
    return EmbeddedRunner(data_dir, settings_for(data_dir, **overrides), embedder=HashEmbedder(), log=log)


def by_id(item: MemoryNode | Edge) -> str:
    return item.node_id if isinstance(item, MemoryNode) else item.edge_id


def close(runner: EmbeddedRunner) -> None:
    runner.close()
    runner.log.close()


def test_a_distributed_reader_answers_from_the_log_written_after_it_started(
    chdb_path: Path, tmp_path: Path, database: str
) -> None:
    reader = open_runner(chdb_path, tmp_path / "reader", database, api_mode="distributed")
    writer = open_runner(chdb_path, tmp_path / "writer", database)
    try:
        report = writer.ingest_lines(demo_lines(), source="demo")
        assert report.operations > 0
        conflicts = [e for e in writer.store.iter_edges() if e.edge_type is EdgeType.CONTRADICTS]
        assert conflicts, "the demo data must hold a contradiction for this test to mean anything"
        owners = sorted({e.owner_id for e in writer.store.iter_edges()} | {"alice", "bob"})
        for owner in owners:
            mine = reader.world(tenant_id=TENANT, owner_id=owner, at=REFERENCE_TIME)
            theirs = writer.world(tenant_id=TENANT, owner_id=owner, at=REFERENCE_TIME)
            assert mine == theirs, owner
        assert any(writer.world(tenant_id=TENANT, owner_id=o, at=REFERENCE_TIME).conflicts for o in owners)

        # Assertion state of every contradicted subject/predicate: same timeline, values and conflicts.
        for edge in conflicts:
            node = writer.store.get_node(edge.source_id)
            assert node is not None
            args = {"tenant_id": node.tenant_id, "owner_id": node.owner_id, "subject": node.subject,
                    "predicate": node.predicate, "valid_at": REFERENCE_TIME}
            expected = writer.assertion(**args)
            assert expected.conflicts
            assert reader.assertion(**args) == expected

        node = writer.store.get_node(conflicts[0].source_id)
        assert node is not None
        args = {"tenant_id": node.tenant_id, "owner_id": node.owner_id}
        assert reader.provenance(node.node_id, **args) == writer.provenance(node.node_id, **args)
        # Nothing was copied into the reader's own store: each answer above came from the log.
        assert not list(reader.store.iter_nodes())
    finally:
        close(writer)
        close(reader)


def test_a_distributed_reader_loads_no_state_at_start(chdb_path: Path, tmp_path: Path, database: str) -> None:
    writer = open_runner(chdb_path, tmp_path / "writer", database)
    try:
        writer.ingest_lines(demo_lines(), source="demo")
    finally:
        close(writer)
    embedded = open_runner(chdb_path, tmp_path / "embedded", database)
    distributed = open_runner(chdb_path, tmp_path / "distributed", database, api_mode="distributed")
    try:
        assert list(embedded.store.iter_nodes())  # the single writer restarts with its state
        assert not list(distributed.store.iter_nodes())
        for owner in ("alice", "bob"):
            got = distributed.nodes_of(tenant_id=TENANT, owner_id=owner)
            want = embedded.nodes_of(tenant_id=TENANT, owner_id=owner)
            assert want and sorted(got, key=by_id) == sorted(want, key=by_id)
            assert sorted(distributed.edges_of_owner(tenant_id=TENANT, owner_id=owner), key=by_id) == sorted(
                embedded.edges_of_owner(tenant_id=TENANT, owner_id=owner), key=by_id
            )
    finally:
        close(embedded)
        close(distributed)


def test_a_distributed_runner_refuses_to_write(chdb_path: Path, tmp_path: Path, database: str) -> None:
    """The workers are the single writer: a reader with no state must not append a second history."""
    reader = open_runner(chdb_path, tmp_path / "reader", database, api_mode="distributed")
    try:
        with pytest.raises(ReadOnlyRunner) as caught:
            reader.ingest_lines(demo_lines()[:3], source="demo")
        assert caught.value.code == "read_only_runner" and caught.value.http_status == 409
        with pytest.raises(ReadOnlyRunner):
            reader.promote_due(REFERENCE_TIME)
        assert reader.log.count("operations") == 0 and reader.log.count("raw_events") == 0
    finally:
        close(reader)


def test_the_runner_writes_to_the_configured_clickhouse_server(tmp_path: Path) -> None:
    """``EPISTREAM_CLICKHOUSE_URL`` is the runner's log: an unreachable server is an error, not chDB."""
    settings = settings_for(tmp_path / "d", clickhouse_url="http://reader:s3cret-pw@127.0.0.1:9/epistream")
    with pytest.raises(BackendUnavailable) as caught:
        EmbeddedRunner(tmp_path / "d", settings, embedder=HashEmbedder())
    assert "s3cret-pw" not in str(caught.value.to_dict())
    assert not (tmp_path / "d" / "chdb").exists()
    lock = DataDirLock(tmp_path / "d")  # released on the failed start
    lock.acquire()
    lock.release()
