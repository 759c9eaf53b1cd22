"""The compiled model encoder, datetime text and UUIDv5 agree with pydantic, json and uuid.

A node snapshot's text is part of every operation's checksum; ids are part of
every record. Expectations come from the references (``model_dump`` +
``canonical_json``, ``TypeAdapter(datetime)``, ``uuid.uuid5``), never from the
code under test.
"""

from __future__ import annotations

import json
import uuid
import warnings
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from engine_factories import claim, extraction, new_store
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

import engine.canonical_fast as fast
from engine import _canonical
from engine.fastjson import model_plan
from engine.reducer import apply
from engine.snapshots import construct
from schemas.canonical import EPISTREAM_NAMESPACE, canonical_json, derive_id
from schemas.claims import EvidenceSpan
from schemas.enums import LifecycleState, Polarity
from schemas.nodes import ConditionEvaluation, Edge, MemoryNode
from schemas.operations import Operation

_DT = TypeAdapter(datetime)
_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_datetimes = st.datetimes(
    min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59, 999999), timezones=st.just(UTC)
) | st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31))
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)


def _node() -> MemoryNode:
    node = apply(new_store(), extraction(claim("Zed", "uses", "Zig"))).operations[-1].after
    assert node is not None
    return node


def _reference(model: Any) -> bytes:
    return canonical_json(model.model_dump(mode="json")).encode("utf-8")


@settings(max_examples=150, deadline=None)
@given(
    confidence=st.floats(0.0, 1.0),
    text=_text,
    refs=st.lists(_text, max_size=3),
    counts=st.dictionaries(_text, st.integers(), max_size=3),
    gamma=st.dictionaries(_text, st.floats(allow_nan=False, allow_infinity=False), max_size=3),
    metadata=st.dictionaries(_text, _json, max_size=3),
    when=_datetimes,
    optional=st.booleans(),
    lifecycle=st.sampled_from(list(LifecycleState)),
    polarity=st.sampled_from(list(Polarity)),
    version=st.integers(1, 2**70),
)
def test_random_nodes_encode_like_pydantic(
    confidence: float, text: str, refs: list[str], counts: dict[str, int], gamma: dict[str, float],
    metadata: dict[str, Any], when: datetime, optional: bool, lifecycle: LifecycleState, polarity: Polarity,
    version: int,
) -> None:
    node = _node().model_copy(
        update={
            "confidence": confidence, "content": text, "evidence_refs": tuple(refs), "signal_counts": counts,
            "session_gamma": gamma, "metadata": metadata, "valid_from": when, "updated_at": when,
            "valid_to": when if optional else None, "object": text if optional else None,
            "lifecycle": lifecycle, "polarity": polarity, "version": version,
            "evidence_span": EvidenceSpan(start=0, end=len(text)) if optional else None,
            "condition_evaluation": ConditionEvaluation(
                evaluated_at=when.replace(tzinfo=UTC), method=text, evaluated_by="u", reason=text if optional else None
            ) if optional else None,
        }
    )
    assert _canonical.encode_model(node) == _reference(node)
    data = node.model_dump(mode="json")
    mine = _canonical.json_data(node)
    assert mine == data and list(mine) == list(data)  # same values, declaration order
    assert json.dumps(mine) == json.dumps(data)  # same types too (1 == 1.0 == True for ==)


def test_edges_and_nested_models_encode_like_pydantic() -> None:
    store = new_store()
    apply(store, extraction(claim("Zed", "uses", "Zig"), event_id="ev-a"))
    ops = apply(store, extraction(claim("Zed", "uses", "Zig", polarity=Polarity.NEGATIVE), event_id="ev-b")).operations
    edges = [op.edge for op in ops if op.edge is not None]
    assert edges and all(type(e) is Edge for e in edges)
    for edge in edges:
        assert _canonical.encode_model(edge) == _reference(edge)


def test_a_class_without_a_plan_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="no plan"):
        _canonical.encode_model(object())


