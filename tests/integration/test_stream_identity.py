"""Routing identity of the faust pipeline against the real broker, OpenSearch and chDB.

materialize is the single writer of an owner's state only because every input of one
``tenant/owner/scope`` reaches it on one partition. These tests break that from the outside:

* a producer that keys events or commands with something other than their own scope;
* topics that exist with another partition count than the deployment's.

Services missing => the tests FAIL (``ensure_up`` raises).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from test_stream_pipeline import Deployment, assert_matches, expected_state, sample_events, start_services

from extractors.secrets.admission import mask_bytes
from schemas.errors import EpistreamError
from schemas.settings import Settings
from streams import agents
from streams import topics as tn
from streams.faust_app import WorkerOptions, dlq_list, dlq_replay, prepare
from streams.publisher import PublishReport

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def services() -> tuple[str, str]:
    return start_services()


async def _send_keyed(bootstrap: str, topic: str, records: list[tuple[bytes | None, bytes]]) -> list[tuple[int, int]]:
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, enable_idempotence=True, acks="all")
    await producer.start()
    try:
        out = []
        for key, raw in records:
            md = await producer.send_and_wait(topic, raw, key=key)
            out.append((md.partition, md.offset))
        return out
    finally:
        await producer.stop()


def _event(event_id: str, owner: str, content: str) -> bytes:
    return json.dumps(
        {"event_id": event_id, "tenant_id": "t-key", "owner_id": owner, "scope": "personal", "role": "user",
         "content": content, "occurred_at": "2024-03-01T10:00:00Z", "received_at": "2024-03-01T10:00:01Z"}
    ).encode()  # fmt: skip


def test_inputs_keyed_for_another_scope_are_dead_lettered_and_can_be_redriven(
    services: tuple[str, str], tmp_path: Path
) -> None:
    dep = Deployment(*services, tmp_path)
    good = sample_events(n_labelled=30, n_pairs=0)
    report = dep.publish(good)
    assert report.ok
    _, good_nodes = expected_state(good, report)
    # A reinforce of a real node, keyed as another owner's: reduced on that owner's partition it
    # would be refused there (node not found) and its request answered on the wrong partition.
    node = next(iter(sorted(good_nodes.values(), key=lambda n: n["node_id"])))
    command = json.dumps(
        {"command": "reinforce", "command_id": "cmd-miskeyed", "tenant_id": node["tenant_id"],
         "owner_id": node["owner_id"], "scope": node["scope"], "node_id": node["node_id"],
         "issued_at": "2030-01-01T00:00:00Z", "actor": {"actor_id": "assistant-1", "actor_type": "AI_AGENT"}}
    ).encode()  # fmt: skip
    miskeyed = _event("k-1", "u1", "I'm vegetarian.")
    unkeyed = _event("k-2", "u2", "I live in Porto.")
    event_coords = asyncio.run(
        _send_keyed(dep.bootstrap, dep.topics.events, [(b"t-key/someone-else/personal", miskeyed), (None, unkeyed)])
    )
    [command_coord] = asyncio.run(
        _send_keyed(dep.bootstrap, dep.topics.commands, [(f"{node['tenant_id']}/other/personal".encode(), command)])
    )
    dep.start()
    try:
        dep.wait_idle(expect_events=len(good) + 2)
        letters = dlq_list(dep.bootstrap, dep.topics)
        # The operator re-drives the miskeyed event through the publisher, which keys it right.
        replay = dlq_replay([miskeyed], dep.bootstrap, dep.topics)
        assert replay.ok and replay.sent == 1
        dep.wait_idle(expect_events=len(good) + 3)
    finally:
        dep.stop()
    on_events = {(r.letter.partition, r.letter.offset): r.letter for r in letters if r.topic == dep.topics.events_dlq}
    assert set(on_events) == set(event_coords)
    # A keyless record is told apart from a miskeyed one (issue 27): nothing routed it at all.
    for coord, raw, code in zip(event_coords, (miskeyed, unkeyed), (agents.KEY_MISMATCH, agents.MISSING_KEY),
                                strict=True):  # fmt: skip
        letter = on_events[coord]
        assert (letter.reason_code, letter.masked_bytes) == (code, mask_bytes(raw))
        assert letter.source == dep.topics.events
    [on_commands] = [r.letter for r in letters if r.topic == dep.topics.commands_dlq]
    assert (on_commands.partition, on_commands.offset) == command_coord
    assert (on_commands.reason_code, on_commands.masked_bytes) == (agents.KEY_MISMATCH, mask_bytes(command))
    # Exactly the good events and the re-driven one made memory (the command changed nothing).
    ops, nodes = expected_state([*good, miskeyed], PublishReport(records=[*report.records, *replay.records]))
    got = dep.dump()
    assert_matches(dep, got, ops, nodes)
    assert sorted(d["reason_code"] for d in got["dead_letters"]) == [agents.MISSING_KEY, *[agents.KEY_MISMATCH] * 2]


async def _create(bootstrap: str, names: list[str], partitions: int) -> None:
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(n, num_partitions=partitions, replication_factor=1) for n in names])
    finally:
        await admin.close()


async def _existing(bootstrap: str, prefix: str) -> set[str]:
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        return {t for t in await admin.list_topics() if t.startswith(prefix)}
    finally:
        await admin.close()


def test_a_worker_refuses_topics_with_another_partition_count(services: tuple[str, str]) -> None:
    bootstrap = services[0]
    prefix = f"pc-{uuid.uuid4().hex[:8]}-"
    # conversation.events auto-created by a chat platform's producer with the broker default (1).
    asyncio.run(_create(bootstrap, [prefix + tn.EVENTS], 1))
    settings = Settings(kafka_bootstrap=bootstrap, partitions=4, kafka_startup_wait_s=0)
    with pytest.raises(EpistreamError) as caught:
        prepare(settings, WorkerOptions(topic_prefix=prefix))
    assert caught.value.code == "partition_count_mismatch"
    assert caught.value.details["found"] == {prefix + tn.EVENTS: 1}
    assert asyncio.run(_existing(bootstrap, prefix)) == {prefix + tn.EVENTS}  # nothing created beside it
    # A deployment created with 4 partitions, and a worker started with 2.
    full = tn.Topics(prefix=f"pc-{uuid.uuid4().hex[:8]}-", partitions=4)
    assert set(tn.ensure_topics(bootstrap, full)) == set(full.all())
    with pytest.raises(EpistreamError) as caught:
        tn.ensure_topics(bootstrap, tn.Topics(prefix=full.prefix, partitions=2))
    assert caught.value.code == "partition_count_mismatch"
    assert set(caught.value.details["found"]) == {full.name(t) for t in tn.CO_PARTITIONED}
    assert tn.ensure_topics(bootstrap, full) == []  # the matching count starts as before


def test_memory_operations_is_kept_for_good_and_an_expiring_one_is_reported(
    services: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    """Workers rebuild a partition's state by folding memory.operations from its start at every start."""
    bootstrap = services[0]
    fresh = f"rt-{uuid.uuid4().hex[:8]}-"
    prepare(Settings(kafka_bootstrap=bootstrap, partitions=2), WorkerOptions(topic_prefix=fresh))
    assert asyncio.run(_retention(bootstrap, fresh + tn.OPERATIONS)) == ("-1", "-1")
    # An operations topic someone created with the broker's default retention (7 days): the worker
    # starts (it does not alter an operator's topic) but says what will be lost and how to fix it.
    old = f"rt-{uuid.uuid4().hex[:8]}-"
    asyncio.run(_create(bootstrap, [old + tn.OPERATIONS], 2))
    for _ in range(50):  # the broker lists a new topic a moment after creating it
        if asyncio.run(_existing(bootstrap, old)):
            break
        time.sleep(0.1)
    with caplog.at_level("WARNING", logger="epistream.topics"):
        prepare(Settings(kafka_bootstrap=bootstrap, partitions=2), WorkerOptions(topic_prefix=old))
    [warning] = [r.getMessage() for r in caplog.records if r.name == "epistream.topics"]
    assert old + tn.OPERATIONS in warning and "retention.ms=-1" in warning


