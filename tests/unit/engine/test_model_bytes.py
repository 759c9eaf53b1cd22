"""Snapshot texts, datetimes, UUIDv5 ids and constructed instances agree with pydantic, json and uuid.

A node snapshot's text is part of every operation's checksum; ids are part of every record.
Expectations come from the references (``model_dump`` + ``canonical_json``,
``TypeAdapter(datetime)``, ``uuid.uuid5``, ``model_validate``), never from the code under test.
"""

from __future__ import annotations

import json
import uuid
import zoneinfo
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import orjson
import pytest
from engine_factories import claim, extraction, new_store
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

import engine.canonical_fast as fast
from engine.reducer import apply
from engine.snapshots import construct
from schemas.canonical import EPISTREAM_NAMESPACE, canonical_json, derive_id
from schemas.claims import EvidenceSpan
from schemas.enums import LifecycleState, Polarity
from schemas.nodes import ConditionEvaluation, Edge, MemoryNode
from schemas.operations import Operation

_DT = TypeAdapter(datetime)
_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_zones = st.sampled_from([
    UTC, timezone(timedelta(0)), timezone(timedelta(hours=2)), timezone(timedelta(hours=-5, minutes=-30)),
    timezone(timedelta(seconds=3725)), zoneinfo.ZoneInfo("UTC"), zoneinfo.ZoneInfo("Europe/Paris"),
    _DT.validate_json('"2026-01-01T00:00:00Z"').tzinfo,  # pydantic's own UTC (parsed records carry it)
])
_datetimes = st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30, 23, 59, 59, 999999), timezones=_zones
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
def test_random_nodes_are_written_as_pydantic_and_json_write_them(
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
    assert fast.model_bytes(node) == _reference(node)
    assert fast.model_text(node) == _reference(node).decode("utf-8")


def test_edges_are_written_as_pydantic_and_json_write_them() -> None:
    store = new_store()
    apply(store, extraction(claim("Zed", "uses", "Zig"), event_id="ev-a"))
    ops = apply(store, extraction(claim("Zed", "uses", "Zig", polarity=Polarity.NEGATIVE), event_id="ev-b")).operations
    edges = [op.edge for op in ops if op.edge is not None]
    assert edges and all(type(e) is Edge for e in edges)
    for edge in edges:
        assert fast.model_bytes(edge) == _reference(edge)


def test_a_subclass_instance_is_written_by_its_own_class() -> None:
    class Sub(MemoryNode):
        note: str = "extra"

    sub = Sub.model_validate(_node().model_dump())
    assert b'"note":"extra"' in fast.model_bytes(sub)
    assert fast.model_bytes(sub) == _reference(sub)


def test_a_kept_text_is_the_same_object_and_follows_its_instance_only() -> None:
    node = _node()
    text = fast.model_bytes(node)
    assert fast.model_bytes(node) is text  # a hit returns the kept bytes
    twin = node.model_copy()
    assert twin == node and fast.model_bytes(twin) == text and fast.model_bytes(twin) is not text
    assert fast.model_text(None) == "null"


@settings(max_examples=400, deadline=None)
@given(when=_datetimes)
def test_orjson_writes_datetimes_as_pydantic_s_json_mode_does(when: datetime) -> None:
    """Sealing lets orjson write an operation's ``occurred_at``: it must be pydantic's text."""
    assert orjson.dumps(when, option=orjson.OPT_UTC_Z) == json.dumps(_DT.dump_python(when, mode="json")).encode()


@pytest.mark.parametrize(
    "when",
    [
        datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=2))),
        datetime(2026, 1, 1, 0, 0, 0, 250, tzinfo=timezone(timedelta(hours=-5, minutes=-30))),
        datetime(999, 1, 1, tzinfo=UTC),
        datetime(2026, 1, 1),
    ],
)
def test_operation_times_in_any_zone_are_written_as_the_reference_writes_them(when: datetime) -> None:
    op = apply(new_store(), extraction(claim("Zed", "uses", "Zig"))).operations[-1]
    fields = {**op.__dict__, "occurred_at": when, "checksum": ""}
    sealed = fast.seal_operation(fields)
    assert sealed.checksum == sealed.compute_checksum()
    assert fast.operation_bytes(sealed) == canonical_json(sealed.model_dump(mode="json")).encode("utf-8")


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(_text | st.integers(min_value=-(2**80), max_value=2**80), min_size=1, max_size=5))
def test_ids_are_uuid5_of_the_joined_parts(parts: list[str | int]) -> None:
    expected = str(uuid.uuid5(EPISTREAM_NAMESPACE, "\x1f".join(map(str, parts))))
    assert fast.fast_derive_id(*parts) == expected == derive_id(*parts)


def test_id_parts_of_other_types_are_joined_by_str() -> None:
    assert fast.fast_derive_id("a", True, 1.5) == str(uuid.uuid5(EPISTREAM_NAMESPACE, "a\x1fTrue\x1f1.5"))


@pytest.mark.parametrize("size", [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000])
def test_sha1_padding_boundaries(size: int) -> None:
    name = "x" * size
    assert fast.fast_derive_id(name) == str(uuid.uuid5(EPISTREAM_NAMESPACE, name))


def test_constructed_instances_are_what_validation_builds() -> None:
    node = _node()
    values = dict(node.__dict__)
    built = construct(MemoryNode, values, {"node_id"})
    assert built.__dict__ is values and built == MemoryNode.model_validate(node.model_dump())
    assert built.model_fields_set == {"node_id"}
    assert (built.__pydantic_extra__, built.__pydantic_private__) == (None, None)
    shared = construct(MemoryNode, dict(values))
    assert shared.model_fields_set == set(MemoryNode.model_fields)


def test_construct_puts_values_in_declaration_order_and_refuses_missing_or_extra_ones() -> None:
    node = _node()
    shuffled = dict(sorted(node.__dict__.items()))
    built = construct(MemoryNode, shuffled)
    assert list(built.__dict__) == list(MemoryNode.model_fields) and built == node
    assert built.model_fields_set == set(MemoryNode.model_fields)
    with pytest.raises(ValueError, match="exactly its fields"):
        construct(MemoryNode, {k: v for k, v in shuffled.items() if k != "version"})
    with pytest.raises(ValueError, match="exactly its fields"):
        construct(MemoryNode, {**shuffled, "extra": 1})
    with pytest.raises(ValueError, match="exactly its fields"):
        construct(Operation, dict(node.__dict__))
