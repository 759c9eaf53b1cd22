"""What operators ask of a deployment besides running it: lag, the dead letters, a stopped worker's state."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from schemas.records import DeadLetter
from sinks.clickhouse import OperationLog
from sinks.data_dir import DataDirLock
from streams import topics as tn
from streams.kafka_errors import kafka_client
from streams.lag import topic_lag
from streams.worker.dead_letters import letter_from_record


def consumer_lag(bootstrap: str, group: str, topic_names: Sequence[str]) -> dict[str, int]:
    """Uncommitted records per topic for a consumer group (what to monitor; tests wait for zero)."""
    return asyncio.run(topic_lag(bootstrap, group, topic_names))


@dataclass(frozen=True)
class DlqRecord:
    topic: str
    partition: int
    offset: int
    letter: DeadLetter


async def dlq_list_async(bootstrap: str, topics: tn.Topics, *, limit: int = 1000) -> list[DlqRecord]:
    """Dead letters on the DLQ topics, oldest first per partition (for ``epistream dlq list``)."""
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    out: list[DlqRecord] = []
    async with kafka_client(consumer, "reading the dead-letter topics"):
        tps: list[Any] = []
        for name in topics.dlqs:
            await consumer._client.force_metadata_update()
            tps.extend(TopicPartition(name, p) for p in sorted(consumer.partitions_for_topic(name) or ()))
        if not tps:
            return out
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        ends = await consumer.end_offsets(tps)
        remaining = {tp for tp in tps if ends[tp] > 0}
        while remaining and len(out) < limit:
            got = await consumer.getmany(*remaining, timeout_ms=1000)
            if not got:
                remaining = {tp for tp in remaining if await consumer.position(tp) < ends[tp]}
                continue
            for tp, msgs in got.items():
                for m in msgs:
                    if m.offset < ends[tp]:
                        out.append(DlqRecord(tp.topic, tp.partition, m.offset, letter_from_record(m.value, m.headers)))
                if await consumer.position(tp) >= ends[tp]:
                    remaining.discard(tp)
        return out[:limit]


def dlq_list(bootstrap: str, topics: tn.Topics, *, limit: int = 1000) -> list[DlqRecord]:
    return asyncio.run(dlq_list_async(bootstrap, topics, limit=limit))


def dlq_replay(lines: Iterable[bytes | str], bootstrap: str, topics: tn.Topics) -> Any:
    """Re-drive fixed events (e.g. edited from ``dlq list``) through the validating publisher.

    Events are validated first, so a still-broken line is reported, not looped
    back into the dead-letter queue; re-driving an already processed event id is
    a no-op downstream.
    """
    from streams.publisher import publish_lines

    return publish_lines(lines, bootstrap, topics.events)


def dump_state(data_dir: str | os.PathLike[str], database: str = "epistream") -> dict[str, Any]:
    """Operations, latest node snapshots and dead letters stored by a worker (run after it stopped)."""
    with DataDirLock(data_dir, owner="dump"), OperationLog.connect(None, path=data_dir, database=database) as log_:
        ops = list(log_.iter_operations())
        nodes = log_.latest_node_snapshots()
        letters = log_.list_dead_letters(limit=100_000)
        counts = {t: log_.count(t) for t in ("operations", "raw_events", "extraction_journal", "dead_letters")}
        raw_counts = {t: log_.count(t, final=False) for t in ("operations",)}
    return {
        "operations": [[op.op_id, op.checksum] for op in ops],
        "nodes": {n.node_id: n.model_dump(mode="json") for n in nodes},
        "dead_letters": [
            {
                "source": d.source,
                "partition": d.partition,
                "offset": d.offset,
                "reason_code": d.reason_code,
                "masked": d.masked_bytes.decode("utf-8", "replace"),
                "original_sha256": d.original_sha256,
                "original_length": d.original_length,
            }
            for d in letters
        ],
        "counts": counts,
        "raw_counts": raw_counts,
    }
