"""A node's provenance reads only the operations that name it, and must equal one built from the whole log.

``EmbeddedRunner.provenance`` asks ClickHouse (real chDB) for the owner's operations whose record
names the node (and, for its edges' other ends, those naming them) instead of parsing the owner's
entire log. The reference here is ``get_provenance`` over every operation of the owner: any
operation the narrowed read misses, or any it adds twice, changes the trail, the edges shown or the
pages.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_api_support import settings_for

from engine.provenance import get_provenance
from epistream.cli.demo import REFERENCE_TIME, demo_lines
from epistream.runner import EmbeddedRunner
from schemas.commands import ResolveContradictionCommand
from schemas.common import ActorRef
from schemas.enums import ActorType, EdgeType
from sinks.clickhouse import OperationLog
from sinks.embedding import HashEmbedder

pytestmark = pytest.mark.integration

TENANT = "acme"
_db = itertools.count()


@pytest.fixture
def runner(chdb_path: Path, tmp_path: Path) -> Iterator[EmbeddedRunner]:
    database = f"prov_reads_{next(_db)}"
    log = OperationLog.connect(None, path=chdb_path, database=database)
    run = EmbeddedRunner(tmp_path / "d", settings_for(tmp_path / "d"), embedder=HashEmbedder(), log=log)
    try:
        run.ingest_lines(demo_lines(), source="demo")
        # An edge that changes state later: the resolution targets the edge, not either node.
        edge = next(e for e in run.store.iter_edges() if e.edge_type is EdgeType.CONTRADICTS and e.active)
        winner = run.store.get_node(edge.source_id)
        assert winner is not None
        outcome = run.submit(
            ResolveContradictionCommand(
                **winner.scope_ref().model_dump(), command_id="prov-resolve-1",
                actor=ActorRef(actor_id=winner.owner_id, actor_type=ActorType.HUMAN_USER),
                issued_at=REFERENCE_TIME, winner_id=edge.source_id, loser_id=edge.target_id,
            )
        ).outcome
        assert outcome.status == "applied", outcome
        yield run
    finally:
        run.close()
        log.client.command(f"DROP DATABASE IF EXISTS {database}")
        log.close()


def reference(runner: EmbeddedRunner, node_id: str, owner: str, cursor: str | None, limit: int) -> object:
    ops = runner.log.read_operations(tenant=TENANT, owner=owner)
    node = next(op.after for op in reversed(ops) if op.after is not None and op.after.node_id == node_id)
    events = [e.model_dump(mode="json") for e in runner.log.get_events(list(node.evidence_refs), TENANT, owner)]
    return get_provenance(node_id, owner, events, ops, tenant_id=TENANT, operation_cursor=cursor,
                          operation_limit=limit)


def test_every_node_has_the_provenance_the_whole_log_gives(runner: EmbeddedRunner) -> None:
    nodes = list(runner.store.iter_nodes())
    assert len(nodes) > 20
    with_edges = 0
    for node in nodes:
        got = runner.provenance(node.node_id, tenant_id=TENANT, owner_id=node.owner_id)
        assert got is not None
        assert got == reference(runner, node.node_id, node.owner_id, None, 100), node.node_id
        with_edges += bool(got.contradiction_edges)
    assert with_edges >= 2  # the comparison covered nodes whose edges are shown


def test_pages_of_a_long_history_match(runner: EmbeddedRunner) -> None:
    busiest = max(
        runner.store.iter_nodes(),
        key=lambda n: len(runner.log.operations_naming(TENANT, n.owner_id, [n.node_id])),
    )
    cursor: str | None = None
    pages = 0
    while True:
        got = runner.provenance(busiest.node_id, tenant_id=TENANT, owner_id=busiest.owner_id, cursor=cursor, limit=1)
        assert got is not None
        assert got == reference(runner, busiest.node_id, busiest.owner_id, cursor, 1)
        pages += 1
        cursor = got.next_operation_cursor
        if not cursor:
            break
    assert pages >= 3


def test_another_owners_node_has_no_provenance(runner: EmbeddedRunner) -> None:
    bobs = next(n for n in runner.store.iter_nodes() if n.owner_id == "bob")
    assert runner.provenance(bobs.node_id, tenant_id=TENANT, owner_id="alice") is None
    assert runner.provenance(bobs.node_id, tenant_id="other", owner_id="bob") is None