def test_a_subclass_instance_is_not_written_by_its_parents_plan() -> None:
    class Sub(MemoryNode):
        pass

    assert model_plan(MemoryNode) is not None
    node = _node()
    sub = Sub.model_validate(node.model_dump())
    with pytest.raises(TypeError):
        _canonical.encode_model(sub)


@settings(max_examples=300, deadline=None)
@given(when=_datetimes)
def test_datetime_text_is_pydantics(when: datetime) -> None:
    assert _canonical.format_datetime(when) == _DT.dump_python(when, mode="json")


@pytest.mark.parametrize(
    "when",
    [
        datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=2))),
        datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=-5, minutes=-30))),
    ],
)
def test_other_zones_are_refused_by_c_and_written_by_pydantic(when: datetime) -> None:
    with pytest.raises(TypeError):
        _canonical.format_datetime(when)
    node = _node().model_copy(update={"valid_to": when})
    with pytest.raises(TypeError):
        _canonical.encode_model(node)
    assert fast.model_bytes(node) == _reference(node)


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(_text | st.integers(min_value=-(2**80), max_value=2**80), min_size=1, max_size=5))
def test_ids_are_uuid5_of_the_joined_parts(parts: list[str | int]) -> None:
    expected = str(uuid.uuid5(EPISTREAM_NAMESPACE, "\x1f".join(map(str, parts))))
    assert _canonical.derive_id(EPISTREAM_NAMESPACE.bytes, *parts) == expected
    assert fast.fast_derive_id(*parts) == expected == derive_id(*parts)
    assert fast.derive_engine_id(*parts) == expected


def test_id_parts_of_other_types_are_joined_by_str() -> None:
    with pytest.raises(TypeError):
        _canonical.derive_id(EPISTREAM_NAMESPACE.bytes, True)
    with pytest.raises(TypeError):  # the engine's own ids are str and int parts only
        fast.derive_engine_id("a", True)
    assert fast.fast_derive_id("a", True, 1.5) == str(uuid.uuid5(EPISTREAM_NAMESPACE, "a\x1fTrue\x1f1.5"))


@pytest.mark.parametrize("size", [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000])
def test_sha1_padding_boundaries(size: int) -> None:
    name = "x" * size
    assert fast.fast_derive_id(name) == str(uuid.uuid5(EPISTREAM_NAMESPACE, name))


@settings(max_examples=100, deadline=None)
@given(payload=st.dictionaries(_text, _json, max_size=4), checksum=_text, with_fragment=st.booleans())
def test_operation_text_splices_into_the_reference_record(
    payload: dict[str, Any], checksum: str, with_fragment: bool
) -> None:
    """Sealed text + checksum spliced at the offset = the stored record; fragments are copied verbatim."""
    op = apply(new_store(), extraction(claim("Zed", "uses", "Zig"))).operations[-1]
    fields = {**op.__dict__, "payload": payload}
    assert op.after is not None
    overrides: dict[str, Any] = {"payload": payload, "before": None, "edge": None}
    if with_fragment:
        overrides["after"] = _reference(op.after)
    text, at = _canonical.encode_fields_split(Operation, fields, overrides, "checksum")
    body = Operation.model_construct(**fields).model_dump(mode="json")
    del body["checksum"]
    assert text == canonical_json(body).encode("utf-8")
    spliced = text[:at] + b',"checksum":' + _canonical.encode(checksum) + text[at:]
    assert spliced == canonical_json({**body, "checksum": checksum}).encode("utf-8")


def test_operation_fields_must_be_exactly_the_classs() -> None:
    op = apply(new_store(), extraction(claim("Zed", "uses", "Zig"))).operations[-1]
    fields = dict(op.__dict__)
    with pytest.raises(TypeError, match="exactly"):
        _canonical.encode_fields_split(Operation, {**fields, "extra": 1}, {}, "checksum")
    with pytest.raises(ValueError, match="split"):
        _canonical.encode_fields_split(Operation, fields, {}, "not_a_field")
    with pytest.raises(TypeError):  # a snapshot that is not a MemoryNode and not overridden
        _canonical.encode_fields_split(Operation, {**fields, "after": "x"}, {}, "checksum")


