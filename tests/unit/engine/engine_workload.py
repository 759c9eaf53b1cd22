"""Random but replayable workloads for property tests and benchmarks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine_factories import SCOPE, at, claim, event_ref, extraction, update

from engine.reducer import Reducer
from engine.store import InMemoryStateStore
from schemas.claims import ExtractionResult
from schemas.commands import (
    ArchiveCommand,
    CommandBase,
    ContradictCommand,
    DeprecateCommand,
    EpistemicTransitionCommand,
    EvaluateConditionCommand,
    PenalizeCommand,
    PromoteCommand,
    ReinforceCommand,
    ResolveContradictionCommand,
)
from schemas.common import ActorRef
from schemas.enums import ActorType, EdgeType, EpistemicType, Polarity, SignalType
from schemas.operations import Operation

Item = ExtractionResult | CommandBase
E = EpistemicType


@dataclass
class Run:
    store: InMemoryStateStore = field(default_factory=InMemoryStateStore)
    inputs: list[Item] = field(default_factory=list)
    ops: list[Operation] = field(default_factory=list)
    created: list[str] = field(default_factory=list)


def _pick(run: Run, index: int) -> str:
    return run.created[index % len(run.created)] if run.created else "missing"


def build_item(run: Run, i: int, step: tuple[Any, ...]) -> Item | None:
    kind = step[0]
    actor = ActorRef(actor_id=f"actor{step[-1] % 3}", actor_type=ActorType.AI_AGENT)
    base: dict[str, Any] = {**SCOPE, "command_id": f"cmd-{i}", "actor": actor, "issued_at": at(i)}
    if kind == "claim":
        _, subj, obj, neg, et, is_update, replaces, _seed = step
        kw: dict[str, Any] = {"epistemic": et, "polarity": Polarity.NEGATIVE if neg else Polarity.POSITIVE}
        if et is E.CONDITIONAL:
            kw["condition"] = "if needed"
        if et in (E.INFERRED, E.UNVERIFIED):
            kw["source_type"] = "SYSTEM_INFERRED"
        c = update(subj, "uses", obj, replaces, **kw) if is_update else claim(subj, "uses", obj, **kw)
        return extraction(c, event=event_ref(f"ev-{i}", occurred=at(i - (i % 4) * 2)))
    if kind == "dup":
        return run.inputs[step[1] % len(run.inputs)] if run.inputs else None
    node = _pick(run, step[1])
    if kind == "reinforce":
        evidence = (f"ev-{step[3] % max(i, 1)}",) if step[3] % 2 and any(run.inputs) else ()
        evidence = tuple(e for e in evidence if run.store.owner_events(SCOPE["tenant_id"], SCOPE["owner_id"], e))
        return ReinforceCommand(**base, node_id=node, signal=step[2], session_id=f"s{step[3] % 2}",
                                evidence_ids=evidence)
    if kind == "penalize":
        return PenalizeCommand(**base, node_id=node, signal=step[2])
    if kind == "contradict":
        return ContradictCommand(**base, node_a=node, node_b=_pick(run, step[2]))
    if kind == "resolve":
        edges = [e for e in run.store.iter_edges() if e.edge_type is EdgeType.CONTRADICTS and e.active]
        if not edges:
            return ResolveContradictionCommand(**base, winner_id=node, loser_id=_pick(run, step[2]))
        edge = edges[step[1] % len(edges)]
        a, b = (edge.source_id, edge.target_id) if step[2] % 2 else (edge.target_id, edge.source_id)
        return ResolveContradictionCommand(**base, winner_id=a, loser_id=b)
    if kind == "transition":
        return EpistemicTransitionCommand(**base, node_id=node, to_type=step[2])
    if kind == "evaluate":
        return EvaluateConditionCommand(**base, node_id=node, state=step[2])
    if kind == "promote":
        return PromoteCommand(**base, node_id=node)
    if kind == "archive":
        return ArchiveCommand(**base, node_id=node)
    if kind == "deprecate":
        return DeprecateCommand(**base, node_id=node)
    raise AssertionError(kind)


def run_steps(steps: list[tuple[Any, ...]], reducer: Reducer | None = None) -> Run:
    reducer = reducer or Reducer()
    run = Run()
    for i, step in enumerate(steps):
        item = build_item(run, i, step)
        if item is None:
            continue
        result = reducer.apply(run.store, item)
        run.inputs.append(item)
        run.ops.extend(result.operations)
        run.created.extend(result.outcome.created_node_ids)
    return run


def replay_inputs(inputs: list[Item], reducer: Reducer | None = None) -> list[Operation]:
    reducer = reducer or Reducer()
    store = InMemoryStateStore()
    ops: list[Operation] = []
    for item in inputs:
        ops.extend(reducer.apply(store, item).operations)
    return ops


SIGNALS = [s for s in SignalType if s is not SignalType.UNUSED]
