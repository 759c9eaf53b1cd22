"""The public Python surface (``epistream.Memory``) over a real chDB log and the embedded index."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Callable
from typing import Any

import pytest

import epistream
from epistream import Memory, RetrievalMode
from epistream.cli.demo import REFERENCE_TIME
from schemas.enums import EpistemicType, LifecycleState
from schemas.errors import NodeNotFound

pytestmark = pytest.mark.integration


def _event(i: int, content: str, **extra: Any) -> dict[str, Any]:
    return {"event_id": f"m-{i}", "tenant_id": "acme", "owner_id": "alice", "scope": "personal", "role": "user",
            "content": content, "occurred_at": f"2026-09-{10 + i:02d}T11:00:00Z", **extra}  # fmt: skip


@pytest.fixture
def memory(embedded_runners: Callable[..., Any]) -> Memory:
    return Memory(embedded_runners("facade"))


def test_ingest_retrieve_world_provenance_and_state(memory: Memory) -> None:
    report = memory.ingest([
        _event(1, "I live in Paris."),
        _event(2, "I moved from Paris to Berlin."),
        _event(3, "I might learn Rust next year."),
        "not json",
    ])
    assert (report.events, report.dead_letters) == (3, 1)
    answer = memory.retrieve("where does alice live", tenant_id="acme", owner_id="alice",
                             reference_time=REFERENCE_TIME)  # fmt: skip
    objects = [i.object for i in answer.items]
    assert "Berlin" in objects and "Paris" not in objects  # superseded: never a current fact
    assert all(i.label.epistemic_type is not EpistemicType.HYPOTHETICAL for i in answer.items)
    explicit = memory.retrieve("rust", tenant_id="acme", owner_id="alice", mode=RetrievalMode.EXPLICIT,
                               reference_time=REFERENCE_TIME)  # fmt: skip
    assert any(i.label.epistemic_type is EpistemicType.HYPOTHETICAL for i in explicit.items)

    world = memory.world(tenant_id="acme", owner_id="alice", at=REFERENCE_TIME)
    assert [f.object for f in world.facts if f.predicate == "lives_in"] == ["Berlin"]
    berlin = next(f for f in world.facts if f.object == "Berlin")
    trail = memory.provenance(berlin.node_id, tenant_id="acme", owner_id="alice")
    assert trail is not None and [e["event_id"] for e in trail.evidence_events] == ["m-2"]
    state = memory.assertion_state(tenant_id="acme", owner_id="alice", subject="user", predicate="lives_in",
                                   valid_at=REFERENCE_TIME)  # fmt: skip
    assert state.status == "single" and [v.object for v in state.current_values] == ["Berlin"]
    assert memory.verify_replay() == []


def test_commands_by_method_and_by_name_with_safe_retries(memory: Memory) -> None:
    memory.ingest([_event(1, "I like coffee."), _event(2, "I don't like coffee.")])
    world = memory.world(tenant_id="acme", owner_id="alice", at=REFERENCE_TIME)
    (conflict,) = world.conflicts
    winner, loser = (side.node_id for side in conflict.sides)
    request_id = str(uuid.uuid4())
    first = memory.resolve(winner, loser, tenant_id="acme", request_id=request_id)
    again = memory.command("resolve", winner, loser, tenant_id="acme", request_id=request_id)
    assert first is not None and again is not None
    assert first.status == again.status == "applied" and again.retried and again.op_ids == first.op_ids
    node = memory.node(loser, tenant_id="acme")
    assert node is not None and node.lifecycle is LifecycleState.DEPRECATED
    with pytest.raises(NodeNotFound):
        memory.promote("no-such-node", tenant_id="acme")
    with pytest.raises(TypeError):
        memory.command("contradict", winner, tenant_id="acme")


def test_import_epistream_loads_neither_the_storage_engine_nor_a_model() -> None:
    code = "import sys, epistream; print(sorted(m for m in ('chdb', 'onnxruntime', 'tantivy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert set(epistream.__all__) <= set(dir(epistream))
    assert epistream.Memory is Memory
