"""Erasure on request through the real embedded pipeline (chDB + tantivy/usearch): after it, nothing of
the erased person is readable anywhere, the log still verifies and replays, and the others are unchanged."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from epistream.cli.demo import REFERENCE_TIME, demo_lines
from epistream.runner import EmbeddedRunner
from schemas.erasure import ErasureScope
from schemas.retrieval import RetrievalMode, RetrievalRequest

pytestmark = pytest.mark.integration

#: Words that occur nowhere but in alice's messages (and one dead letter of hers).
MARKERS = ("Quorvexhaven", "Zimbrelkast", "Plonthwaite")


def _line(event_id: str, owner: str, content: str, minute: int, conversation: str = "conv-x") -> bytes:
    return json.dumps({
        "event_id": event_id, "tenant_id": "acme", "owner_id": owner, "scope": "personal", "role": "user",
        "content": content, "occurred_at": f"2026-09-03T10:{minute:02d}:00Z", "session_id": "sx",
        "conversation_id": conversation,
    }).encode()  # fmt: skip


def _lines() -> list[bytes]:
    return [
        *demo_lines(),
        _line("m-a-1", "alice", "I live in Quorvexhaven.", 1),
        _line("m-a-2", "alice", "My favourite band is Zimbrelkast.", 2),
        _line("m-a-3", "alice", "I work at Plonthwaite Logistics.", 3, conversation="conv-y"),
        _line("m-b-1", "bob", "I live in Lisbon.", 4),
        # refused input of alice's (broken JSON): kept as a dead letter, and erased with her
        b'{"event_id": "m-a-bad", "tenant_id": "acme", "owner_id": "alice", "content": "Quorvexhaven again',
    ]


def _ask(runner: EmbeddedRunner, owner: str, query: str) -> list[str]:
    request = RetrievalRequest(tenant_id="acme", owner_id=owner, query=query, mode=RetrievalMode.EXPLICIT,
                               reference_time=REFERENCE_TIME, limit=20)  # fmt: skip
    return [f"{item.kind}:{item.node_id}" for item in runner.retrieve(request).items]


def _text_of_every_table(runner: EmbeddedRunner) -> str:
    """Every row of every table of the log's database, as ClickHouse prints it (decompressed)."""
    log = runner.log
    tables = [r[0] for r in log.client.query(
        "SELECT name FROM system.tables WHERE database = {db:String}", parameters={"db": log.database}
    ).result_rows]  # fmt: skip
    assert {"raw_events", "operations", "node_snapshots", "data_keys", "erasures"} <= set(tables)
    return "\n".join(
        str(log.client.query(f"SELECT * FROM {log.database}.{t}").result_rows) for t in sorted(tables)
    )


def _files_holding(roots: list[Path], needles: tuple[str, ...]) -> list[str]:
    """Files whose bytes hold a needle; a scan that saw a file vanish (a background merge renaming
    its temporary part into place) starts over, so every byte on disk at the end has been read."""
    for _ in range(20):
        found: list[str] = []
        vanished = False
        for root in roots:
            for path in sorted(p for p in root.rglob("*") if p.is_file()):
                try:
                    data = path.read_bytes()
                except FileNotFoundError:
                    vanished = True
                    continue
                found += [f"{path}: {n}" for n in needles if n.encode() in data or n.lower().encode() in data]
        if not vanished:
            return found
        time.sleep(0.2)
    raise AssertionError("the data directory kept changing under twenty scans")


@pytest.fixture
def world(embedded_runners: Callable[..., EmbeddedRunner]) -> EmbeddedRunner:
    runner = embedded_runners("erase")
    report = runner.ingest_lines(_lines(), source="test")
    assert report.dead_letters == 1
    return runner


