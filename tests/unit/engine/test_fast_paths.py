"""The reducer's fast paths produce exactly what the reference (pydantic + json) path produces.

Every expectation here is computed by the slow reference definitions in
``schemas`` (``Operation.compute_checksum``, ``model_dump``, ``canonical_json``,
full validation), never by the code under test.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from engine_factories import at, claim, extraction, new_store, update
from engine_workload import SIGNALS, build_item, run_steps
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

import engine.canonical_fast as fast
from engine.reducer import Reducer, apply
from engine.results import Outcome, outcome_from_operations
from engine.snapshots import construct, derive_node
from schemas.canonical import canonical_json
from schemas.enums import NEGATIVE_SIGNALS, ConditionState, EpistemicType, LifecycleState, OpType, TargetType
from schemas.nodes import Edge, MemoryNode
from schemas.operations import Operation, load_operation

E = EpistemicType
CREATABLE = [t for t in E if t is not E.DEPRECATED]


def _golden_steps(seed: int, n: int) -> list[tuple[Any, ...]]:
    """A fixed mixed sequence touching every reducer path (creation, update, contradiction, commands)."""
    rng = random.Random(seed)
    steps: list[tuple[Any, ...]] = [
        ("claim", "A", "x", False, E.ASSERTED, False, None, 0),
        ("claim", "B", "y", False, E.OBSERVED, False, None, 1),
    ]
    positive = [s for s in SIGNALS if s not in NEGATIVE_SIGNALS]
    for i in range(n):
        r = rng.random()
        k = rng.randrange(50)
        if r < 0.35:
            steps.append(("claim", rng.choice("AB"), rng.choice("xyz"), rng.random() < 0.3, rng.choice(CREATABLE),
                          rng.random() < 0.3, rng.choice([None, "x", "y"]), i))
        elif r < 0.55:
            steps.append(("reinforce", k, rng.choice(positive), rng.randrange(50), i))
        elif r < 0.62:
            steps.append(("penalize", k, rng.choice(sorted(NEGATIVE_SIGNALS)), i))
        elif r < 0.72:
            steps.append((rng.choice(["contradict", "resolve"]), k, rng.randrange(50), i))
        elif r < 0.80:
            steps.append(("transition", k, rng.choice(list(E)), i))
        elif r < 0.87:
            steps.append(("evaluate", k, rng.choice(list(ConditionState)), i))
        else:
            steps.append((rng.choice(["promote", "archive", "deprecate", "dup"]), k, i))
    return steps


def _reference_text(model: MemoryNode | Edge) -> str:
    return canonical_json(model.model_dump(mode="json"))


def _check_against_reference(ops: list[Operation]) -> None:
    all_op_fields = set(Operation.model_fields)
    for op in ops:
        assert op.checksum == op.compute_checksum()
        # a fully validated copy is equal field for field (types included: tuples stay tuples, enums stay enums)
        validated = load_operation(op.canonical())
        assert validated == op
        assert validated.canonical() == op.canonical()
        assert op.model_fields_set == all_op_fields
        assert (op.__pydantic_extra__, op.__pydantic_private__) == (validated.__pydantic_extra__, None)
        for snapshot in (op.before, op.after, op.edge):
            if snapshot is not None:
                assert fast.model_text(snapshot) == _reference_text(snapshot)
                assert type(snapshot).model_validate(snapshot.model_dump()) == snapshot


def test_golden_sequence_matches_reference_path() -> None:
    run = run_steps(_golden_steps(11, 400))
    kinds = {op.op_type for op in run.ops}
    assert len(run.ops) > 300 and len(kinds) >= 8  # the sequence really exercises many paths
    _check_against_reference(run.ops)


def test_fast_paths_disabled_give_identical_operations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Same inputs through pydantic dumps + ``json.dumps`` only (no orjson): byte-identical operations."""
    steps = _golden_steps(5, 150)
    fast_ops = [op.canonical() for op in run_steps(steps).ops]
    monkeypatch.setattr(fast, "_marked", lambda *_: None)  # operations sealed by the reference
    monkeypatch.setattr(fast, "_dumps", lambda _: None)  # canonical_bytes is json.dumps
    fast._snapshots.clear()
    fast._records.clear()
    slow = run_steps(steps).ops
    assert [op.canonical() for op in slow] == fast_ops
    assert [fast.operation_text(op) for op in slow] == fast_ops


