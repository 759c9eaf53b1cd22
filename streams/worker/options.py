"""The worker's deployment knobs that are not :class:`~schemas.settings.Settings`, and its roles."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

GUARANTEE = "at_least_once"

#: Worker roles (see ``WorkerOptions.role``).
ROLES = ("all", "core", "index")


@dataclass(frozen=True)
class WorkerOptions:
    """Deployment knobs that are not in :class:`Settings` (tests and benches vary them)."""

    app_id: str = "epistream"
    topic_prefix: str = ""
    index_alias: str | None = None
    clickhouse_database: str = "epistream"
    batch: int = 500
    within_s: float = 0.05
    #: extract sends one extraction record per partition of a take: a longer window than
    #: materialize's keeps those records few.
    extract_within_s: float = 0.2
    #: ClickHouse sinks: a chDB insert costs ~30 ms of CPU whatever its size, so few large ones.
    sink_batch: int = 5000
    sink_within_s: float = 1.0
    #: extract's raw events and journals and materialize's operations and snapshots are written
    #: behind the stream (streams.write_behind): at most this long after their take, or as soon
    #: as ``clickhouse_batch`` rows wait (intake pauses while that many wait for a write).
    clickhouse_within_s: float = 0.5
    clickhouse_batch: int = 5000
    #: memory.nodes -> OpenSearch: this window is most of the publish-to-retrievable latency.
    index_batch: int = 2000
    index_within_s: float = 0.2
    #: Backoff of a sink write (OpenSearch, ClickHouse) that failed: it is retried, never dropped.
    sink_retry_initial_s: float = 0.5
    sink_retry_max_s: float = 10.0
    commit_interval_s: float = 1.0
    #: Linger and batch size of the producer: each produce request costs the event loop a socket
    #: write that wakes the broker (a context switch on a small box), so fewer, larger requests.
    #: 20 ms and 256 KiB against 5 ms and faust's 16 KiB (every operations record of a take, tens
    #: of KiB, was a batch of its own): +6-11% capacity, -7-11% worker CPU per event in alternating
    #: runs; the linger adds at most 20 ms per hop (two hops to the index).
    producer_linger_s: float = 0.02
    producer_batch_bytes: int = 256 * 1024
    processing_guarantee: str = GUARANTEE
    #: Which stages this process runs: ``all``; ``core`` (extract, materialize, dead letters);
    #: ``index`` (the index stage alone), so indexing can run in processes of its own beside core
    #: workers. The index stage always consumes in the group ``<prefix><app_id>-index``.
    role: str = "all"
    #: How long a dead (SIGKILLed) worker keeps its partitions before the group reassigns them
    #: (``Settings.kafka_session_timeout_s`` for ``epistream worker``).
    session_timeout_s: float = 30.0

    @property
    def runs_core(self) -> bool:
        """This process runs extract, materialize and the dead-letter sink."""
        return self.role in ("all", "core")

    @property
    def runs_index(self) -> bool:
        """This process runs the index sink."""
        return self.role in ("all", "index")

    @property
    def group_id(self) -> str:
        """The core stages' consumer group, ``<topic prefix><app id>``: two deployments on one broker
        (different prefixes) never share a group, so they never rebalance each other."""
        return f"{self.topic_prefix}{self.app_id}"

    @property
    def index_group_id(self) -> str:
        """The index stage's group, whatever the role: its offsets on memory.nodes are its own (see
        :mod:`streams.worker.index_consumer`)."""
        return f"{self.group_id}-index"


def numeric_options(pairs: Sequence[str]) -> dict[str, float | int]:
    """``NAME=VALUE`` pairs for the numeric :class:`WorkerOptions` fields, typed like the field."""
    fields = {f.name: f.type for f in dataclasses.fields(WorkerOptions)}
    out: dict[str, float | int] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        kind = fields.get(name.strip())
        if not sep or kind not in ("float", "int"):
            numeric = sorted(n for n, t in fields.items() if t in ("float", "int"))
            raise SystemExit(f"--option {pair!r}: expected NAME=VALUE with NAME one of {', '.join(numeric)}")
        try:
            out[name.strip()] = float(value) if kind == "float" else int(value)
        except ValueError:
            raise SystemExit(f"--option {pair!r}: {value!r} is not a number") from None
    return out
