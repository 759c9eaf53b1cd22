"""How far behind each stage of a deployment is: what an operator checks first, without Kafka's Java tools.

A stage's lag is the records on its input topics that its consumer group has not committed. Our
workers commit an input only after everything it produced is durable (ClickHouse rows written,
records acknowledged by the broker, see ``streams.delivery``), so lag counts work not yet done,
not merely records not yet read.

Stages and the groups that run them (``<group>`` is ``<topic prefix><app id>``, so deployments on one
broker never share a group):

* ``extract``: ``conversation.events`` in the group ``<group>``;
* ``materialize``: ``memory.extractions`` and ``memory.commands`` in ``<group>``;
* ``dead_letters``: the dead-letter topics in ``<group>`` (their ClickHouse sink);
* ``index``: ``memory.nodes`` in ``<group>-index``, whichever role runs the index stage (it is a
  consumer of its own, see ``streams.worker.index_consumer``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from streams import topics as tn
from streams.kafka_errors import kafka_client


@dataclass(frozen=True)
class GroupState:
    group: str
    #: Kafka's group state: Stable, PreparingRebalance, CompletingRebalance, Empty or Dead.
    state: str
    members: int


@dataclass(frozen=True)
class StageLag:
    stage: str
    group: str
    topics: tuple[str, ...]
    #: Records not yet committed (all partitions of the stage's topics).
    lag: int
    #: Records ever written to those topics (their end offsets).
    records: int
    #: Partitions with lag, and how much: where a stuck consumer shows.
    lagging_partitions: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["topics"] = list(self.topics)
        return out


def group_of(topics: tn.Topics, app_id: str) -> str:
    """The core stages' consumer group of a deployment (``WorkerOptions.group_id``)."""
    return f"{topics.prefix}{app_id}"


def stage_inputs(topics: tn.Topics, app_id: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """(stage, group, input topics) of a deployment, in pipeline order."""
    group = group_of(topics, app_id)
    return [
        ("extract", group, (topics.events,)),
        ("materialize", group, (topics.extractions, topics.commands)),
        ("index", f"{group}-index", (topics.nodes,)),
        ("dead_letters", group, tuple(topics.dlqs)),
    ]


async def pipeline_lag(bootstrap: str, topics: tn.Topics, app_id: str) -> tuple[list[StageLag], list[GroupState]]:
    """Per-stage lag and the state of the deployment's consumer groups, from one snapshot of offsets."""
    inputs = stage_inputs(topics, app_id)
    groups = sorted({group for _stage, group, _topics in inputs})
    names = sorted({name for _s, _g, names in inputs for name in names})
    committed, ends, states = await _snapshot(bootstrap, groups, names, describe=True)
    stages = [
        _stage_lag(stage, group, stage_topics, committed[group], ends) for stage, group, stage_topics in inputs
    ]
    return stages, states


async def topic_lag(bootstrap: str, group: str, topic_names: Sequence[str]) -> dict[str, int]:
    """Uncommitted records per topic for one consumer group (tests and benches wait for zero)."""
    committed, ends, _states = await _snapshot(bootstrap, [group], topic_names, describe=False)
    return {name: _stage_lag(name, group, (name,), committed[group], ends).lag for name in topic_names}


async def _snapshot(
    bootstrap: str, groups: Sequence[str], topic_names: Sequence[str], *, describe: bool
) -> tuple[dict[str, dict[Any, Any]], dict[Any, int], list[GroupState]]:
    """Committed offsets per group, then the topics' end offsets (and the groups' states).

    End offsets are read after the committed offsets, so lag can only look *more* behind than it
    was, never less.
    """
    from aiokafka import AIOKafkaConsumer, TopicPartition
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    doing = "reading consumer lag"
    async with kafka_client(admin, doing, stop=admin.close):
        # Created once the broker answered: an aiokafka client that was never closed warns on exit.
        consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
        async with kafka_client(consumer, doing):
            committed = {group: await admin.list_consumer_group_offsets(group) for group in groups}
            # One group per request: aiokafka 0.12 fails to decode the answer for two groups that
            # have members ("Buffer underrun decoding string") and drops the connection.
            described = [r for g in (groups if describe else ()) for r in await admin.describe_consumer_groups([g])]
            await consumer._client.force_metadata_update()
            tps = [TopicPartition(n, p) for n in topic_names for p in sorted(consumer.partitions_for_topic(n) or ())]
            ends = await consumer.end_offsets(tps) if tps else {}
    return committed, ends, [_group_state(group) for response in described for group in response.groups]


def _stage_lag(
    stage: str, group: str, stage_topics: Sequence[str], committed: dict[Any, Any], ends: dict[Any, int]
) -> StageLag:
    lag = records = 0
    lagging: dict[str, int] = {}
    for tp, last in sorted(ends.items(), key=lambda kv: (kv[0].topic, kv[0].partition)):
        if tp.topic not in stage_topics:
            continue
        meta = committed.get(tp)
        done = meta.offset if meta is not None and meta.offset >= 0 else 0
        behind = max(0, last - done)
        records += last
        lag += behind
        if behind:
            lagging[f"{tp.topic}/{tp.partition}"] = behind
    return StageLag(stage, group, tuple(stage_topics), lag, records, lagging)


def _group_state(group: Any) -> GroupState:
    """One group of a DescribeGroups response: (error, group, state, protocol type, protocol, members, ...)."""
    return GroupState(group=group[1], state=group[2] or "Dead", members=len(group[5]))
