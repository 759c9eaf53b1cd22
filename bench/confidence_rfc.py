"""RFC-0008 benchmark requirements, run through the real reducer; prints the figures.

1. 1,000 CONFIRMED signals never push confidence above 0.97.
2. The per-session cap (total γ 0.40) is enforced.
3. Confidence evolution for a correlated agent pair, with and without the 0.4 discount.
4. A single CORRECTED never goes below the floor max(0.05, c·(1−δ)).
5. Replay of 100 objects after a mixed random workload is identical.

    .venv/bin/python bench/confidence_rfc.py [--seed 11]
"""

from __future__ import annotations

import argparse
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.config import EngineConfig
from engine.reducer import Reducer
from engine.replay import replay
from engine.store import InMemoryStateStore
from schemas.claims import Claim, EventRef, ExtractionResult
from schemas.commands import (
    CommandBase,
    ContradictCommand,
    DeprecateCommand,
    PenalizeCommand,
    ReinforceCommand,
    ResolveContradictionCommand,
)
from schemas.common import ActorRef
from schemas.enums import ActorType, EpistemicType, Polarity, Role, Scope, SignalType, TemporalIntent
from schemas.operations import Operation

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SCOPE: dict[str, Any] = {"tenant_id": "bench", "owner_id": "owner", "scope": Scope.PERSONAL}
_counter = iter(range(10**9))


def _event(event_id: str, *claims: Claim, day: float = 0) -> ExtractionResult:
    at = T0 + timedelta(days=day)
    ref = EventRef(**SCOPE, event_id=event_id, role=Role.USER, occurred_at=at, recorded_at=at, content_sha256="0" * 64)
    return ExtractionResult(event=ref, extractor="bench", extractor_version="1", grounding_policy_version="g1",
                            source_hash="0" * 64, claims=claims)


def _claim(subject: str = "Alice", predicate: str = "uses", obj: str = "Python", **kw: Any) -> Claim:
    kw.setdefault("epistemic_type", EpistemicType.OBSERVED)
    return Claim(subject=subject, predicate=predicate, object=obj, evidence_quote=f"{subject} {predicate} {obj}", **kw)


def _actor(name: str) -> ActorRef:
    return ActorRef(actor_id=name, actor_type=ActorType.AI_AGENT)


def _cmd(cls: type[CommandBase], **kw: Any) -> Any:
    kw.setdefault("actor", _actor("agent"))
    kw.setdefault("issued_at", T0 + timedelta(days=1))
    return cls(**SCOPE, command_id=f"c{next(_counter)}", **kw)


def _setup(config: EngineConfig | None = None, **claim_kw: Any) -> tuple[Reducer, InMemoryStateStore, str]:
    reducer = Reducer(config or EngineConfig())
    store = InMemoryStateStore()
    res = reducer.apply(store, _event(f"ev-{next(_counter)}", _claim(**claim_kw)))
    return reducer, store, res.outcome.created_node_ids[0]


def _confidence(store: InMemoryStateStore, node_id: str) -> float:
    node = store.get_node(node_id)
    assert node is not None
    return node.confidence


def confirmed_thousand() -> None:
    print("1. 1,000 CONFIRMED signals (OBSERVED claim, start 0.90; global ceiling 0.97)")
    for label, vary in (("same actor, same session", False), ("1,000 distinct actors and sessions", True)):
        reducer, store, node_id = _setup()
        peak = 0.0
        for i in range(1000):
            actor = _actor(f"agent{i}" if vary else "agent")
            session = f"s{i}" if vary else "s"
            reducer.apply(store, _cmd(ReinforceCommand, node_id=node_id, signal=SignalType.CONFIRMED,
                                      actor=actor, session_id=session))
            peak = max(peak, _confidence(store, node_id))
        print(f"   {label:<36} max confidence {peak:.6f}  final {_confidence(store, node_id):.6f}  "
              f"exceeded 0.97: {'YES' if peak > 0.97 else 'no'}")


def session_cap() -> None:
    print("2. Per-session cap (total gamma per object per session <= 0.40)")
    reducer, store, node_id = _setup(epistemic_type=EpistemicType.INFERRED, source_type="SYSTEM_INFERRED")
    total = 0.0
    truncated = 0
    for i in range(50):
        res = reducer.apply(store, _cmd(ReinforceCommand, node_id=node_id, signal=SignalType.CONFIRMED,
                                        actor=_actor(f"agent{i}"), session_id="one"))
        payload = res.operations[0].payload
        total += float(payload["gamma_effective"])  # type: ignore[arg-type]
        truncated += bool(payload["session_cap_truncated"])
    res = reducer.apply(store, _cmd(ReinforceCommand, node_id=node_id, signal=SignalType.CONFIRMED,
                                    actor=_actor("fresh"), session_id="two"))
    print(f"   50 CONFIRMED from 50 actors in one session: total gamma applied {total:.6f} "
          f"(cap 0.40), signals cut by the cap {truncated}, confidence {_confidence(store, node_id):.4f}")
    print(f"   next session starts fresh: gamma_effective {res.operations[0].payload['gamma_effective']}")


