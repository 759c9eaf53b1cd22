"""Retrieval receipts: what an assistant was shown, what was left out and why, on real chDB and the real app.

Expected values come from the retrieval responses themselves (the receipt must agree with what the
caller received) and from the spec (PRME-FACTS 5.3 RETRIEVAL_REQUEST; tenant/owner isolation of reads).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import uuid
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_api_support import (
    OWNERS,
    TENANTS,
    Keys,
    build_corpus,
    corpus_events,
    open_runner,
    settings_for,
)
from typer.testing import CliRunner

from epistream.api import Permission, create_app
from epistream.api.receipts import ReceiptWriter
from epistream.cli import app as cli_app
from epistream.client import EpistreamClient
from epistream.runner import EmbeddedRunner
from schemas.errors import NotFound
from schemas.retrieval import RetrievalReceipt, RetrievalRequest, chosen_receipt_id
from sinks.clickhouse import OperationLog
from sinks.clickhouse_schema import MIGRATIONS, RECEIPTS_TABLE, migrate, schema_version
from sinks.embedding import HashEmbedder

pytestmark = pytest.mark.integration

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
#: Shapes the secret guard recognises (extractors/secrets.py): an OpenAI-style key and an AWS access key id.
SECRETS = ("sk-proj-Zx81QmT4vLp09RsWqE2nYb7c", "AKIAQ4XZ7NB2MKE5WT3P")


class World:
    def __init__(self, client: TestClient, keys: Keys, runner: EmbeddedRunner, ids: dict[tuple[str, str], Any]):
        self.client, self.keys, self.runner, self.ids = client, keys, runner, ids

    @property
    def writer(self) -> ReceiptWriter:
        writer = self.client.app.state.api.receipts  # type: ignore[attr-defined]
        assert writer is not None
        return writer

    def retrieve(self, key: str, body: dict[str, Any], **headers: str) -> dict[str, Any]:
        r = self.client.post("/v1/retrieve", json=body, headers={**self.keys.auth(key), **headers})
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()
        return out

    def rows(self, sql: str, **params: Any) -> list[tuple[Any, ...]]:
        log = self.runner.log
        text = sql.replace("{table}", f"{log.database}.{RECEIPTS_TABLE}")
        return [tuple(r) for r in log.client.query(text, parameters=params).result_rows]


@pytest.fixture(scope="module")
def world(chdb_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    data = tmp_path_factory.mktemp("receipts")
    settings = settings_for(data)
    keys = Keys()
    keys.add("admin-alpha", TENANTS[0])
    keys.add("admin-beta", TENANTS[1])
    keys.add("o2-only", TENANTS[0], owners={OWNERS[1]})
    keys.add("o1-only", TENANTS[0], owners={OWNERS[0]})
    keys.add("write-only", TENANTS[0], permissions=frozenset({Permission.WRITE}))
    with open_runner(chdb_path, data, settings) as runner:
        app = create_app(runner, api_keys=keys.ring(), settings=settings, clock=lambda: NOW)
        with TestClient(app) as client:
            ids = build_corpus(client, keys, runner, {TENANTS[0]: "admin-alpha", TENANTS[1]: "admin-beta"})
            yield World(client, keys, runner, ids)


def _receipt(world: World, receipt_id: str, key: str = "admin-alpha") -> RetrievalReceipt:
    assert world.writer.flush(), "the receipt writer did not drain"
    r = world.client.get(f"/v1/retrievals/{receipt_id}", headers=world.keys.auth(key))
    assert r.status_code == 200, r.text
    return RetrievalReceipt.model_validate(r.json())


@pytest.mark.parametrize(
    "body",
    [
        {"query": "maybe learn Rust", "mode": "explicit"},  # every rule's exclusion, kept and explained
        {"query": "live work tea coffee dog", "debug": True, "token_budget": 60},  # filtered + budget-cut items
        {"query": "where do I live"},  # plain DEFAULT mode: nothing excluded is reported
    ],
)
def test_a_retrieval_records_exactly_one_receipt_of_what_it_answered(world: World, body: dict[str, Any]) -> None:
    ops_before = world.runner.log.count("operations")
    resp = world.retrieve("admin-alpha", {**body, "owner_id": OWNERS[0]})
    rid = resp["receipt_id"]
    assert str(uuid.UUID(rid)) == rid
    receipt = _receipt(world, rid)

    assert world.rows("SELECT count() FROM {table} FINAL WHERE request_id = {r:String}", r=rid) == [(1,)]
    assert [i.node_id for i in receipt.included] == [i["node_id"] for i in resp["items"]]
    assert [i.in_context for i in receipt.included] == [i["in_context"] for i in resp["items"]]
    assert [i.score for i in receipt.included] == [i["score"] for i in resp["items"]]
    kinds = {i["node_id"]: i["kind"] for i in resp["items"]}
    for item in receipt.included:
        if kinds[item.node_id] == "excerpt":
            (doc,) = world.runner.excerpts.get([item.node_id])
            assert doc.tenant_id == TENANTS[0] and item.version == doc.version == 1
            continue
        node = world.runner.node(item.node_id, tenant_id=TENANTS[0])
        assert node is not None and item.version == node.version >= 1
    assert [(e.node_id, e.reason, e.stage, e.included) for e in receipt.excluded] == [
        (e["node_id"], e["reason"], e["stage"], e["included"]) for e in resp["excluded"]
    ]
    assert (receipt.tenant_id, receipt.owner_id, receipt.actor_id) == (TENANTS[0], OWNERS[0], "admin-alpha")
    assert receipt.query == body["query"]
    assert receipt.mode.value == resp["mode"] and receipt.query_intent.value == resp["intent"]
    assert receipt.candidates_generated == resp["candidate_count"]
    filtered = {e["node_id"] for e in resp["excluded"] if e["stage"] in ("policy", "filter") and not e["included"]}
    assert receipt.candidates_after_filter == resp["candidate_count"] - len(filtered)
    assert (receipt.tokens_used, receipt.token_budget) == (resp["tokens_used"], resp["token_budget"])
    assert receipt.request_fingerprint == resp["request_fingerprint"]
    assert receipt.context_sha256 == hashlib.sha256(resp["context"].encode()).hexdigest()
    assert receipt.received_at == NOW
    assert receipt.reference_time.isoformat() == datetime.fromisoformat(resp["reference_time"]).isoformat()
    embedder = HashEmbedder()  # what the fixture's runner embeds queries with
    assert (receipt.embedding_model, receipt.embedding_version) == (embedder.model_name, embedder.model_version)
    assert receipt.embedding_mismatch is resp["embedding_mismatch"]
    # A receipt changes no state: the operation log (what replay folds) is untouched.
    assert world.runner.log.count("operations") == ops_before


def test_the_explicit_case_does_report_exclusions(world: World) -> None:
    """Guards the parametrized test above against comparing two empty lists only."""
    resp = world.retrieve("admin-alpha", {"query": "maybe learn Rust", "mode": "explicit", "owner_id": OWNERS[0]})
    receipt = _receipt(world, resp["receipt_id"])
    rust = world.ids[(TENANTS[0], OWNERS[0])]["rust_maybe"]
    assert any(e.node_id == rust and e.reason.startswith("epistemic_filtered") for e in receipt.excluded)
    budget = world.retrieve("admin-alpha", {"query": "live work tea coffee dog", "debug": True,
                                            "token_budget": 60, "owner_id": OWNERS[0]})
    cut = _receipt(world, budget["receipt_id"])
    assert any(e.stage == "packing" for e in cut.excluded) and any(not i.in_context for i in cut.included)


def test_the_receipt_id_is_derived_or_taken_from_the_idempotency_key(world: World) -> None:
    # Pinned to a reference time, a retrieval is a pure function of request and memory: asked again it
    # answers the same, receipt id included. Unpinned, the reference time is the clock: one id per call.
    body = {"query": "what do I drink", "owner_id": OWNERS[0], "reference_time": NOW.isoformat()}
    first = world.retrieve("admin-alpha", body)
    again = world.retrieve("admin-alpha", body)
    other_owner = world.retrieve("admin-alpha", {**body, "owner_id": OWNERS[1]})
    assert first == again and first["receipt_id"] != other_owner["receipt_id"]
    unpinned = [world.retrieve("admin-alpha", {"query": "what do I drink", "owner_id": OWNERS[0]})["receipt_id"]
                for _ in range(2)]
    assert len({*unpinned, first["receipt_id"]}) == 3
    _receipt(world, first["receipt_id"])
    assert world.rows(
        "SELECT count() FROM {table} FINAL WHERE request_id = {r:String}", r=first["receipt_id"]
    ) == [(1,)]

    chosen = str(uuid.uuid4())
    keyed = world.retrieve("admin-alpha", body, **{"Idempotency-Key": chosen})
    # The caller's UUID, scoped to the caller: another key sending the same one gets its own receipt.
    assert keyed["receipt_id"] == chosen_receipt_id(TENANTS[0], "admin-alpha", chosen)
    assert _receipt(world, keyed["receipt_id"]).query == body["query"]
    by_other = world.retrieve("o1-only", body, **{"Idempotency-Key": chosen})
    assert by_other["receipt_id"] == chosen_receipt_id(TENANTS[0], "o1-only", chosen) != keyed["receipt_id"]
    # A key that is not a UUID never fails the retrieval; the id is derived instead.
    loose = world.retrieve("admin-alpha", body, **{"Idempotency-Key": "not-a-uuid"})
    assert loose["receipt_id"] == first["receipt_id"]


def test_the_stored_query_never_holds_a_secret_the_query_had(world: World) -> None:
    query = f"my api key is {SECRETS[0]} and aws {SECRETS[1]}, where do I live"
    resp = world.retrieve("admin-alpha", {"query": query, "owner_id": OWNERS[0]})
    receipt = _receipt(world, resp["receipt_id"])
    for secret in SECRETS:
        assert secret not in receipt.query
        assert world.rows(
            "SELECT count() FROM {table} WHERE position(query, {s:String}) > 0", s=secret
        ) == [(0,)]
    assert "where do I live" in receipt.query and "REDACTED" in receipt.query


def test_the_receipt_endpoint_enforces_tenant_owner_and_permission(world: World) -> None:
    resp = world.retrieve("admin-alpha", {"query": "where do I live", "owner_id": OWNERS[0]})
    rid = resp["receipt_id"]
    _receipt(world, rid)
    unknown = world.client.get(f"/v1/retrievals/{uuid.uuid4()}", headers=world.keys.auth("admin-alpha"))
    denied = [
        world.client.get(f"/v1/retrievals/{rid}", headers=world.keys.auth(k)) for k in ("admin-beta", "o2-only")
    ]
    garbage = world.client.get("/v1/retrievals/not-a-receipt", headers=world.keys.auth("admin-alpha"))
    for r in (unknown, *denied, garbage):
        assert r.status_code == 404, r.text
        assert r.json()["error"]["code"] == "retrieval_not_found"
        assert rid not in r.text and OWNERS[0] not in r.text
    # Another tenant's answer is indistinguishable from an id that never existed.
    assert denied[0].json() == unknown.json()
    assert world.client.get(f"/v1/retrievals/{rid}", headers=world.keys.auth("o1-only")).status_code == 200
    no_read = world.client.get(f"/v1/retrievals/{rid}", headers=world.keys.auth("write-only"))
    assert no_read.status_code == 403
    assert world.client.get(f"/v1/retrievals/{rid}").status_code == 401


def test_the_typed_client_reads_receipts(world: World) -> None:
    client = EpistreamClient("http://test", world.keys.tokens["admin-alpha"], http_client=world.client)
    chosen = uuid.uuid4()
    answer = client.retrieve("what do I drink", owner_id=OWNERS[0], idempotency_key=chosen)
    assert answer.receipt_id == chosen_receipt_id(TENANTS[0], "admin-alpha", str(chosen))
    world.writer.flush()
    receipt = client.retrieval(answer.receipt_id)
    assert [i.node_id for i in receipt.included] == [i.node_id for i in answer.items]
    beta = EpistreamClient("http://test", world.keys.tokens["admin-beta"], http_client=world.client)
    with pytest.raises(NotFound) as err:
        beta.retrieval(answer.receipt_id)
    assert err.value.code == "retrieval_not_found"


def test_receipts_off_write_nothing(world: World) -> None:
    settings = world.runner.settings.model_copy(update={"retrieval_receipts": False})
    app = create_app(world.runner, api_keys=world.keys.ring(), settings=settings, clock=lambda: NOW)
    query = f"receipts-off probe {uuid.uuid4().hex}"
    with TestClient(app) as client:
        assert app.state.api.receipts is None
        r = client.post("/v1/retrieve", json={"query": query, "owner_id": OWNERS[0]},
                        headers=world.keys.auth("admin-alpha"))
        assert r.status_code == 200 and r.json()["receipt_id"] is None
    world.writer.flush()
    assert world.rows("SELECT count() FROM {table} WHERE query = {q:String}", q=query) == [(0,)]


def _gated_sink(log: OperationLog, gate: threading.Event, entered: threading.Event) -> Any:
    def sink(batch: Sequence[RetrievalReceipt]) -> object:
        entered.set()
        assert gate.wait(30)
        return log.write_retrievals(batch)

    return sink


def test_a_full_queue_drops_and_counts_instead_of_blocking(world: World) -> None:
    """Queue of one; the writer is held inside its (real) insert: the third receipt has nowhere to go."""
    own = world.runner.log.clone()
    release, entered = threading.Event(), threading.Event()
    app = create_app(world.runner, api_keys=world.keys.ring(), settings=world.runner.settings, clock=lambda: NOW,
                     receipt_queue_size=1, receipt_sink=_gated_sink(own, release, entered))
    try:
        with TestClient(app) as client:
            try:
                _fill_and_overflow(world, app, client, release, entered)
            finally:
                release.set()  # never leave the writer held past the app's shutdown
    finally:
        own.close()


def _fill_and_overflow(
    world: World, app: Any, client: TestClient, release: threading.Event, entered: threading.Event
) -> None:
    writer = app.state.api.receipts
    auth = world.keys.auth("admin-alpha")

    def ask(word: str) -> dict[str, Any]:
        r = client.post("/v1/retrieve", json={"query": f"full queue {word}", "owner_id": OWNERS[0]}, headers=auth)
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()
        return out

    taken = ask("one")
    assert entered.wait(10)  # the writer holds receipt one inside its insert
    queued = ask("two")  # fills the queue of one
    dropped = ask("three")  # answered all the same; its receipt has nowhere to go
    assert taken["receipt_id"] and queued["receipt_id"]
    assert dropped["receipt_id"] is None and dropped["items"]
    assert writer.dropped == 1 and writer.queued == 1
    metrics = client.get("/metrics", headers=auth).text
    assert 'epistream_retrieval_receipts_dropped_total{reason="queue_full"} 1.0' in metrics
    release.set()
    assert writer.flush()
    stored = world.rows("SELECT query FROM {table} FINAL WHERE query LIKE 'full queue %' ORDER BY query")
    assert stored == [("full queue one",), ("full queue two",)]
    assert 'epistream_retrieval_receipts_written_total 2.0' in client.get("/metrics", headers=auth).text


def test_a_failing_backend_is_retried_then_counted_never_raised(world: World) -> None:
    own = world.runner.log.clone()
    missing = OperationLog(own.client, f"absent_{uuid.uuid4().hex[:8]}")  # a real insert into no such table
    app = create_app(world.runner, api_keys=world.keys.ring(), settings=world.runner.settings, clock=lambda: NOW,
                     receipt_sink=missing.write_retrievals)
    try:
        with TestClient(app) as client:
            r = client.post("/v1/retrieve", json={"query": "where do I live", "owner_id": OWNERS[0]},
                            headers=world.keys.auth("admin-alpha"))
            assert r.status_code == 200 and r.json()["items"]
            writer = app.state.api.receipts
            assert writer.flush(timeout_s=20)
            assert (writer.dropped, writer.written) == (1, 0)
            metrics = client.get("/metrics", headers=world.keys.auth("admin-alpha")).text
            assert 'epistream_retrieval_receipts_dropped_total{reason="write_failed"} 1.0' in metrics
    finally:
        own.close()


def test_shutdown_flushes_what_is_queued(world: World) -> None:
    query = f"flushed at shutdown {uuid.uuid4().hex}"
    app = create_app(world.runner, api_keys=world.keys.ring(), settings=world.runner.settings, clock=lambda: NOW)
    with TestClient(app) as client:
        r = client.post("/v1/retrieve", json={"query": query, "owner_id": OWNERS[0]},
                        headers=world.keys.auth("admin-alpha"))
        assert r.status_code == 200
    # No flush() here: leaving the app (its lifespan) must have written it.
    assert world.rows("SELECT count() FROM {table} FINAL WHERE query = {q:String}", q=query) == [(1,)]


# ----------------------------------------------------------------------------- the CLI


def test_cli_query_records_a_receipt_the_sql_command_can_read(
    chdb_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = f"cli_receipts_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    data = tmp_path / "cli"
    settings = settings_for(data)
    log = OperationLog.connect(None, path=chdb_path, database=database)
    with EmbeddedRunner(data, settings, embedder=HashEmbedder(), log=log) as runner:
        from schemas.events import validate_event

        runner.ingest_events([
            validate_event({**e, "tenant_id": TENANTS[0], "received_at": NOW.isoformat()})
            for e in corpus_events(TENANTS[0], OWNERS[0])
        ])
    original = OperationLog.connect

    def connect(url: str | None = None, *, path: Any = None, database: str = "epistream",
                run_migrations: bool = True) -> OperationLog:
        return original(url, path=chdb_path, database=log.database, run_migrations=run_migrations)

    monkeypatch.setattr(OperationLog, "connect", connect)
    env = {"EPISTREAM_EMBEDDER": "hash", "EPISTREAM_CLICKHOUSE_URL": None, "EPISTREAM_API_MODE": None}
    secret = SECRETS[1]
    try:
        out = CliRunner().invoke(
            cli_app,
            ["query", f"where do I live {secret}", "--tenant", TENANTS[0], "--owner", OWNERS[0],
             "--data-dir", str(data), "--json"],
            env=env, catch_exceptions=False,
        )
        assert out.exit_code == 0, out.output
        answer = json.loads(out.stdout)
        assert answer["items"] and answer["receipt_id"]
        receipt = log.get_retrieval(TENANTS[0], answer["receipt_id"])
        assert receipt is not None and receipt.actor_id == "cli"
        assert [i.node_id for i in receipt.included] == [i["node_id"] for i in answer["items"]]
        assert secret not in receipt.query
        sql = CliRunner().invoke(
            cli_app,
            ["sql", "SELECT actor_id, length(included) FROM retrieval_requests FINAL", "--data-dir", str(data),
             "--json"],
            env=env, catch_exceptions=False,
        )
        assert sql.exit_code == 0, sql.output
        assert json.loads(sql.stdout)["rows"] == [["cli", len(answer["items"])]]

        off = CliRunner().invoke(
            cli_app,
            ["query", "what do I drink", "--tenant", TENANTS[0], "--owner", OWNERS[0], "--data-dir", str(data),
             "--json"],
            env={**env, "EPISTREAM_RETRIEVAL_RECEIPTS": "false"}, catch_exceptions=False,
        )
        assert off.exit_code == 0, off.output
        assert json.loads(off.stdout)["receipt_id"] is None
        assert log.count(RECEIPTS_TABLE) == 1
    finally:
        log.close()


# ----------------------------------------------------------------------------- the schema


def test_migration_3_adds_the_receipts_table_to_a_version_2_log(chdb_path: Path, chdb_database: str) -> None:
    with OperationLog.connect(path=chdb_path, database=chdb_database, run_migrations=False) as log:
        assert migrate(log.client, log.database, MIGRATIONS[:2]) == [1, 2]
        assert schema_version(log.client, log.database) == 2

        def tables() -> set[str]:
            rows = log.client.query("SELECT name FROM system.tables WHERE database = {db:String}",
                                    parameters={"db": log.database}).result_rows
            return {r[0] for r in rows}

        assert RECEIPTS_TABLE not in tables()
        assert log.migrate() == [m.id for m in MIGRATIONS[2:]]
        assert log.migrate() == []
        assert schema_version(log.client, log.database) == MIGRATIONS[-1].id and RECEIPTS_TABLE in tables()
        engine, partition, sorting = log.client.query(
            "SELECT engine, partition_key, sorting_key FROM system.tables WHERE database = {db:String}"
            " AND name = {t:String}", parameters={"db": log.database, "t": RECEIPTS_TABLE},
        ).result_rows[0]
        assert engine == "ReplacingMergeTree" and partition == "toYYYYMM(received_at)"
        assert [k.strip() for k in sorting.split(",")] == ["tenant_id", "owner_id", "received_at", "request_id"]

        receipt = _sample_receipt()
        log.write_retrievals([receipt])
        log.write_retrievals([receipt])  # a retried batch
        log.write_retrievals([receipt, receipt.model_copy(update={"receipt_id": str(uuid.uuid4())})])
        assert log.count(RECEIPTS_TABLE) == 2
        assert log.get_retrieval(receipt.tenant_id, receipt.receipt_id) == receipt
        assert log.get_retrieval("someone-else", receipt.receipt_id) is None
        assert log.count("operations") == 0


def _sample_receipt() -> RetrievalReceipt:
    from schemas.enums import Scope
    from schemas.retrieval import Exclusion, Intent, ReceiptItem, RetrievalMode

    request = RetrievalRequest(query="q", tenant_id="t1", owner_id="alice")
    return RetrievalReceipt(
        receipt_id=str(uuid.uuid4()), tenant_id=request.tenant_id, owner_id=request.owner_id,
        scope=Scope("project"), scope_id="apollo", actor_id="bot", mode=RetrievalMode.EXPLICIT,
        query_intent=Intent.TEMPORAL, query="where [REDACTED:api_key]", reference_time=NOW, received_at=NOW,
        candidates_generated=5, candidates_after_filter=3,
        included=(ReceiptItem(node_id="n1", version=4, score=0.5, in_context=True),
                  ReceiptItem(node_id="n2", version=1, score=0.25, in_context=False)),
        excluded=(Exclusion(node_id="n3", reason="epistemic_filtered:HYPOTHETICAL", stage="policy", included=True),
                  Exclusion(node_id="n2", reason="BUDGET_EXHAUSTED", stage="packing")),
        tokens_used=40, token_budget=60, embedding_model="hash", embedding_version="1", embedding_mismatch=True,
        warnings=("EMBEDDING_VERSION_MISMATCH",), context_sha256="0" * 64, request_fingerprint="f" * 64,
    )  # fmt: skip
