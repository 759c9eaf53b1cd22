"""Smoke test of the local integration services (deploy/local/services.py).

Real Kafka (KRaft 4.0.2) and real OpenSearch 2.19.6 + k-NN. These tests FAIL (never skip)
when the services cannot be started or reached: ensure_up() raises, and so does a missing
aiokafka import.

Run:  deploy/local/services up && pytest -m integration tests/integration/test_services_smoke.py
(without `up` first, ensure_up() starts the JVMs itself and stops them at interpreter exit).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

pytestmark = pytest.mark.integration

_SERVICES_PY = Path(__file__).resolve().parents[2] / "deploy" / "local" / "services.py"


def _load_services():
    name = "epistream_local_services"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, _SERVICES_PY)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def services():
    svc = _load_services()
    info = svc.ensure_up()  # raises ServiceError -> test error, not skip
    return svc, info


# --------------------------------------------------------------------------- Kafka


async def _kafka_round_trip(bootstrap: str) -> dict:
    topic = f"it-smoke-{uuid.uuid4().hex[:10]}"
    group = f"it-group-{uuid.uuid4().hex[:10]}"
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=1)])
    finally:
        await admin.close()

    # idempotent producer
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, enable_idempotence=True, acks="all")
    await producer.start()
    try:
        md = await producer.send_and_wait(topic, b"hello", key=b"k1")
    finally:
        await producer.stop()

    # consumer group + explicit commit
    consumer = AIOKafkaConsumer(
        topic, bootstrap_servers=bootstrap, group_id=group, auto_offset_reset="earliest", enable_auto_commit=False
    )
    await consumer.start()
    try:
        msg = await asyncio.wait_for(consumer.getone(), timeout=30)
        tp = TopicPartition(topic, msg.partition)
        await consumer.commit({tp: msg.offset + 1})
        committed = await consumer.committed(tp)
    finally:
        await consumer.stop()

    # transactions: one committed, one aborted; read_committed must see only the first
    txp = AIOKafkaProducer(bootstrap_servers=bootstrap, transactional_id=f"tx-{topic}")
    await txp.start()
    try:
        async with txp.transaction():
            await txp.send(topic, b"tx-committed", key=b"k1")
            await txp.send_offsets_to_transaction({tp: msg.offset + 1}, group)
        await txp.begin_transaction()
        await txp.send(topic, b"tx-aborted", key=b"k1")
        await txp.abort_transaction()
    finally:
        await txp.stop()

    reader = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=None,
        auto_offset_reset="earliest",
        isolation_level="read_committed",
    )
    await reader.start()
    seen = []
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 20
        while b"tx-committed" not in seen and loop.time() < deadline:
            batch = await reader.getmany(timeout_ms=500)
            for msgs in batch.values():
                seen.extend(m.value for m in msgs)
        for _ in range(3):  # drain a little more: the aborted record must never show up
            batch = await reader.getmany(timeout_ms=300)
            for msgs in batch.values():
                seen.extend(m.value for m in msgs)
    finally:
        await reader.stop()
    return {
        "partition": md.partition,
        "consumed": msg.value,
        "committed": committed,
        "expected_committed": msg.offset + 1,
        "seen": seen,
    }


def test_kafka_round_trip(services):
    svc, _info = services
    r = asyncio.run(_kafka_round_trip(svc.kafka_bootstrap()))
    assert r["consumed"] == b"hello"
    assert r["committed"] == r["expected_committed"]
    assert b"hello" in r["seen"]
    assert b"tx-committed" in r["seen"]
    assert b"tx-aborted" not in r["seen"]


def test_up_means_consumer_groups_work(services):
    """'UP' is only reported once a group coordinator answers (a worker started right after needs one)."""
    svc, _info = services
    ok, detail = svc.kafka_healthy()
    assert ok and "group coordinator ok" in detail
    assert svc.kafka_group_coordinator() == 0
    # a port where nothing listens is refused, not reported healthy
    ok, _detail = svc.kafka_healthy("127.0.0.1:1")
    assert not ok


# --------------------------------------------------------------------------- OpenSearch


def _req(method: str, url: str, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def test_opensearch_knn_bm25_and_external_versioning(services):
    svc, _info = services
    base = svc.opensearch_url()
    assert svc.knn_available(), "k-NN plugin not loaded (_plugins/_knn/stats != 200)"
    index = f"it-smoke-{uuid.uuid4().hex[:10]}"
    code, body = _req(
        "PUT",
        f"{base}/{index}",
        {
            "settings": {"index": {"knn": True, "number_of_shards": 1, "number_of_replicas": 0}},
            "mappings": {
                "properties": {
                    "text": {"type": "text"},
                    "tenant": {"type": "keyword"},
                    # engine MUST be lucene: the Maven k-NN zip ships no faiss/nmslib natives
                    "v": {
                        "type": "knn_vector",
                        "dimension": 3,
                        "method": {
                            "name": "hnsw",
                            "engine": "lucene",
                            "space_type": "cosinesimil",
                            "parameters": {"m": 16, "ef_construction": 100},
                        },
                    },
                }
            },
        },
    )
    assert code == 200, body
    try:
        docs = {
            "1": {"text": "the quick brown fox jumps", "tenant": "a", "v": [1.0, 0.0, 0.0]},
            "2": {"text": "a lazy dog sleeps all day", "tenant": "b", "v": [0.9, 0.1, 0.0]},
            "3": {"text": "foxes and dogs are friends", "tenant": "b", "v": [0.0, 1.0, 0.0]},
        }
        for doc_id, doc in docs.items():
            code, body = _req("PUT", f"{base}/{index}/_doc/{doc_id}?version=1&version_type=external", doc)
            assert code == 201, body
        code, body = _req("POST", f"{base}/{index}/_refresh")
        assert code == 200, body

        # k-NN with an efficient (Lucene) filter: nearest to [1,0,0] inside tenant b is doc 2
        code, body = _req(
            "POST",
            f"{base}/{index}/_search",
            {
                "size": 3,
                "query": {"knn": {"v": {"vector": [1.0, 0.0, 0.0], "k": 3, "filter": {"term": {"tenant": "b"}}}}},
            },
        )
        assert code == 200, body
        ids = [h["_id"] for h in body["hits"]["hits"]]
        assert ids and ids[0] == "2" and "1" not in ids, ids

        # unfiltered k-NN: doc 1 is the exact match
        code, body = _req(
            "POST", f"{base}/{index}/_search", {"query": {"knn": {"v": {"vector": [1.0, 0.0, 0.0], "k": 1}}}}
        )
        assert code == 200, body
        assert body["hits"]["hits"][0]["_id"] == "1"

        # BM25
        code, body = _req("POST", f"{base}/{index}/_search", {"query": {"match": {"text": "fox"}}})
        assert code == 200, body
        assert [h["_id"] for h in body["hits"]["hits"]] == ["1"]

        # external versioning: newer wins, stale write -> 409
        code, body = _req(
            "PUT", f"{base}/{index}/_doc/1?version=5&version_type=external", {**docs["1"], "text": "version five"}
        )
        assert code in (200, 201) and body["_version"] == 5, body
        code, body = _req(
            "PUT", f"{base}/{index}/_doc/1?version=4&version_type=external", {**docs["1"], "text": "stale version four"}
        )
        assert code == 409, body
        assert body["error"]["type"] == "version_conflict_engine_exception"
        code, body = _req("GET", f"{base}/{index}/_doc/1")
        assert code == 200 and body["_version"] == 5 and body["_source"]["text"] == "version five"
    finally:
        _req("DELETE", f"{base}/{index}")