def test_an_owner_erasure_leaves_nothing_of_theirs_and_the_log_still_replays(world: EmbeddedRunner,
                                                                             chdb_path: Path) -> None:  # fmt: skip
    runner = world
    alice_nodes = [n.node_id for n in runner.store.owner_nodes("acme", "alice")]
    lives = next(n for n in runner.store.owner_nodes("acme", "alice") if n.object == "Quorvexhaven")
    before = runner.assertion(tenant_id="acme", owner_id="alice", subject=lives.subject, predicate=lives.predicate,
                              valid_at=REFERENCE_TIME)  # fmt: skip
    assert before.matched_records == 5 and runner.world(tenant_id="acme", owner_id="alice").facts
    assert len(alice_nodes) >= 3 and _ask(runner, "alice", "where do I live Quorvexhaven")
    bob_before = _ask(runner, "bob", "where do I live")
    bob_nodes = sorted(n.model_dump_json() for n in runner.store.owner_nodes("acme", "bob"))
    assert bob_before and bob_nodes
    # the index files hold the words before: the file scan below can see them
    assert _files_holding([runner.data_dir], MARKERS)

    receipt = runner.erase(ErasureScope(tenant_id="acme", kind="owner", owner_id="alice"), requested_by="dpo")

    assert receipt.verification == {"replay_differences": 0, "remaining": 0, "passed": True}
    assert receipt.counts["log:nodes"] == len(alice_nodes)
    assert receipt.counts["table:raw_events"] == 25  # the demo's 22 messages of alice + 3 here
    assert receipt.counts["table:dead_letters"] == 1 and receipt.counts["data_keys"] >= 25
    assert sorted(receipt.erased_ids["nodes"]) == sorted(alice_nodes)
    assert not any(m in receipt.model_dump_json() for m in MARKERS)
    # no stored byte, through SQL or on disk, holds her words
    text = _text_of_every_table(runner)
    assert [m for m in MARKERS if m in text or m.lower() in text] == []
    assert _files_holding([runner.data_dir, chdb_path], MARKERS) == []
    assert runner.log.keys.key_ids("acme", "alice") == []
    # retrieval, world view, provenance and assertion state return nothing of hers
    assert _ask(runner, "alice", "where do I live Quorvexhaven") == []
    view = runner.world(tenant_id="acme", owner_id="alice")
    assert (view.facts, view.conflicts, view.proposals, view.stale) == ((), (), (), ())
    assert [runner.provenance(n, tenant_id="acme", owner_id="alice") for n in alice_nodes] == [None] * len(alice_nodes)
    after = runner.assertion(tenant_id="acme", owner_id="alice", subject=lives.subject, predicate=lives.predicate,
                             valid_at=REFERENCE_TIME)  # fmt: skip
    assert (after.scanned_nodes, after.matched_records, after.timeline) == (0, 0, ())
    # the others are unchanged
    assert _ask(runner, "bob", "where do I live") == bob_before
    assert sorted(n.model_dump_json() for n in runner.store.owner_nodes("acme", "bob")) == bob_nodes
    # the log verifies and replays to this state, after a restart too
    assert runner.verify_replay() == []
    ops = runner.log.read_operations()
    erased = [op for op in ops if op.op_type.value == "ERASED"]
    assert len(erased) == 1 and erased[0].payload["counts"]["nodes"] == len(alice_nodes)
    # a repeated request is a no-op with the same receipt
    again = runner.erase(ErasureScope(tenant_id="acme", kind="owner", owner_id="alice"), requested_by="dpo")
    assert again.repeated and again.model_copy(update={"repeated": False}) == receipt
    assert len(runner.log.read_operations()) == len(ops)


def test_an_event_erasure_strips_the_reference_from_a_claim_that_survives(world: EmbeddedRunner) -> None:
    runner = world
    from schemas import ActorRef, ActorType
    from schemas.commands import ReinforceCommand

    lives = next(n for n in runner.store.owner_nodes("acme", "alice") if (n.object or "") == "Quorvexhaven")
    band = next(n for n in runner.store.owner_nodes("acme", "alice") if "Zimbrelkast" in (n.object or ""))
    runner.submit(ReinforceCommand(
        tenant_id="acme", owner_id="alice", scope="personal", command_id="r-1", node_id=band.node_id,
        actor=ActorRef(actor_id="alice", actor_type=ActorType.HUMAN_USER),
        issued_at=REFERENCE_TIME - timedelta(days=1), evidence_ids=("m-a-1",),
    ))  # fmt: skip
    receipt = runner.erase(ErasureScope(tenant_id="acme", kind="event", owner_id="alice", event_id="m-a-1"),
                           requested_by="dpo")  # fmt: skip
    assert receipt.verification == {"replay_differences": 0, "remaining": 0, "passed": True}
    assert receipt.erased_ids["nodes"] == [lives.node_id] and receipt.erased_ids["events"] == ["alice/m-a-1"]
    assert runner.store.get_node(lives.node_id) is None
    kept = runner.store.get_node(band.node_id)
    assert kept is not None and "m-a-1" not in kept.evidence_refs and kept.erased_evidence_refs == ("m-a-1",)
    provenance: Any = runner.provenance(band.node_id, tenant_id="acme", owner_id="alice")
    assert provenance is not None and "m-a-1" in json.dumps(provenance.model_dump(mode="json"))
    assert runner.log.get_events(["m-a-1", "m-a-2"], "acme", "alice")[0].event_id == "m-a-2"
    text = _text_of_every_table(runner)
    assert "in Quorvexhaven" not in text and runner.verify_replay() == []  # (her dead letter is no part of m-a-1)
    assert _ask(runner, "alice", "Zimbrelkast band") != []


