"""Rebuild state from the operation log alone, and prove it matches live state.

Each record is checksum-verified and identity-checked (PRME-FACTS §5.5) before
it is folded, through the same ``apply_operation`` the reducer uses.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.erasure import is_erased
from engine.identity import check_identity
from engine.store import InMemoryStateStore, StateStore
from schemas.operations import Operation, verify_operation


def replay(operations: Iterable[Operation], *, verify: bool = True) -> InMemoryStateStore:
    """Fold ``operations`` into a new store, each checked first (``verify``).

    A record read with its content erased (``engine.erasure.is_erased``) has its identity checked but not
    its checksum, which covers the content that is gone; the reader verified its stored (sealed) bytes.
    """
    store = InMemoryStateStore()
    for op in operations:
        if verify:
            check_identity(op if is_erased(op) else verify_operation(op))
        store.apply_operation(op)
    return store


def _diff(path: str, left: Any, right: Any, out: list[str], limit: int) -> None:
    if len(out) >= limit:
        return
    if isinstance(left, dict) and isinstance(right, dict):
        for key in sorted(set(left) | set(right), key=str):
            if key not in left:
                out.append(f"{path}.{key}: missing in live state")
            elif key not in right:
                out.append(f"{path}.{key}: missing in replayed state")
            else:
                _diff(f"{path}.{key}", left[key], right[key], out, limit)
    elif left != right:
        out.append(f"{path}: live={left!r} replayed={right!r}")


def verify_replay(live: StateStore, operations: Iterable[Operation], *, limit: int = 100) -> list[str]:
    """Differences between ``live`` and a replay of ``operations``; empty means identical."""
    differences: list[str] = []
    _diff("state", live.snapshot(), replay(operations).snapshot(), differences, limit)
    return differences