def test_constructed_instances_match_pythons_construction() -> None:
    node = _node()
    values = dict(node.__dict__)
    built = _canonical.construct_model(MemoryNode, values, {"node_id"})
    assert built.__dict__ is values and built == node
    assert built.model_fields_set == {"node_id"}
    assert (built.__pydantic_extra__, built.__pydantic_private__) == (None, None)
    with pytest.raises(TypeError):
        _canonical.construct_model(MemoryNode, values, frozenset())  # type: ignore[arg-type]
    names = tuple(MemoryNode.model_fields)
    assert _canonical.construct_model(MemoryNode, dict(values), set(), names) == node
    with pytest.raises(TypeError, match="declaration order"):
        _canonical.construct_model(MemoryNode, dict(reversed(list(values.items()))), set(), names)
    with pytest.raises(TypeError, match="exactly"):
        _canonical.construct_model(MemoryNode, {k: v for k, v in values.items() if k != "version"}, set(), names)


def test_construct_puts_values_in_declaration_order_and_refuses_missing_ones() -> None:
    node = _node()
    shuffled = dict(sorted(node.__dict__.items()))
    built = construct(MemoryNode, shuffled)
    assert list(built.__dict__) == list(MemoryNode.model_fields) and built == node
    assert built.model_fields_set == set(MemoryNode.model_fields)
    with pytest.raises(ValueError, match="exactly its fields"):
        construct(MemoryNode, {k: v for k, v in shuffled.items() if k != "version"})
    with pytest.raises(ValueError, match="exactly its fields"):
        construct(MemoryNode, {**shuffled, "extra": 1})


def test_warning_free_plan_path_for_every_reducer_snapshot() -> None:
    """Snapshots the reducer builds go through the plan (no pydantic dump, no warning)."""
    store = new_store()
    ops = list(apply(store, extraction(claim("Zed", "uses", "Zig"), event_id="ev-1")).operations)
    ops += apply(store, extraction(claim("Zed", "uses", "Zig", polarity=Polarity.NEGATIVE), event_id="ev-2")).operations
    snapshots = [s for op in ops for s in (op.before, op.after, op.edge) if s is not None]
    assert len(snapshots) >= 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for snapshot in snapshots:
            assert _canonical.encode_model(snapshot) == _reference(snapshot)


def test_a_dict_not_in_declared_order_or_with_other_key_objects_is_written_the_same() -> None:
    """Values are read in one pass when the __dict__ holds the declared names in order; any other
    __dict__ (reordered, or keys that are equal but other str objects) is read by lookups."""
    node = _node()
    expected = _reference(node)
    assert _canonical.encode_model(node) == expected
    reordered = _canonical.construct_model(MemoryNode, dict(reversed(list(node.__dict__.items()))), set())
    copied_keys = _canonical.construct_model(MemoryNode, {"".join(list(k)): v for k, v in node.__dict__.items()}, set())
    assert any(a is not b for a, b in zip(copied_keys.__dict__, node.__dict__, strict=True))
    for variant in (reordered, copied_keys):
        assert _canonical.encode_model(variant) == expected
        assert _canonical.json_data(variant) == node.model_dump(mode="json")


def test_declared_names_must_be_the_plans_fields() -> None:
    from pydantic import BaseModel

    class Pair(BaseModel):
        b: int
        a: str

    plan = model_plan(Pair)
    assert plan is not None
    for declared in (("b",), ("b", "x"), ("a", "a")):
        with pytest.raises(ValueError):
            _canonical.register_model(Pair, plan, declared)
    _canonical.register_model(Pair, plan, ("b", "a"))
    assert _canonical.encode_model(Pair(b=1, a="x")) == b'{"a":"x","b":1}'