def test_the_api_erases_for_admin_keys_only_and_a_retry_returns_the_same_receipt(
    embedded_runners: Callable[..., EmbeddedRunner],
) -> None:
    from fastapi.testclient import TestClient

    from epistream.api import Permission, create_app
    from tests.integration.test_api_support import Keys

    runner = embedded_runners("api", retrieval_receipts=True)
    runner.ingest_lines(_lines(), source="test")
    keys = Keys()
    keys.add("admin", "acme")
    keys.add("writer", "acme", permissions=frozenset({Permission.READ, Permission.WRITE}))
    app = create_app(runner, api_keys=keys.ring(), settings=runner.settings, clock=lambda: REFERENCE_TIME)
    with TestClient(app) as client:
        asked = client.post("/v1/retrieve", json={"query": "Quorvexhaven", "owner_id": "alice"},
                            headers=keys.auth("admin"))  # fmt: skip
        assert asked.status_code == 200 and asked.json()["items"]
        refused = client.post("/v1/erasures", json={"owner_id": "alice"}, headers=keys.auth("writer"))
        assert refused.status_code == 403
        bad = client.post("/v1/erasures", json={"conversation_id": "conv-x"}, headers=keys.auth("admin"))
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_erasure_scope"
        request = {**keys.auth("admin"), "Idempotency-Key": "6f1c1d56-2b1a-4c1e-9a55-0d6c3c0b7a11"}
        first = client.post("/v1/erasures", json={"owner_id": "alice", "requested_by": "dpo-7"}, headers=request)
        assert first.status_code == 201, first.text
        receipt = first.json()
        assert receipt["requested_by"] == "dpo-7"
        assert receipt["verification"] == {"replay_differences": 0, "remaining": 0, "passed": True}
        assert receipt["counts"]["table:retrieval_requests"] == 1
        again = client.post("/v1/erasures", json={"owner_id": "alice"}, headers=request)
        assert again.status_code == 200 and {**again.json(), "repeated": False} == receipt
        other = client.post("/v1/erasures", json={"owner_id": "bob"}, headers=request)  # the same key, another scope
        assert other.status_code == 409 and other.json()["error"]["code"] == "request_id_conflict"
        assert runner.store.owner_nodes("acme", "bob")
        after = client.post("/v1/retrieve", json={"query": "Quorvexhaven", "owner_id": "alice"},
                            headers=keys.auth("admin"))  # fmt: skip
        assert after.status_code == 200 and after.json()["items"] == []
    assert [n.owner_id for n in runner.store.iter_nodes() if n.owner_id == "alice"] == []


def test_the_cli_erases_and_replay_verify_passes_afterwards(tmp_path: Path) -> None:
    from tests.integration.test_cli import cli

    data = tmp_path / "data"
    lines = tmp_path / "lines.jsonl"
    lines.write_bytes(b"\n".join(_lines()) + b"\n")
    cli(data, "ingest", str(lines), expect=0)
    receipt = cli(data, "erase", "--tenant", "acme", "--owner", "alice", "--event", "m-a-2", "--requested-by", "dpo")
    assert receipt["erased_ids"]["events"] == ["alice/m-a-2"] and receipt["verification"]["passed"] is True
    assert receipt["repeated"] is False and receipt["counts"]["table:raw_events"] == 1
    again = cli(data, "erase", "--tenant", "acme", "--owner", "alice", "--event", "m-a-2")
    assert again["repeated"] is True and again["erasure_id"] == receipt["erasure_id"]
    replayed = cli(data, "replay", "--verify")
    assert replayed["identical"] is True and replayed["index_drift"] == []
    found = cli(data, "query", "Zimbrelkast band", "--tenant", "acme", "--owner", "alice", "--mode", "explicit")
    assert found["items"] and "Zimbrelkast" not in json.dumps(found)  # other memories of hers, not this one
    wrong = cli(data, "erase", "--tenant", "acme", "--conversation", "conv-x", expect=2)
    assert wrong["error"]["code"] == "invalid_options"


