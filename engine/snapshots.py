"""Building contract instances from values the engine already validated.

Nodes, edges and operations are frozen pydantic models. The reducer builds
them from validated inputs and its own arithmetic, so re-validating (or even
copying a prototype with ``model_copy``) only costs time. :func:`construct`
produces exactly what ``prototype.model_copy(update=values)`` produces when
``values`` names every field: the same ``__dict__`` (in declaration order), every
field marked as set, no extras, no private state.

Instances of a frozen class share one fields set (every field, per class): pydantic
never changes a frozen instance's set in place (assignment is refused before it is
touched; ``model_copy`` and ``copy`` give the copy a set of its own), and a copy per
instance cost ~2 KB and a malloc/free pair for every node version the reducer wrote.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel

from schemas.common import ScopeRef
from schemas.enums import Scope
from schemas.nodes import MemoryNode

M = TypeVar("M", bound=BaseModel)
_set = object.__setattr__
#: cls -> (field names in declaration order, the set of them, whether instances may share that set)
_FIELDS: dict[type[BaseModel], tuple[tuple[str, ...], set[str], bool]] = {}
_NODE_FIELDS = frozenset(MemoryNode.model_fields)


def _fields(cls: type[BaseModel]) -> tuple[tuple[str, ...], set[str], bool]:
    known = _FIELDS.get(cls)
    if known is None:
        known = _FIELDS[cls] = (tuple(cls.model_fields), set(cls.model_fields), bool(cls.model_config.get("frozen")))
    return known


def shared_fields_set(cls: type[BaseModel]) -> set[str] | None:
    """The fields set instances of ``cls`` built here share, or None when ``cls`` is not frozen."""
    _names, all_set, frozen = _fields(cls)
    return all_set if frozen else None


def construct(cls: type[M], values: dict[str, Any], fields_set: set[str] | None = None) -> M:
    """An instance with exactly ``values`` (which must name every field), unvalidated.

    ``values`` becomes the instance's ``__dict__``; given out of declaration order (the order
    a validated instance has) it is copied in that order.
    """
    names, all_set, frozen = _fields(cls)
    if fields_set is None:
        fields_set = all_set if frozen else all_set.copy()
    if tuple(values) != names:
        if len(values) != len(names) or not all(n in values for n in names):
            raise ValueError(f"construct({cls.__name__}) needs exactly its fields")
        values = {n: values[n] for n in names}
    # what pydantic's model_construct does once defaults are filled in (here none are missing)
    obj: M = cls.__new__(cls)
    _set(obj, "__dict__", values)
    _set(obj, "__pydantic_fields_set__", fields_set)
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj


def derive_node(node: MemoryNode, changes: dict[str, Any]) -> MemoryNode:
    """``node.model_copy(update=changes)`` without its copy of the field-set and private state handling."""
    if type(node) is not MemoryNode or not changes.keys() <= _NODE_FIELDS:
        return node.model_copy(update=changes)
    values = node.__dict__.copy()
    values.update(changes)
    fields_set = node.__pydantic_fields_set__
    # every field is set on the engine's nodes, whose (frozen) class shares that set: keep it
    return construct(MemoryNode, values, fields_set if changes.keys() <= fields_set else fields_set | changes.keys())


@lru_cache(maxsize=4096)
def _scope(tenant_id: str, owner_id: str, scope: Scope, scope_id: str | None) -> ScopeRef:
    return ScopeRef(tenant_id=tenant_id, owner_id=owner_id, scope=scope, scope_id=scope_id)


def scope_of(item: ScopeRef) -> ScopeRef:
    """``item.scope_ref()``, validated once per distinct key (ScopeRefs are immutable)."""
    return _scope(item.tenant_id, item.owner_id, item.scope, item.scope_id)