async def _retention(bootstrap: str, topic: str) -> tuple[str, str]:
    from aiokafka.admin import AIOKafkaAdminClient
    from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        for _ in range(50):  # a just-created topic's configs show up a moment later
            [response] = await admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic, None)])
            values = {e[0]: e[1] for resource in response.resources for e in resource[4]}
            if "retention.ms" in values:
                return values["retention.ms"], values["retention.bytes"]
            await asyncio.sleep(0.1)
    finally:
        await admin.close()
    raise AssertionError(f"no configs for {topic}")


def test_publish_and_dead_letter_listing_use_the_deployments_topic_prefix(services: tuple[str, str]) -> None:
    """EPISTREAM_KAFKA_TOPIC_PREFIX names the workers' topics; the CLI used the unprefixed ones."""
    import subprocess
    import sys

    from aiokafka import AIOKafkaConsumer

    bootstrap = services[0]
    prefix = f"px-{uuid.uuid4().hex[:8]}-"
    topics = tn.Topics(prefix=prefix, partitions=2)
    prepare(Settings(kafka_bootstrap=bootstrap, partitions=2), WorkerOptions(topic_prefix=prefix))
    env = {"PATH": "/usr/bin:/bin", "EPISTREAM_KAFKA_BOOTSTRAP": bootstrap, "EPISTREAM_KAFKA_TOPIC_PREFIX": prefix,
           "EPISTREAM_PARTITIONS": "2"}  # fmt: skip

    def cli(*args: str, stdin: bytes | None = None) -> Any:
        proc = subprocess.run([sys.executable, "-m", "epistream.cli", *args, "--json"], input=stdin,
                              capture_output=True, timeout=120, check=True, env=env)  # fmt: skip
        return json.loads(proc.stdout)

    assert cli("publish", "-", stdin=_event("px-1", "ana", "I live in Porto."))["sent"] == 1
    letter = agents.dead_letter(b"{", source=topics.events, partition=0, offset=7, reason_code="invalid_json",
                                message="", received_at=datetime(2026, 1, 1, tzinfo=UTC))  # fmt: skip
    asyncio.run(_send_letter(bootstrap, topics.events_dlq, letter))

    async def end_offsets() -> int:
        from aiokafka import TopicPartition

        consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap)
        await consumer.start()
        try:
            ends = await consumer.end_offsets([TopicPartition(topics.events, p) for p in range(2)])
        finally:
            await consumer.stop()
        return sum(ends.values())

    assert asyncio.run(end_offsets()) == 1  # the event went to the prefixed input topic
    [listed] = cli("dlq", "list")
    assert (listed["topic"], listed["source"]) == (topics.events_dlq, topics.events)
    assert listed["reason_code"] == "invalid_json"


async def _send_letter(bootstrap: str, topic: str, letter: Any) -> None:
    from aiokafka import AIOKafkaProducer

    from streams.faust_app import _headers

    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        await producer.send_and_wait(topic, letter.masked_bytes, headers=_headers(letter))
    finally:
        await producer.stop()