def test_bench_like_workload_matches_reference() -> None:
    """Creations, reinforcements, contradictions and updates on a shared subject space."""
    reducer = Reducer()
    store = new_store()
    ops: list[Operation] = []
    for i in range(60):
        base = i - i % 4
        subject = f"s{base}"
        if i % 4 == 1:
            item = extraction(update(subject, "uses", f"o{i}", f"o{base}"), event_id=f"ev-{i}")
        elif i % 4 == 2:
            item = extraction(claim(subject, "uses", f"o{base + 1}", polarity=_neg()), event_id=f"ev-{i}")
        else:
            item = extraction(claim(subject, "uses", f"o{i}"), event_id=f"ev-{i}")
        ops.extend(reducer.apply(store, item).operations)
    assert {op.op_type.value for op in ops} >= {"ASSERT", "SUPERSEDENCE_APPLIED", "CONTRADICTION_NOTED"}
    _check_against_reference(ops)


def _neg() -> Any:
    from schemas.enums import Polarity

    return Polarity.NEGATIVE


def _node() -> MemoryNode:
    res = apply(new_store(), extraction(claim("Zed", "uses", "Zig")))
    node = res.operations[-1].after
    assert node is not None
    return node


def test_derived_fields_sets_are_the_parents_plus_the_changes() -> None:
    node = _node()
    partial = MemoryNode.model_validate(node.model_dump(exclude_defaults=True))
    assert partial.model_fields_set < node.model_fields_set  # defaults were not set
    for parent in (node, partial):
        for changes in ({"confidence": 0.5}, {"valid_to": at(9), "version": 3}):
            child = derive_node(parent, dict(changes))
            assert child.model_fields_set == parent.model_fields_set | set(changes)
            assert child == parent.model_copy(update=changes)
    assert "valid_to" not in partial.model_fields_set
    grown = derive_node(partial, {"valid_to": at(9)})
    assert grown.model_fields_set is not partial.model_fields_set  # a union is a set of its own


def test_the_fields_set_frozen_instances_share_is_never_changed() -> None:
    """Engine-built nodes and operations share one fields set per class; nothing pydantic does to
    one instance (copies with updates, refused assignment, pickling) may change it for the rest."""
    import copy
    import pickle

    from pydantic import ValidationError

    from engine.snapshots import shared_fields_set

    run = run_steps(_golden_steps(2, 40))
    node = next(op.after for op in reversed(run.ops) if op.after is not None)
    op = run.ops[-1]
    for model, cls in ((node, MemoryNode), (op, Operation)):
        shared = shared_fields_set(cls)
        assert shared is not None and model.model_fields_set is shared
        before = set(shared)
        partial = cls.model_validate(model.model_dump(exclude_defaults=True))
        assert partial.model_fields_set < before
        updated = model.model_copy(update={"schema_version": 1})
        assert updated.model_fields_set is not shared
        copy.copy(model).model_fields_set.add("not_a_field")
        copy.deepcopy(model).model_fields_set.add("not_a_field")
        pickle.loads(pickle.dumps(model)).model_fields_set.add("not_a_field")
        with pytest.raises(ValidationError):
            model.schema_version = 1  # type: ignore[misc]
        assert shared == before and model.model_fields_set is shared
    class Open(BaseModel):  # a class that is not frozen gets a set of its own per instance
        a: int = 0

    assert shared_fields_set(Open) is None
    first, second = construct(Open, {"a": 1}), construct(Open, {"a": 2})
    assert first.model_fields_set == {"a"} and first.model_fields_set is not second.model_fields_set


