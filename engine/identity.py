"""Identity check of a journaled record (PRME-FACTS §5.5), run by readers after the checksum.

A checksum only proves a record is as it was sealed; a record sealed with the
wrong node, owner or scope in its snapshots would still fold silently into
someone else's state. The reducer never writes such a record, so a reader that
meets one refuses it instead of guessing.
"""

from __future__ import annotations

from schemas.common import ScopeRef
from schemas.enums import TargetType
from schemas.errors import IntegrityError
from schemas.nodes import MemoryNode
from schemas.operations import Operation

#: Fields no operation may change on a node: who owns it and which claim it is.
IMMUTABLE_NODE_FIELDS: tuple[str, ...] = (
    "node_id", "tenant_id", "owner_id", "scope", "scope_id", "node_type", "subject", "predicate", "object",
    "polarity", "created_at", "asserted_by",
)


def _scope(item: ScopeRef) -> tuple[object, ...]:
    return (item.tenant_id, item.owner_id, item.scope, item.scope_id)


def _refuse(op: Operation, why: str) -> IntegrityError:
    return IntegrityError("operation identity does not match its record", code="identity_mismatch",
                          op_id=op.op_id, check=why)


def check_identity(op: Operation) -> Operation:
    """Raise :class:`IntegrityError` (code ``identity_mismatch``) unless the record is about what it names."""
    scope = _scope(op)
    snapshots: list[MemoryNode] = [n for n in (op.before, op.after) if n is not None]
    for node in snapshots:
        if op.target_type is not TargetType.NODE or node.node_id != op.target_id:
            raise _refuse(op, "snapshot_not_target")
        if _scope(node) != scope:
            raise _refuse(op, "snapshot_scope")
    if op.before is not None and op.after is not None:
        before, after = op.before, op.after
        if any(getattr(before, f) != getattr(after, f) for f in IMMUTABLE_NODE_FIELDS):
            raise _refuse(op, "immutable_field_changed")
        if after.version != before.version + 1:
            raise _refuse(op, "version_step")
    if op.edge is not None and _scope(op.edge) != scope:
        raise _refuse(op, "edge_scope")
    return op