def test_an_owner_erasure_purges_opensearch_documents_and_their_segments(
    tmp_path: Path, chdb_path: Path, chdb_database: str
) -> None:
    from opensearchpy import OpenSearch

    from schemas.search import SearchFilter
    from schemas.settings import Settings
    from sinks.clickhouse import OperationLog
    from sinks.embedding import HashEmbedder
    from sinks.opensearch_index import OpenSearchIndex
    from tests.integration.test_opensearch_support import drop_alias, load_services, unique_alias

    url = str(load_services().ensure_up()["opensearch"])
    alias = unique_alias("it-erase")
    data = tmp_path / "os"
    log = OperationLog.connect(None, path=chdb_path, database=chdb_database)
    settings = Settings(data_dir=data, opensearch_url=url, opensearch_index=alias)
    client = OpenSearch(hosts=[url], timeout=30)
    try:
        with EmbeddedRunner(data, settings, embedder=HashEmbedder(), log=log, clock=lambda: REFERENCE_TIME) as runner:
            runner.ingest_lines(_lines(), source="test")
            assert isinstance(runner.index, OpenSearchIndex)
            alice = SearchFilter(tenant_id="acme", owner_id="alice")
            bob = SearchFilter(tenant_id="acme", owner_id="bob")
            held = (runner.index.count(alice), runner.index.count(bob))
            assert held[0] >= 3 and held[1] >= 1
            bob_before = _ask(runner, "bob", "where do I live")
            # one event: the excerpt after it quoted it as context, and is written again without it
            hits = client.search(index=f"{alias}-excerpts", body={"query": {"match_all": {}}, "size": 1000})["hits"]
            quoting = sorted(h["_id"] for h in hits["hits"] if "Quorvexhaven." in json.dumps(h))
            assert len(quoting) == 3  # its own excerpt, and the next two quote it as context (two turns)
            one = runner.erase(ErasureScope(tenant_id="acme", kind="event", owner_id="alice", event_id="m-a-1"),
                               requested_by="dpo")  # fmt: skip
            assert one.verification["passed"] is True and one.counts["index:excerpts"] == 1
            said = json.dumps(client.search(index=f"{alias}-excerpts", body={"query": {"match_all": {}}, "size": 1000}))
            assert "Quorvexhaven." not in said and "Zimbrelkast" in said
            held = (runner.index.count(alice), runner.index.count(bob))
            receipt = runner.erase(ErasureScope(tenant_id="acme", kind="owner", owner_id="alice"),
                                   requested_by="dpo")  # fmt: skip
            assert receipt.verification == {"replay_differences": 0, "remaining": 0, "passed": True}
            assert receipt.counts["index:claims"] == held[0] and receipt.counts["index:excerpts"] == 24
            assert runner.index.count(alice) == 0 and runner.index.count(bob) == held[1]
            assert runner.excerpts.count(alice) == 0
            assert _ask(runner, "bob", "where do I live") == bob_before
            for name in (alias, f"{alias}-excerpts"):
                docs = client.search(index=name, body={"query": {"match_all": {}}, "size": 1000})
                text = json.dumps(docs)
                assert [m for m in MARKERS if m in text] == []
                segments = client.indices.stats(index=name, metric="docs")["_all"]["primaries"]["docs"]
                assert segments["deleted"] == 0  # merged away: no segment keeps an erased document
    finally:
        drop_alias(client, alias)
        drop_alias(client, f"{alias}-excerpts")
        client.close()
        log.close()


def test_a_speaker_erasure_reaches_every_owner_and_leaves_the_rest(
    embedded_runners: Callable[..., EmbeddedRunner],
) -> None:
    runner = embedded_runners("speaker")

    def said(event_id: str, owner: str, content: str, minute: int) -> bytes:
        return json.dumps({
            "event_id": event_id, "tenant_id": "acme", "owner_id": owner, "scope": "personal", "role": "participant",
            "speaker": "Carol Vantreskel", "speaker_id": "carol", "content": content,
            "occurred_at": f"2026-09-03T11:{minute:02d}:00Z", "session_id": "group", "conversation_id": "group-1",
        }).encode()  # fmt: skip

    runner.ingest_lines([
        said("g-a-1", "alice", "I live in Vexmandorf.", 1),
        said("g-b-1", "bob", "I work at Vexmandorf Mills.", 2),
        _line("g-b-2", "bob", "I live in Porto.", 3, conversation="group-1"),
    ], source="test")  # fmt: skip
    assert {n.owner_id for n in runner.store.iter_nodes() if n.asserted_by.actor_id == "carol"} == {"alice", "bob"}
    bob_own = sorted(n.node_id for n in runner.store.owner_nodes("acme", "bob") if n.asserted_by.actor_id != "carol")
    assert bob_own
    receipt = runner.erase(ErasureScope(tenant_id="acme", kind="speaker", speaker_id="carol"), requested_by="dpo")
    assert receipt.verification == {"replay_differences": 0, "remaining": 0, "passed": True}
    assert sorted(receipt.erased_ids["events"]) == ["alice/g-a-1", "bob/g-b-1"]
    assert [n for n in runner.store.iter_nodes() if n.asserted_by.actor_id == "carol"] == []
    assert sorted(n.node_id for n in runner.store.owner_nodes("acme", "bob")) == bob_own
    text = _text_of_every_table(runner)
    assert "Vexmandorf" not in text and "Vantreskel" not in text
    assert _files_holding([runner.data_dir], ("Vexmandorf", "Vantreskel")) == []
    assert [e.event_id for e in runner.log.get_events(["g-b-1", "g-b-2"], "acme", "bob")] == ["g-b-2"]
    assert runner.verify_replay() == []