@pytest.mark.parametrize(
    "changes",
    [
        {"confidence": 1e-05, "version": 2},  # tiny float: written as repr writes it (1e-05), never 0.00001
        {"confidence": 1, "version": 2},  # int in a float field: pydantic writes 1.0, converters refuse
        {"lifecycle": LifecycleState.STABLE, "updated_at": at(3), "version": 2},
        {"supersedes": ("a", "b"), "signal_counts": {"x|y": 2}, "session_gamma": {"s": 0.125}, "version": 2},
        {"metadata": {"k": [1, 2.5, {"n": None}], "e": "1e-5"}, "version": 2},
    ],
)
def test_derived_snapshot_text_matches_pydantic(changes: dict[str, Any]) -> None:
    node = _node()
    child = derive_node(node, dict(changes))
    assert child == node.model_copy(update=changes)
    assert child.model_fields_set == node.model_fields_set | set(changes)
    assert fast.model_text(child) == _reference_text(child)


@pytest.mark.parametrize(
    "changes",
    [
        {"confidence": 1},  # an int in a float field: pydantic writes 1.0
        {"confidence": float("inf")},  # pydantic leaves it a float; json.dumps refuses it
        {"confidence": 1e-7},  # orjson would write 1e-7
        {"evidence_refs": ["a"]},  # a list where a tuple is declared
        {"lifecycle": "STABLE"},  # a str where the enum is declared
        {"valid_from": datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=2)))},  # not UTC: "+02:00"
        {"metadata": {"k": (1, 2), "big": 2**70, "e": [float("nan")]}},  # a tuple, a big int, a NaN in JSON data
        {"signal_counts": {"x": 1.5}},  # a float in an int map
    ],
)
def test_snapshots_with_values_of_other_types_are_written_as_the_reference_writes_them(
    changes: dict[str, Any],
) -> None:
    """Pydantic's JSON mode decides what such a value is; the text (or error) is json.dumps's."""
    node = _node()
    odd = node.model_copy(update=changes)
    assert _outcome(lambda: fast.model_text(odd)) == _outcome(lambda: _reference_text(odd))


