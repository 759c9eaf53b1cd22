"""Kafka topic names, partitioning and creation for the distributed pipeline.

Every topic that carries per-owner data is partitioned by the same key
(``tenant/owner/scope``, :attr:`schemas.common.ScopeRef.partition_key`) and has
the same partition count, so an owner's events, extraction results, commands,
operations and node snapshots all live on the same partition number. That is
what lets ``materialize`` be the single writer per key and rebuild its state
from one partition of ``memory.operations``.

A ``prefix`` namespaces a whole deployment (tests use one per test so runs on a
shared broker never see each other's records).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, Final

from schemas.errors import EpistreamError
from streams.kafka_errors import kafka_client

log = logging.getLogger("epistream.topics")

EVENTS: Final = "conversation.events"
EXTRACTIONS: Final = "memory.extractions"
COMMANDS: Final = "memory.commands"
OPERATIONS: Final = "memory.operations"
NODES: Final = "memory.nodes"
DLQ_SUFFIX: Final = ".dlq"
#: Topics that take input from outside the pipeline; each gets a dead-letter topic.
INPUT_TOPICS: Final = (EVENTS, COMMANDS)
#: Topics whose partition numbers must line up: an owner's input, extraction results, commands,
#: operations and node snapshots on the same partition number (see the module docstring).
CO_PARTITIONED: Final = (EVENTS, EXTRACTIONS, COMMANDS, OPERATIONS, NODES)
DEFAULT_PARTITIONS: Final = 12
#: memory.operations is the changelog a worker folds to rebuild a partition's state at every start
#: and rebalance: with the broker's default retention (7 days) a restart a week later would fold an
#: incomplete history. It is kept for good (ClickHouse holds the same records for analytics).
OPERATIONS_CONFIG: Final = {"retention.ms": "-1", "retention.bytes": "-1"}

#: Dead-letter record headers (the value is the input's bytes with secrets masked, at most 64 KiB;
#: the original's SHA-256 and length are headers, and the source coordinates say where it is).
H_REASON: Final = "reason_code"
H_SOURCE: Final = "source_topic"
H_PARTITION: Final = "source_partition"
H_OFFSET: Final = "source_offset"
H_MESSAGE: Final = "message"
H_RECEIVED: Final = "received_at"
H_SHA256: Final = "original_sha256"
H_LENGTH: Final = "original_length"


def partition_key(tenant_id: str, owner_id: str, scope_key: str) -> str:
    """The record key of every per-owner topic (same as ``ScopeRef.partition_key``)."""
    return f"{tenant_id}/{owner_id}/{scope_key}"


def dlq(topic: str) -> str:
    return topic + DLQ_SUFFIX


@dataclass(frozen=True)
class Topics:
    """Concrete topic names of one deployment (optionally prefixed) and their partition count."""

    prefix: str = ""
    partitions: int = DEFAULT_PARTITIONS
    replication: int = 1

    def name(self, base: str) -> str:
        return f"{self.prefix}{base}"

    @property
    def events(self) -> str:
        return self.name(EVENTS)

    @property
    def extractions(self) -> str:
        return self.name(EXTRACTIONS)

    @property
    def commands(self) -> str:
        return self.name(COMMANDS)

    @property
    def operations(self) -> str:
        return self.name(OPERATIONS)

    @property
    def nodes(self) -> str:
        return self.name(NODES)

    @property
    def events_dlq(self) -> str:
        return dlq(self.events)

    @property
    def commands_dlq(self) -> str:
        return dlq(self.commands)

    @property
    def dlqs(self) -> tuple[str, ...]:
        return tuple(dlq(self.name(t)) for t in INPUT_TOPICS)

    def all(self) -> dict[str, dict[str, str]]:
        """Every topic with its config overrides (memory.nodes is compacted: latest snapshot per node)."""
        plain: dict[str, str] = {}
        topics = {self.name(t): plain for t in (EVENTS, EXTRACTIONS, COMMANDS)}
        # The broker stamps each event with its own clock: knowledge time (``received_at``) is the
        # receiving side's, never a producer's (EPISTREAM_TRUST_RECEIVED_AT).
        topics[self.events] = {"message.timestamp.type": "LogAppendTime"}
        topics[self.operations] = dict(OPERATIONS_CONFIG)
        topics[self.nodes] = {"cleanup.policy": "compact"}
        for d in self.dlqs:
            topics[d] = plain
        return topics


async def ensure_topics_async(bootstrap: str, topics: Topics, *, timeout_ms: int = 15000) -> list[str]:
    """Create missing topics (existing ones are left alone); returns the names created.

    Existing per-owner topics must already have ``topics.partitions`` partitions, or nothing is
    created and ``partition_count_mismatch`` is raised. With different counts an owner's commands
    (hashed over the commands topic) and extraction results (on the event's partition number) meet
    on different partitions, and faust's assignor, which only co-assigns topics of equal counts,
    can give one partition number of each to two workers: two writers of the same state. A topic
    a producer auto-created with the broker's default count, or a worker started with another
    ``EPISTREAM_PARTITIONS``, is refused at start instead.
    """
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=timeout_ms)
    async with kafka_client(admin, "creating topics", stop=admin.close):
        existing = set(await admin.list_topics())
        present = [name for name in map(topics.name, CO_PARTITIONED) if name in existing]
        if present:
            counts = {t["topic"]: len(t["partitions"]) for t in await admin.describe_topics(present)}
            wrong = {name: n for name, n in sorted(counts.items()) if n != topics.partitions}
            if wrong:
                raise EpistreamError(
                    f"existing topics do not have the {topics.partitions} partitions this deployment uses; "
                    "set EPISTREAM_PARTITIONS to their count (all per-owner topics need the same one)",
                    code="partition_count_mismatch",
                    expected=topics.partitions,
                    found=wrong,
                )
        wanted = topics.all()
        missing = [
            NewTopic(name, num_partitions=topics.partitions, replication_factor=topics.replication, topic_configs=cfg)
            for name, cfg in wanted.items()
            if name not in existing
        ]
        if missing:
            await admin.create_topics(missing, timeout_ms=timeout_ms)
        if topics.operations in existing:
            await _warn_if_operations_expire(admin, topics.operations)
        return [t.name for t in missing]


async def _warn_if_operations_expire(admin: Any, name: str) -> None:
    """An existing memory.operations created elsewhere (or before its retention was set here) may drop
    old records; say so at every start rather than alter a topic an operator configured."""
    from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

    responses = await admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, name, None)])
    values = {
        entry[0]: entry[1]
        for response in responses
        for resource in response.resources
        for entry in resource[4]
    }
    retention = values.get("retention.ms")
    if retention is not None and retention != "-1":
        log.warning(
            "%s keeps records for only %s ms; workers rebuild state from it at every start: set "
            "retention.ms=-1 (kafka-configs --alter --entity-type topics --entity-name %s "
            "--add-config retention.ms=-1)",
            name,
            retention,
            name,
        )


def ensure_topics(bootstrap: str, topics: Topics) -> list[str]:
    return asyncio.run(ensure_topics_async(bootstrap, topics))
