"""JSON-mode output of contract models without a full pydantic dump.

``model.model_dump(mode="json")`` followed by the canonical encoder costs ~7 µs
for a node, and the reducer writes a node snapshot for nearly every operation.
:func:`model_plan` derives from a model class's annotations how pydantic's JSON
mode writes each field; the C encoder (``engine._canonical.encode_model``) then
writes an instance's canonical JSON straight from its ``__dict__``. A plan is
made only for classes it can describe exactly (no aliases, extras, computed or
excluded fields, custom serializers, or field types outside the table below),
and the encoder accepts only values of exactly the declared types; anything else
(a subclass, an int in a float field, a non-finite float, a zone other than UTC)
makes it raise and the caller falls back to pydantic, so the result is never
merely "close". Tests compare both paths on every node and edge the reducer emits.
"""

from __future__ import annotations

import types
import typing
from datetime import datetime
from enum import Enum
from functools import lru_cache
from typing import Any, Literal, Union

from pydantic import BaseModel, JsonValue, PlainSerializer, WrapSerializer

from engine import _canonical

# Field kinds of a plan; the numbers are the C encoder's (engine/_canonical.c).
K_STR, K_INT, K_FLOAT, K_BOOL, K_DATETIME, K_ENUM, K_LITERAL = 1, 2, 3, 4, 5, 6, 7
K_STR_TUPLE, K_MAP_INT, K_MAP_FLOAT, K_JSON, K_MODEL, K_MODEL_TUPLE = 8, 9, 10, 11, 12, 13
K_OPTIONAL = 0x100

#: One plan entry: encoded key (``"name":``), field name, kind, and the enum class, literal
#: values or nested model class the kind needs (else None).
PlanField = tuple[bytes, str, int, Any]

_SCALARS = {str: K_STR, int: K_INT, float: K_FLOAT, bool: K_BOOL, datetime: K_DATETIME}
_SERIALIZERS = (PlainSerializer, WrapSerializer)


def _strip(annotation: Any) -> tuple[Any, bool]:
    """The annotation inside any ``Annotated``, and whether its metadata changes serialisation."""
    custom = False
    while typing.get_origin(annotation) is typing.Annotated:
        annotation, *metadata = typing.get_args(annotation)
        custom = custom or any(isinstance(m, _SERIALIZERS) for m in metadata)
    return annotation, custom


def _kind_of(annotation: Any) -> tuple[int, Any] | None:
    annotation, custom = _strip(annotation)
    if custom:
        return None
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) != 1 or len(args) != 2:
            return None
        inner = _kind_of(rest[0])
        return None if inner is None else (inner[0] | K_OPTIONAL, inner[1])
    if origin is Literal:
        ok = all(type(a) in (int, str) for a in args)
        return (K_LITERAL, tuple(args)) if ok else None
    if origin is tuple:
        if len(args) != 2 or args[1] is not Ellipsis:
            return None
        if _strip(args[0]) == (str, False):
            return K_STR_TUPLE, None
        member = _kind_of(args[0])  # a model with a plan, or nothing this table describes
        return (K_MODEL_TUPLE, member[1]) if member is not None and member[0] == K_MODEL else None
    if origin is dict:
        if len(args) != 2 or _strip(args[0]) != (str, False):
            return None
        if args[1] is JsonValue:
            return K_JSON, None
        value = _strip(args[1])
        return {(int, False): (K_MAP_INT, None), (float, False): (K_MAP_FLOAT, None)}.get(value)
    if isinstance(annotation, type) and annotation in _SCALARS:
        return _SCALARS[annotation], None
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return K_ENUM, annotation
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return (K_MODEL, annotation) if model_plan(annotation) is not None else None
    return None


def _plain(cls: type[BaseModel]) -> bool:
    """Whether pydantic writes exactly the declared fields of ``cls``, each by its type alone."""
    decorators = cls.__pydantic_decorators__
    return not (
        cls.model_config.get("extra") == "allow"
        or cls.model_computed_fields
        or cls.__private_attributes__
        or decorators.field_serializers
        or decorators.model_serializers
        or any(f.exclude for f in cls.model_fields.values())
        or any(f.alias not in (None, n) or f.serialization_alias not in (None, n) for n, f in cls.model_fields.items())
        or any(isinstance(m, _SERIALIZERS) for f in cls.model_fields.values() for m in f.metadata)
    )


@lru_cache(maxsize=64)
def model_plan(cls: type[BaseModel]) -> tuple[PlanField, ...] | None:
    """How the C encoder writes instances of ``cls`` (fields in sorted order), or None if it cannot.

    The plan is registered with the encoder here, and so are the plans of nested models.
    """
    if not _plain(cls):
        return None
    plan: list[PlanField] = []
    for name in sorted(cls.model_fields):
        kind = _kind_of(cls.model_fields[name].annotation)
        if kind is None:
            return None
        plan.append((_canonical.encode(name) + b":", name, kind[0], kind[1]))
    result = tuple(plan)
    _canonical.register_model(cls, result, tuple(cls.model_fields))  # declaration order: the __dict__'s
    return result


def model_json(model: BaseModel) -> dict[str, Any]:
    """``model.model_dump(mode="json")`` minus the wrapper's argument handling."""
    out: dict[str, Any] = type(model).__pydantic_serializer__.to_python(model, mode="json")
    return out
