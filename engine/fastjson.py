"""JSON-mode values of contract fields without a full pydantic dump.

``model.model_dump(mode="json")`` costs ~15 µs for a node, and most reducer
steps change two or three fields of a node whose JSON is already known. The
converters here, derived once from each model's field annotations, turn just
the changed values into what pydantic would write. They accept only values of
exactly the declared types; anything else (a subclass, an int in a float
field, a non-finite float, an unknown annotation) raises :class:`Unsupported`
and the caller falls back to pydantic, so the result is never merely "close".
Tests compare both paths on every node and edge the reducer emits.
"""

from __future__ import annotations

import math
import types
import typing
from collections.abc import Callable
from datetime import datetime
from enum import Enum
from functools import lru_cache
from typing import Any, Literal, Union

from pydantic import BaseModel, JsonValue, TypeAdapter

Converter = Callable[[Any], Any]

_DATETIME = TypeAdapter(datetime)


class Unsupported(Exception):
    """A value the fast converters cannot prove they serialise like pydantic."""


@lru_cache(maxsize=8192)
def datetime_json(value: datetime) -> str:
    """The exact string pydantic writes for a datetime in JSON mode."""
    return str(_DATETIME.dump_python(value, mode="json"))


def _exact(kind: type) -> Converter:
    def conv(value: Any) -> Any:
        if type(value) is kind:
            return value
        raise Unsupported

    return conv


def _float(value: Any) -> Any:
    if type(value) is float and math.isfinite(value):
        return value
    raise Unsupported


def _datetime(value: Any) -> Any:
    if type(value) is datetime:
        return datetime_json(value)
    raise Unsupported


def _enum(kind: type[Enum]) -> Converter:
    def conv(value: Any) -> Any:
        if type(value) is kind:
            return value._value_
        raise Unsupported

    return conv


def _literal(allowed: tuple[Any, ...]) -> Converter:
    def conv(value: Any) -> Any:
        if type(value) in (int, str) and value in allowed:
            return value
        raise Unsupported

    return conv


def _optional(inner: Converter) -> Converter:
    def conv(value: Any) -> Any:
        return None if value is None else inner(value)

    return conv


def _str_tuple(value: Any) -> Any:
    if type(value) is not tuple:
        raise Unsupported
    for v in value:
        if type(v) is not str:
            raise Unsupported
    return list(value)


def _str_map(kind: type) -> Converter:
    check = _float if kind is float else _exact(kind)

    def conv(value: Any) -> Any:
        if type(value) is not dict:
            raise Unsupported
        out: dict[str, Any] = {}
        for k, v in value.items():
            if type(k) is not str:
                raise Unsupported
            out[k] = check(v)
        return out

    return conv


def json_value(value: Any) -> Any:
    """A JsonValue tree as pydantic emits it (lists/dicts copied, leaves as is)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        return _float(value)
    if kind is list:
        return [json_value(v) for v in value]
    if kind is dict:
        out: dict[str, Any] = {}
        for k, v in value.items():
            if type(k) is not str:
                raise Unsupported
            out[k] = json_value(v)
        return out
    raise Unsupported


def _json_map(value: Any) -> Any:
    if type(value) is not dict:
        raise Unsupported
    return json_value(value)


def _strip(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _converter_for(annotation: Any) -> Converter | None:
    annotation = _strip(annotation)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) != 1 or len(args) != 2:
            return None
        inner = _converter_for(rest[0])
        return None if inner is None else _optional(inner)
    if origin is Literal:
        return _literal(args) if all(type(a) in (int, str) for a in args) else None
    if origin is tuple:
        return _str_tuple if len(args) == 2 and _strip(args[0]) is str and args[1] is Ellipsis else None
    if origin is dict:
        if len(args) != 2 or _strip(args[0]) is not str:
            return None
        value = args[1]
        if value is JsonValue:
            return _json_map
        value = _strip(value)
        return _str_map(value) if value in (int, float) else None
    if annotation is float:
        return _float
    if annotation in (str, int, bool):
        return _exact(annotation)
    if annotation is datetime:
        return _datetime
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return _enum(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        table = field_converters(annotation)
        if table is None:
            return None
        kind = annotation

        def nested(value: Any) -> Any:
            if type(value) is not kind:
                raise Unsupported
            return {name: conv(value.__dict__[name]) for name, conv in table.items()}

        return nested
    return None


@lru_cache(maxsize=64)
def field_converters(cls: type[BaseModel]) -> dict[str, Converter] | None:
    """Per-field converters, or None when any field's type is not covered."""
    if cls.model_config.get("extra") == "allow" or any(f.exclude for f in cls.model_fields.values()):
        return None
    if cls.model_computed_fields or cls.__private_attributes__:
        return None
    table: dict[str, Converter] = {}
    for name, field in cls.model_fields.items():
        if field.alias not in (None, name) or field.serialization_alias not in (None, name):
            return None
        conv = _converter_for(field.annotation)
        if conv is None:
            return None
        table[name] = conv
    return table


def model_json(model: BaseModel) -> dict[str, Any]:
    """``model.model_dump(mode="json")`` minus the wrapper's argument handling."""
    out: dict[str, Any] = type(model).__pydantic_serializer__.to_python(model, mode="json")
    return out


def changes_json(cls: type[BaseModel], changes: dict[str, Any]) -> dict[str, Any]:
    """JSON-mode values of a few changed fields; raises Unsupported if unsure."""
    table = field_converters(cls)
    if table is None:
        raise Unsupported
    try:
        return {name: table[name](value) for name, value in changes.items()}
    except KeyError as exc:
        raise Unsupported from exc
