"""Per-partition state rebuilt from ``memory.operations`` on the real broker.

The materialize agent's state is the fold of the operation batches on its
partitions. Loading every assigned partition in one pass (``preload``) must give
exactly the stores that folding each partition's batches gives, and inputs that
arrive while it runs must see the loaded state rather than load it again.
Services missing => the tests FAIL (``ensure_up`` raises).
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from test_stream_pipeline import start_services

from engine.reducer import Reducer
from engine.store import InMemoryStateStore
from extractors.base import get_extractor
from schemas.events import ConversationEvent
from streams import agents
from streams import topics as tn
from streams.kafka_store import OpBatch, PartitionStates, fold

pytestmark = pytest.mark.integration

PARTITIONS = 4
T0 = datetime(2026, 2, 1, 9, 0, tzinfo=UTC)
TEXTS = ("I live in Porto.", "I drink oat milk.", "I don't eat fish.", "I moved to Braga from Porto.")


def batches_by_partition() -> dict[int, list[OpBatch]]:
    """Real operation batches for a few owners, spread over partitions by owner."""
    extractor, reducer = get_extractor("rules"), Reducer()
    stores: dict[int, InMemoryStateStore] = {}
    out: dict[int, list[OpBatch]] = {}
    for i in range(24):
        owner = f"u{i % 6}"
        partition = (i % 6) % PARTITIONS
        event = ConversationEvent(
            event_id=f"ks-{i}", tenant_id="t-ks", owner_id=owner, scope="personal", role="user",
            content=TEXTS[(i // 6) % len(TEXTS)], occurred_at=T0 + timedelta(minutes=i),
        )  # fmt: skip
        store = stores.setdefault(partition, InMemoryStateStore())
        result = agents.materialize(store, reducer, agents.extract(extractor, event))
        if result.operations:
            out.setdefault(partition, []).append(OpBatch(result.outcome.input_id, tuple(result.operations)))
    return out


async def publish(bootstrap: str, topic: str, by_partition: dict[int, list[OpBatch]]) -> None:
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        for partition, batches in by_partition.items():
            for batch in batches:
                await producer.send_and_wait(topic, batch.dumps(), key=b"t-ks", partition=partition)
    finally:
        await producer.stop()


def snapshot(store: InMemoryStateStore) -> dict[str, object]:
    return {n.node_id: n.model_dump(mode="json") for n in store.iter_nodes()}


def test_preload_rebuilds_every_assigned_partition_in_one_pass() -> None:
    bootstrap, _ = start_services()
    topics = tn.Topics(prefix=f"it-ks-{uuid.uuid4().hex[:8]}-", partitions=PARTITIONS)
    tn.ensure_topics(bootstrap, topics)
    expected = batches_by_partition()
    assert len(expected) >= 3 and sum(len(b) for b in expected.values()) >= 20

    async def scenario() -> None:
        await publish(bootstrap, topics.operations, expected)
        states = PartitionStates(bootstrap, topics.operations)
        try:
            states.assign(set(range(PARTITIONS)))
            states.preload_soon(range(PARTITIONS))
            # An input arriving while the preload runs waits for it instead of loading again.
            first = await states.get(0)
            assert states.loads == PARTITIONS, "one pass loaded all partitions, get() added no load"
            assert snapshot(first) == snapshot(fold(expected[0]))
            for partition in range(PARTITIONS):
                store = await states.get(partition)
                assert snapshot(store) == snapshot(fold(expected.get(partition, [])))
            assert states.loaded_batches == sum(len(b) for b in expected.values())
            assert states.loads == PARTITIONS
        finally:
            await states.close()

    asyncio.run(scenario())


def test_a_revocation_during_the_preload_keeps_nothing_for_the_lost_partitions() -> None:
    bootstrap, _ = start_services()
    topics = tn.Topics(prefix=f"it-ks-{uuid.uuid4().hex[:8]}-", partitions=PARTITIONS)
    tn.ensure_topics(bootstrap, topics)
    expected = batches_by_partition()

    async def scenario() -> None:
        await publish(bootstrap, topics.operations, expected)
        states = PartitionStates(bootstrap, topics.operations)
        try:
            states.assign(set(range(PARTITIONS)))
            preload = asyncio.ensure_future(states.preload(range(PARTITIONS)))
            await asyncio.sleep(0)  # the preload has started and holds the loading lock
            states.drop([1, 2])  # rebalance: another worker now writes for 1 and 2
            await preload
            assert not states.owns(1) and not states.owns(2)
            # Nothing from the overlapping load was kept; owned partitions load again on use.
            loads = states.loads
            store = await states.get(0)
            assert states.loads == loads + 1
            assert snapshot(store) == snapshot(fold(expected[0]))
        finally:
            await states.close()

    asyncio.run(scenario())


def test_mixed_record_forms_fold_and_invalidate_reloads_exactly_the_log() -> None:
    """v1 and v2 records fold alike; a store holding unpublished inputs is reloaded from the log."""
    bootstrap, _ = start_services()
    topics = tn.Topics(prefix=f"it-ks-{uuid.uuid4().hex[:8]}-", partitions=PARTITIONS)
    tn.ensure_topics(bootstrap, topics)
    expected = batches_by_partition()
    busiest = max(expected, key=lambda p: len(expected[p]))
    batches = expected[busiest]
    assert len(batches) >= 3

    async def scenario() -> None:
        from aiokafka import AIOKafkaProducer

        producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
        await producer.start()
        try:  # the first batch alone (v1), the rest together in one record (v2)
            for raw in (OpBatch.dumps_record(batches[:1]), OpBatch.dumps_record(batches[1:])):
                await producer.send_and_wait(topics.operations, raw, key=b"t-ks", partition=busiest)
        finally:
            await producer.stop()
        states = PartitionStates(bootstrap, topics.operations)
        try:
            store = await states.get(busiest)
            assert snapshot(store) == snapshot(fold(batches))
            assert states.loaded_batches == len(batches)
            # an input applied in memory but never published (what a skipped publish leaves behind)
            extra = InMemoryStateStore()
            fold(batches, extra)
            unpublished = next(iter(store.iter_nodes()))
            store.put_node(unpublished.model_copy(update={"version": unpublished.version + 1}))
            assert snapshot(store) != snapshot(extra)
            states.invalidate([busiest])
            reloaded = await states.get(busiest)
            assert reloaded is not store and states.owns(busiest)
            assert snapshot(reloaded) == snapshot(extra)
        finally:
            await states.close()

    asyncio.run(scenario())
