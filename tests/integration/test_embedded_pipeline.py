"""The demo conversations through the real embedded pipeline (chDB + tantivy/usearch).

Assertions are about outcomes a user relies on: which claims exist with which
epistemic type, polarity, condition and lifecycle; what default retrieval
shows and hides; that restart and replay reproduce state; that owners and
tenants never see each other's memory.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from epistream.cli.demo import REFERENCE_TIME, demo_lines
from epistream.runner import EmbeddedRunner
from schemas import ActorRef, ActorType, ConditionState, EpistemicType, LifecycleState, Polarity
from schemas.commands import EvaluateConditionCommand, ResolveContradictionCommand
from schemas.errors import DataDirLocked
from schemas.nodes import MemoryNode
from schemas.retrieval import RetrievalMode, RetrievalRequest
from schemas.settings import Settings
from sinks.clickhouse import OperationLog
from sinks.embedding import HashEmbedder

pytestmark = pytest.mark.integration


def _runner(data_dir: Path, chdb_path: Path, database: str) -> EmbeddedRunner:
    log = OperationLog.connect(None, path=chdb_path, database=database)
    return EmbeddedRunner(
        data_dir,
        Settings(data_dir=data_dir, batch_size=7),
        embedder=HashEmbedder(),
        log=log,
        clock=lambda: REFERENCE_TIME,
    )


@pytest.fixture
def runner(tmp_path: Path, chdb_path: Path, chdb_database: str) -> Iterator[EmbeddedRunner]:
    r = _runner(tmp_path / "data", chdb_path, chdb_database)
    r.ingest_lines(demo_lines(), source="demo")
    yield r
    r.close()
    r.log.close()


def _find(runner: EmbeddedRunner, owner: str, predicate: str, obj: str, **where: object) -> list[MemoryNode]:
    found = [
        n
        for n in runner.store.iter_nodes()
        if n.owner_id == owner and n.predicate == predicate and (n.object or "").lower() == obj.lower()
    ]
    return [n for n in found if all(getattr(n, k) == v for k, v in where.items())]


def _request(
    owner: str, query: str, mode: RetrievalMode = RetrievalMode.DEFAULT, tenant: str = "acme"
) -> RetrievalRequest:
    return RetrievalRequest(
        query=query,
        tenant_id=tenant,
        owner_id=owner,
        mode=mode,
        limit=50,
        token_budget=4000,
        reference_time=REFERENCE_TIME,
    )


def test_updates_supersede_and_close_validity(runner: EmbeddedRunner) -> None:
    (berlin,) = _find(runner, "alice", "lives_in", "Berlin")
    paris = _find(runner, "alice", "lives_in", "Paris", epistemic_type=EpistemicType.ASSERTED)
    assert len(paris) == 1
    old = paris[0]
    assert old.lifecycle is LifecycleState.SUPERSEDED
    assert old.superseded_by == berlin.node_id
    assert old.valid_to == berlin.valid_from
    assert berlin.lifecycle is LifecycleState.TENTATIVE
    (postgres,) = _find(runner, "alice", "uses", "Postgres")
    (clickhouse,) = _find(runner, "alice", "uses", "ClickHouse")
    assert postgres.lifecycle is LifecycleState.SUPERSEDED and postgres.superseded_by == clickhouse.node_id
    # A hypothetical move never retires anything.
    (lisbon,) = _find(runner, "alice", "lives_in", "Lisbon")
    assert lisbon.epistemic_type is EpistemicType.HYPOTHETICAL


def test_contradiction_is_preserved_not_resolved(runner: EmbeddedRunner) -> None:
    coffee = _find(runner, "alice", "likes", "coffee", epistemic_type=EpistemicType.ASSERTED)
    assert sorted(n.polarity.value for n in coffee) == ["negative", "positive"]
    assert all(n.lifecycle is LifecycleState.CONTESTED for n in coffee)
    a, b = coffee
    assert b.node_id in a.contradicts and a.node_id in b.contradicts
    # Bob liking coffee is a different owner: no conflict there.
    assert all(n.lifecycle is not LifecycleState.CONTESTED for n in _find(runner, "bob", "likes", "coffee"))


def test_conditions_hypotheticals_and_roles(runner: EmbeddedRunner) -> None:
    (cycle,) = [
        n for n in runner.store.iter_nodes() if n.owner_id == "alice" and n.epistemic_type is EpistemicType.CONDITIONAL
    ]
    assert cycle.condition == "If the weather is good"
    assert cycle.condition_state is ConditionState.UNKNOWN
    (python_if,) = [n for n in runner.store.iter_nodes() if n.owner_id == "carol" and n.condition]
    assert python_if.condition == "provided that the latency stays under 50 ms"
    (vim_neg,) = _find(runner, "bob", "uses", "Vim", polarity=Polarity.NEGATIVE)
    assert vim_neg.lifecycle in {LifecycleState.TENTATIVE, LifecycleState.STABLE}
    restated = _find(runner, "alice", "lives_in", "Paris", epistemic_type=EpistemicType.INFERRED)
    assert restated and restated[0].source_type.value == "SYSTEM_INFERRED"
    # Questions, pleasantries and assistant recommendations produce nothing.
    claimed = {ref for n in runner.store.iter_nodes() for ref in n.evidence_refs}
    assert not claimed & {"demo-a-002", "demo-a-009", "demo-a-010", "demo-a-020"}


def test_secrets_never_reach_stored_text(runner: EmbeddedRunner) -> None:
    secrets = ("hunter2-Secret!", "sk-proj-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c")
    rows = runner.log.client.query(f"SELECT content FROM {runner.log.database}.raw_events").result_rows
    stored = " ".join(r[0] for r in rows)
    assert "[REDACTED:" in stored
    for secret in secrets:
        assert secret not in stored
        assert all(secret not in n.model_dump_json() for n in runner.store.iter_nodes())
    journal = runner.log.client.query(f"SELECT result FROM {runner.log.database}.extraction_journal").result_rows
    assert all(secret not in r[0] for r in journal for secret in secrets)


def test_default_retrieval_hides_what_explicit_shows(runner: EmbeddedRunner) -> None:
    default = runner.retrieve(_request("alice", "Where does Alice live? Lisbon Paris Berlin"))
    shown = {(i.predicate, (i.object or "").lower()) for i in default.items}
    assert ("lives_in", "berlin") in shown
    assert ("lives_in", "lisbon") not in shown and ("lives_in", "paris") not in shown
    assert "user lives_in Berlin" in default.context
    assert "user lives_in Lisbon" not in default.context and "user lives_in Paris" not in default.context
    explicit = runner.retrieve(_request("alice", "Where does Alice live? Lisbon Paris Berlin", RetrievalMode.EXPLICIT))
    reasons = {x.reason for x in explicit.excluded if x.included}
    assert "epistemic_filtered:hypothetical" in reasons
    assert "lifecycle_filtered:superseded" in reasons


def test_contested_pair_is_flagged_in_retrieval(runner: EmbeddedRunner) -> None:
    response = runner.retrieve(_request("alice", "does alice like coffee"))
    coffee = [i for i in response.items if i.predicate == "likes" and (i.object or "").lower() == "coffee"]
    assert len(coffee) == 2
    assert [i.conflict_flag for i in coffee].count(True) == 1
    assert "CONFLICT" in response.context


def test_condition_evaluation_lets_the_claim_into_default_retrieval(runner: EmbeddedRunner) -> None:
    (cycle,) = [
        n for n in runner.store.iter_nodes() if n.owner_id == "alice" and n.epistemic_type is EpistemicType.CONDITIONAL
    ]
    before = runner.retrieve(_request("alice", "cycle to work weather"))
    assert cycle.node_id not in {i.node_id for i in before.items}
    result = runner.submit(
        EvaluateConditionCommand(
            **cycle.scope_ref().model_dump(),
            command_id="c-1",
            actor=ActorRef(actor_id="alice", actor_type=ActorType.HUMAN_USER),
            issued_at=REFERENCE_TIME,
            node_id=cycle.node_id,
            state=ConditionState.TRUE,
        )
    )
    assert result.outcome.status == "applied"
    after = runner.retrieve(_request("alice", "cycle to work weather"))
    item = next(i for i in after.items if i.node_id == cycle.node_id)
    assert item.label.condition_state is ConditionState.TRUE
    assert "If the weather is good" in after.context


def test_owners_and_tenants_are_isolated(runner: EmbeddedRunner) -> None:
    bob_ids = {n.node_id for n in runner.store.iter_nodes() if n.owner_id == "bob"}
    for mode in RetrievalMode:
        alice = runner.retrieve(_request("alice", "coffee Vim Neovim Madrid Globex", mode))
        assert not {i.node_id for i in alice.items} & bob_ids
        assert not {x.node_id for x in alice.excluded} & bob_ids
        assert "Madrid" not in alice.context and "Globex" not in alice.context
        other_tenant = runner.retrieve(_request("bob", "coffee Vim", mode, tenant="globex"))
        assert other_tenant.items == ()
    some_bob = next(iter(bob_ids))
    assert runner.node(some_bob, tenant_id="acme", owner_id="alice") is None
    assert runner.node(some_bob, tenant_id="globex") is None
    assert runner.provenance(some_bob, tenant_id="acme", owner_id="alice") is None


def test_restart_replay_and_redelivery(tmp_path: Path, chdb_path: Path, chdb_database: str) -> None:
    data = tmp_path / "data"
    first = _runner(data, chdb_path, chdb_database)
    first.ingest_lines(demo_lines(), source="demo")
    coffee = sorted(n.node_id for n in _find(first, "alice", "likes", "coffee", epistemic_type=EpistemicType.ASSERTED))
    first.submit(
        ResolveContradictionCommand(
            tenant_id="acme",
            owner_id="alice",
            scope="personal",
            command_id="resolve-1",
            actor=ActorRef(actor_id="alice", actor_type=ActorType.HUMAN_USER),
            issued_at=datetime(2026, 9, 30, tzinfo=UTC),
            winner_id=coffee[0],
            loser_id=coffee[1],
        )
    )
    snapshot = first.store.snapshot()
    ops_before = first.log.count("operations")
    first.close()

    again = _runner(data, chdb_path, chdb_database)
    try:
        assert again.store.snapshot() == snapshot
        assert again.verify_replay() == []
        report = again.ingest_lines(demo_lines(), source="demo")  # redelivery of everything
        assert report.duplicates == report.events + report.duplicates and report.operations == 0
        assert again.log.count("operations") == ops_before
        assert again.store.snapshot() == snapshot
        loser = again.store.get_node(coffee[1])
        assert loser is not None and loser.lifecycle is LifecycleState.DEPRECATED
    finally:
        again.close()
        again.log.close()


def test_one_process_per_data_directory(runner: EmbeddedRunner, chdb_path: Path) -> None:
    with pytest.raises(DataDirLocked):
        EmbeddedRunner(runner.data_dir, embedder=HashEmbedder(), log=runner.log)


def test_bad_lines_become_dead_letters_and_the_rest_is_processed(
    tmp_path: Path, chdb_path: Path, chdb_database: str
) -> None:
    r = _runner(tmp_path / "d", chdb_path, chdb_database)
    try:
        good = demo_lines()[2]
        report = r.ingest_lines([b"{not json", b"\xff\xfe", good, b'{"event_id": "x"}'], source="file.jsonl")
        assert report.events == 1 and report.dead_letters == 3
        assert sorted(e["code"] for e in report.errors) == ["invalid_json", "invalid_utf8", "missing_field"]
        letters = r.log.list_dead_letters(source="file.jsonl")
        # masked bytes (the invalid UTF-8 replaced), the original's digest and its line in the file
        assert sorted(letter.masked_bytes for letter in letters) == sorted(
            [b"{not json", "\ufffd\ufffd".encode(), b'{"event_id": "x"}']
        )
        assert sorted(letter.original_sha256 for letter in letters) == sorted(
            hashlib.sha256(raw).hexdigest() for raw in (b"{not json", b"\xff\xfe", b'{"event_id": "x"}')
        )
        assert sorted(letter.offset or 0 for letter in letters) == [1, 2, 4]
    finally:
        r.close()
        r.log.close()


def test_demo_command_runs_end_to_end(tmp_path: Path) -> None:
    """The README's first command, in a fresh process with the default MiniLM embedder.

    A shell set up for a deployment must not matter: the demo never writes to its ClickHouse or
    OpenSearch (unreachable here, so using them would fail) and is never read-only.
    """
    deployment = {
        "EPISTREAM_CLICKHOUSE_URL": "http://demo:pw@127.0.0.1:9/epistream",
        "EPISTREAM_OPENSEARCH_URL": "http://127.0.0.1:9",
        "EPISTREAM_API_MODE": "distributed",
    }
    result = subprocess.run(
        [sys.executable, "-m", "epistream.cli", "demo", "--data-dir", str(tmp_path / "demo"), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **deployment},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout)
    assert out["ingest"]["events"] == len(demo_lines())
    assert out["replay_differences"] == []
    assert out["operation_counts"]["CONTRADICTION_NOTED"] >= 1
    assert out["operation_counts"]["SUPERSEDENCE_APPLIED"] >= 2
    assert out["seconds"] < 60
    assert out["provenance"]["node"]["lifecycle"] == "CONTESTED"


class _FailingOnce(OperationLog):
    """The real log, with the n-th operations write failing (a full disk, a killed engine)."""

    def __init__(self, log: OperationLog, fail_on_call: int) -> None:
        super().__init__(log.client, log.database)
        self.calls = 0
        self.fail_on_call = fail_on_call

    def write_operations(self, ops):  # type: ignore[no-untyped-def]
        self.calls += 1
        if self.calls == self.fail_on_call:
            raise OSError("disk full")
        return super().write_operations(ops)


def test_a_failed_background_write_stops_the_ingest_and_the_log_stays_a_prefix(
    tmp_path: Path, chdb_path: Path, chdb_database: str
) -> None:
    log = _FailingOnce(OperationLog.connect(None, path=chdb_path, database=chdb_database), fail_on_call=2)
    runner = EmbeddedRunner(tmp_path / "data", Settings(data_dir=tmp_path / "data", batch_size=7, log_batch_rows=1),
                            embedder=HashEmbedder(), log=log, clock=lambda: REFERENCE_TIME)
    lines = demo_lines()  # log_batch_rows=1: each micro-batch is one write, as the failure is counted in writes
    try:
        with pytest.raises(OSError, match="disk full"):
            runner.ingest_lines(lines, source="demo")
    finally:
        runner.close()
    # Batch 1 (7 events) is stored in full; batch 2's operations never reached the log, and nothing
    # reduced after it (batches 3+) was written either.
    rows = log.client.query(f"SELECT DISTINCT event_id FROM {log.database}.raw_events").result_rows
    stored_events = {e for (e,) in rows}
    first_batch = {json.loads(line)["event_id"] for line in lines[:7]}
    later = {json.loads(line)["event_id"] for line in lines[14:]}
    assert first_batch <= stored_events
    assert not (later & stored_events)
    causes = {op.caused_by for op in log.stream_operations()}
    assert causes and all(c.rsplit("/", 1)[1] in first_batch for c in causes)
    # Every node a complete ingest creates (another data directory and database, same input).
    ref = EmbeddedRunner(tmp_path / "ref", Settings(data_dir=tmp_path / "ref", batch_size=7, log_batch_rows=1),
                         embedder=HashEmbedder(), clock=lambda: REFERENCE_TIME,
                         log=OperationLog.connect(None, path=chdb_path, database=f"{chdb_database}_ref"))
    try:
        ref.ingest_lines(lines, source="demo")
        every_node = sorted(n.node_id for n in ref.store.iter_nodes())
    finally:
        ref.close()
        ref.log.close()
    # Restarting folds the stored prefix; ingesting the same lines again completes the log exactly.
    log.fail_on_call = 0
    again = EmbeddedRunner(tmp_path / "data", Settings(data_dir=tmp_path / "data", batch_size=7, log_batch_rows=1),
                           embedder=HashEmbedder(), log=log, clock=lambda: REFERENCE_TIME)
    try:
        # The index is never ahead of the log: the failed batch's nodes (embedded while its log
        # rows were being written) were not indexed.
        logged = {n.node_id for n in again.store.iter_nodes()}
        assert logged and len(logged) < len(every_node)
        assert {n.node_id for n in again.index.get(every_node)} == logged
        report = again.ingest_lines(lines, source="demo")
        assert report.duplicates == 7 and report.events == len(lines) - 7
        assert again.verify_replay() == []  # no difference between live state and the log
    finally:
        again.close()