def correlated_pair() -> None:
    print("3. Correlated agent pair: two agents alternately REFERENCE an ASSERTED claim (start 0.80)")
    rows: dict[str, list[float]] = {}
    for label in ("correlated (cite the claim's own evidence)", "independent (each cites a new event)"):
        reducer, store, node_id = _setup(epistemic_type=EpistemicType.ASSERTED)
        node = store.get_node(node_id)
        assert node is not None
        source = node.evidence_refs[0]
        series = []
        for i in range(10):
            if label.startswith("correlated"):
                evidence = (source,)
            else:
                event_id = f"ind-{next(_counter)}"
                reducer.apply(store, _event(event_id, _claim("Other", "says", f"x{i}")))
                evidence = (event_id,)
            reducer.apply(store, _cmd(ReinforceCommand, node_id=node_id, signal=SignalType.REFERENCED,
                                      actor=_actor(f"agent{i % 2}"), session_id=f"s{i}", evidence_ids=evidence))
            series.append(_confidence(store, node_id))
        rows[label] = series
    for label, series in rows.items():
        print(f"   {label:<44} " + " ".join(f"{c:.4f}" for c in series))


def corrected_floor() -> None:
    print("4. A single CORRECTED (delta 0.25) never goes below max(0.05, c*(1-delta))")
    violations = 0
    margin = 1.0
    checked = 0
    for cents in range(1, 98):
        c = cents / 100
        config = EngineConfig().with_overrides({"observed:user_stated": c})
        reducer, store, node_id = _setup(config)
        reducer.apply(store, _cmd(PenalizeCommand, node_id=node_id, signal=SignalType.CORRECTED))
        after = _confidence(store, node_id)
        floor = min(c, max(0.05, c * 0.75))
        violations += after < floor - 1e-12
        margin = min(margin, after - floor)
        checked += 1
    print(f"   starting confidences 0.01..0.97: {checked} checked, {violations} below the floor, "
          f"smallest margin {margin:.2e}")


def replay_hundred(seed: int) -> None:
    print("5. Replay of 100 objects after a mixed random workload")
    rng = random.Random(seed)
    reducer = Reducer()
    store = InMemoryStateStore()
    log: list[Operation] = []
    created: list[str] = []
    objects = ["Python", "Rust", "Go", "Java"]
    subjects = [f"person{i}" for i in range(25)]
    step = 0
    while len(created) < 100:
        step += 1
        subj, obj = rng.choice(subjects), rng.choice(objects)
        kw: dict[str, Any] = {"epistemic_type": rng.choice([EpistemicType.OBSERVED, EpistemicType.ASSERTED])}
        if rng.random() < 0.2:
            kw["polarity"] = Polarity.NEGATIVE
        if rng.random() < 0.2:
            kw["temporal_intent"] = TemporalIntent.UPDATE
            kw["replaces_object"] = rng.choice(objects)
        res = reducer.apply(store, _event(f"ev-{step}", _claim(subj, "uses", obj, **kw), day=step / 10))
        log += res.operations
        created += res.outcome.created_node_ids
        for _ in range(rng.randint(0, 3)):
            node_id = rng.choice(created)
            kind = rng.random()
            if kind < 0.45:
                cmd = _cmd(ReinforceCommand, node_id=node_id, signal=rng.choice(
                    [SignalType.CONFIRMED, SignalType.REFERENCED, SignalType.TASK_COMPLETED_WITH]),
                    actor=_actor(f"a{rng.randint(0, 3)}"), session_id=f"s{rng.randint(0, 3)}")
            elif kind < 0.7:
                cmd = _cmd(PenalizeCommand, node_id=node_id, signal=rng.choice(
                    [SignalType.CORRECTED, SignalType.TASK_FAILED_WITH, SignalType.IGNORED_REPEATEDLY]))
            elif kind < 0.85:
                cmd = _cmd(ContradictCommand, node_a=node_id, node_b=rng.choice(created))
            elif kind < 0.95:
                cmd = _cmd(ResolveContradictionCommand, winner_id=node_id, loser_id=rng.choice(created))
            else:
                cmd = _cmd(DeprecateCommand, node_id=node_id)
            log += reducer.apply(store, cmd).operations
    rebuilt = replay(log)
    matched = 0
    for node_id in created[:100]:
        live, again = store.get_node(node_id), rebuilt.get_node(node_id)
        if live is not None and again is not None and live.model_dump(mode="json") == again.model_dump(mode="json"):
            matched += 1
    kinds: dict[str, int] = {}
    for op in log:
        kinds[op.op_type.value] = kinds.get(op.op_type.value, 0) + 1
    print(f"   {len(log)} operations ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})")
    print(f"   objects identical after replay: {matched}/100; full-state snapshot identical: "
          f"{rebuilt.snapshot() == store.snapshot()}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    confirmed_thousand()
    session_cap()
    correlated_pair()
    corrected_floor()
    replay_hundred(args.seed)


if __name__ == "__main__":
    main()