def _outcome(write: Any) -> tuple[str, Any]:
    """What writing a snapshot gives: its text, or the kind of error (pydantic may warn on odd types)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "text", write()
        except (TypeError, ValueError) as exc:
            return "error", type(exc)


def test_models_with_custom_serialisation_are_written_as_pydantic_writes_them() -> None:
    from typing import Annotated

    from pydantic import BaseModel, PlainSerializer, computed_field, field_serializer

    class Custom(BaseModel):
        a: int

        @field_serializer("a")
        def _a(self, v: int) -> str:
            return str(v)

    class Doubled(BaseModel):
        a: Annotated[int, PlainSerializer(lambda v: v * 2)]

    class Computed(BaseModel):
        a: int

        @computed_field  # type: ignore[prop-decorator]
        @property
        def b(self) -> int:
            return self.a

    class Aliased(BaseModel):
        a: int = Field(serialization_alias="A")

    for cls in (Custom, Doubled, Computed, Aliased):
        assert fast.model_bytes(cls(a=1)) == canonical_json(cls(a=1).model_dump(mode="json")).encode()


def test_construct_matches_validated_model() -> None:
    node = _node()
    data = dict(node.__dict__)
    rebuilt = construct(MemoryNode, dict(reversed(list(data.items()))))
    assert list(rebuilt.__dict__) == list(MemoryNode.model_fields)  # declaration order restored
    assert rebuilt == MemoryNode.model_validate(node.model_dump())
    with pytest.raises(ValueError, match="exactly its fields"):
        construct(MemoryNode, {k: v for k, v in data.items() if k != "metadata"})


@settings(max_examples=200, deadline=None)
@given(value=st.floats(allow_nan=False, allow_infinity=False), wrap=st.integers(0, 3))
def test_tiny_float_guard_never_lets_a_difference_through(value: float, wrap: int) -> None:
    doc: Any = [value, {"id": "c489190f-2d3e-5bd4-a324-848aa636ec4a", "v": [value]}, {"a": value}, value][wrap]
    assert fast.canonical_text(doc) == json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@settings(max_examples=300, deadline=None)
@given(value=st.floats(min_value=-1e-4, max_value=1e-4, allow_nan=False), wrap=st.integers(0, 4))
def test_tiny_floats_beside_uuids_and_at_every_position_use_the_reference_spelling(value: float, wrap: int) -> None:
    uid = "3d1a58ee-5e64-4c1e-9a7e-7b2b5d0e11ee"  # several "e-" that the quick screen must not take for exponents
    doc: Any = [value, [uid, value], {"z": value, "a": uid}, {"k": {"n": [1, value]}}, {uid: value}][wrap]
    assert fast.canonical_text(doc) == json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _reference_outcome(ops: list[Operation], skipped: tuple[int, ...] | None) -> Outcome:
    """What one input's outcome means, built by full validation."""
    first = ops[0]
    fields: dict[str, Any] = {"input_id": first.caused_by, "request_id": first.request_id,
                              "op_ids": tuple(op.op_id for op in ops)}
    rejected = [op for op in ops if op.op_type is OpType.COMMAND_REJECTED]
    if rejected:
        payload = rejected[0].payload
        return Outcome(status="rejected", error_code=str(payload["code"]), error_class=str(payload["error_class"]),
                       error_message=str(payload["message"]), **fields)
    node_ids: list[str] = []
    for op in ops:
        if op.target_type is TargetType.NODE and op.target_id not in node_ids:
            node_ids.append(op.target_id)
    if skipped is not None:
        fields["skipped_claims"] = skipped
    return Outcome(status="applied", node_ids=tuple(node_ids),
                   created_node_ids=tuple(op.target_id for op in ops if op.op_type is OpType.ASSERT), **fields)


def test_results_build_their_outcome_when_asked_and_it_is_the_operations_outcome() -> None:
    """Reducer results carry status and operations at once; the outcome, built on first read,
    equals the validated outcome of those operations (a stale or mixed-up one would not)."""
    reducer = Reducer()
    steps = _golden_steps(13, 300)
    run = run_steps(steps)  # a store with nodes for the commands below to address
    statuses: Counter[str] = Counter()
    store = new_store()
    for i, step in enumerate(steps):
        item = build_item(run, i, step)
        if item is None:
            continue
        result = reducer.apply(store, item)
        statuses[result.status] += 1
        if result.status == "duplicate":
            continue
        ops = result.operations
        skipped = result.outcome.skipped_claims if "skipped_claims" in result.outcome.model_fields_set else None
        want = _reference_outcome(ops, skipped)
        assert result.status == want.status
        assert result.outcome == want and result.outcome is result.outcome  # built once
        assert result.ok is (want.status != "rejected")
    assert statuses["applied"] > 50 and statuses["rejected"] > 5


def test_outcomes_equal_validated_outcomes_built_from_the_operations() -> None:
    by_input: dict[str, list[Operation]] = {}
    for op in run_steps(_golden_steps(11, 300)).ops:
        by_input.setdefault(op.caused_by, []).append(op)
    kinds = Counter("rejected" if any(o.op_type is OpType.COMMAND_REJECTED for o in ops) else "applied"
                    for ops in by_input.values())
    assert kinds["rejected"] > 5 and kinds["applied"] > 50  # both shapes are exercised
    for ops in by_input.values():
        for skipped in (None, (), (0, 2)):
            got = outcome_from_operations(ops[0].caused_by, ops[0].request_id, ops, skipped)
            want = _reference_outcome(ops, skipped)
            assert got == want
            assert got.model_fields_set == want.model_fields_set
