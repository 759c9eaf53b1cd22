"""Reducer micro-benchmark: inputs/second on a mixed workload over 10,000 nodes.

Inputs are built before timing (pydantic validation of inputs is the producer's
cost, not the reducer's). Everything the reducer does is timed: lookups through
the subject/predicate index, node snapshots, operation sealing (SHA-256 of the
canonical JSON) and folding into the store. One process, one core.

A last run creates ``--wide`` values of one subject/predicate in a fresh store and prints the
rate of its first and second half: creation looks up only the values a claim names, so the
second half must run as fast as the first (before the value index every creation scanned
the whole relation: 980 inputs/s over the first 4,000 values, 298/s over the next 4,000).

    .venv/bin/python bench/reducer_throughput.py [--nodes 10000] [--mixed 20000] [--wide 5000]
"""

from __future__ import annotations

import argparse
import gc
import random
import time
from datetime import UTC, datetime, timedelta

from engine.reducer import Reducer
from engine.store import InMemoryStateStore
from schemas.claims import Claim, EventRef, ExtractionResult
from schemas.commands import CommandBase, ReinforceCommand
from schemas.common import ActorRef
from schemas.enums import ActorType, EpistemicType, Polarity, Role, Scope, SignalType, TemporalIntent

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SCOPE = {"tenant_id": "bench", "owner_id": "owner", "scope": Scope.PERSONAL}
PREDICATES = ("uses", "likes")


def _extraction(i: int, subject: str, predicate: str, obj: str, **kw: object) -> ExtractionResult:
    at = T0 + timedelta(seconds=i)
    ref = EventRef(**SCOPE, event_id=f"ev-{i}", role=Role.USER, session_id=f"s{i % 50}", occurred_at=at,
                   recorded_at=at, content_sha256="0" * 64)
    c = Claim(subject=subject, predicate=predicate, object=obj, epistemic_type=EpistemicType.ASSERTED,
              evidence_quote=f"{subject} {predicate} {obj}", **kw)  # type: ignore[arg-type]
    return ExtractionResult(event=ref, extractor="bench", extractor_version="1", grounding_policy_version="g1",
                            source_hash="0" * 64, claims=(c,))


def build(nodes: int, mixed: int, seed: int) -> tuple[list[ExtractionResult], list[ExtractionResult | CommandBase]]:
    rng = random.Random(seed)
    subjects = nodes // (len(PREDICATES) * 2)
    seed_inputs = [
        _extraction(i, f"s{i % subjects}", PREDICATES[(i // subjects) % 2], f"o{i // (subjects * 2)}")
        for i in range(nodes)
    ]
    node_ids: list[str] = []  # filled after seeding; commands pick by position
    mixed_specs: list[tuple[str, int]] = []
    for _ in range(mixed):
        r = rng.random()
        kind = "create" if r < 0.40 else "reinforce" if r < 0.70 else "contradict" if r < 0.85 else "update"
        mixed_specs.append((kind, rng.randrange(nodes)))
    del node_ids
    items: list[ExtractionResult | CommandBase] = []
    actor = ActorRef(actor_id="assistant", actor_type=ActorType.AI_AGENT)
    for n, (kind, pick) in enumerate(mixed_specs):
        i = nodes + n
        subject, predicate = f"s{pick % subjects}", PREDICATES[(pick // subjects) % 2]
        obj = f"o{pick // (subjects * 2)}"
        if kind == "create":
            items.append(_extraction(i, f"new{i}", "uses", "thing"))
        elif kind == "contradict":
            items.append(_extraction(i, subject, predicate, obj, polarity=Polarity.NEGATIVE))
        elif kind == "update":
            items.append(_extraction(i, subject, predicate, f"o-new{i}", temporal_intent=TemporalIntent.UPDATE,
                                     replaces_object=obj))
        else:
            items.append(
                ReinforceCommand(**SCOPE, command_id=f"cmd-{i}", actor=actor, issued_at=T0 + timedelta(seconds=i),
                                 session_id=f"s{i % 7}", node_id=f"@{pick}", signal=SignalType.REFERENCED)
            )
    return seed_inputs, items


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--mixed", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--wide", type=int, default=5_000, help="values of the one subject/predicate of the wide run")
    args = parser.parse_args()

    seed_inputs, mixed = build(args.nodes, args.mixed, args.seed)
    reducer = Reducer()
    store = InMemoryStateStore()
    gc.disable()
    cpu_started = time.process_time()
    started = time.perf_counter()
    created: list[str] = []
    seed_ops = 0
    for item in seed_inputs:
        result = reducer.apply(store, item)
        created.extend(result.outcome.created_node_ids)
        seed_ops += len(result.operations)
    seed_elapsed = time.perf_counter() - started
    seed_cpu = time.process_time() - cpu_started

    # resolve "@<index>" placeholders to the seeded node ids (outside the timed loop)
    resolved = [
        i.model_copy(update={"node_id": created[int(i.node_id[1:])]}) if isinstance(i, ReinforceCommand) else i
        for i in mixed
    ]
    counts: dict[str, int] = {}
    ops = 0
    cpu_started = time.process_time()
    started = time.perf_counter()
    for item in resolved:
        result = reducer.apply(store, item)
        ops += len(result.operations)
        counts[result.status] = counts.get(result.status, 0) + 1
    mixed_elapsed = time.perf_counter() - started
    mixed_cpu = time.process_time() - cpu_started
    wide_first, wide_last = wide_run(reducer, args.wide)
    gc.enable()

    for label, n, n_ops, wall, cpu in (
        ("seed creations", len(seed_inputs), seed_ops, seed_elapsed, seed_cpu),
        ("mixed workload", len(resolved), ops, mixed_elapsed, mixed_cpu),
    ):
        print(f"{label:<19}: {n:>7} inputs, wall {wall:6.2f}s = {n / wall:>8,.0f} inputs/s; "
              f"process CPU {cpu:6.2f}s = {n / cpu:>8,.0f} inputs/s ({n_ops / cpu:,.0f} ops/s)")
    print(f"mixed composition  : 40% creations, 30% reinforcements, 15% contradictions, 15% updates; outcomes {counts}")
    print(f"nodes in store     : {len(store):,}")
    half = args.wide // 2
    first, last = half / wide_first, (args.wide - half) / wide_last
    print(f"wide subject/pred. : {args.wide:,} values of one subject/predicate: first {half:,} at {first:,.0f} "
          f"inputs/s, last {args.wide - half:,} at {last:,.0f} inputs/s (last/first {last / first:.2f}; "
          "~1.0 when looked up by value)")


def wide_run(reducer: Reducer, values: int) -> tuple[float, float]:
    """Seconds for the first and second half of ``values`` creations under one subject/predicate.

    A user can state thousands of values of one relation ("likes ..."); creation looks up only the
    values a claim names, so the second half must not be slower than the first.
    """
    items = [_extraction(i, "user", "likes", f"thing {i}") for i in range(values)]
    store = InMemoryStateStore()
    half = values // 2
    started = time.perf_counter()
    for item in items[:half]:
        reducer.apply(store, item)
    middle = time.perf_counter()
    for item in items[half:]:
        reducer.apply(store, item)
    return middle - started, time.perf_counter() - middle


if __name__ == "__main__":
    main()
