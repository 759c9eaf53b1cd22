"""Which data key seals each part of what memory stores, and what an erased record reads as.

Content is sealed at the storage boundary (``sinks.sealing``) under per-event data keys, so one
event (with what was derived from it), a conversation, a speaker or a whole owner can be forgotten
by destroying keys while the append-only log keeps every record and still verifies. The rule of
which key seals what is a pure function of the record, kept here beside the reducer's erasure
(``Reducer._erase``) that relies on it: a node is sealed under the key of the event it was derived
from (its first evidence reference, fixed for its life), an operation's payload under the key of
the node it changes (or the event it journals, or else its owner's key), so erasing an event makes
every record of what was derived from it unreadable, and nothing else.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

from schemas.enums import OpType
from schemas.nodes import MemoryNode
from schemas.operations import Operation

#: ``(tenant, owner, unit)``: the unit is an event id, or :data:`OWNER_UNIT` for what belongs to the owner
#: as a whole (commands' reasons on no claim, retrieval queries).
Unit = tuple[str, str, str]
OWNER_UNIT: Final = "*owner"
#: Operations stored in the clear: they name what was erased by id and count, and must stay readable
#: after the keys they speak of are gone.
CLEAR_OPS: Final = frozenset({OpType.ERASED})
#: What an erased payload reads as.
ERASED_PAYLOAD: Final = {"erased": True}


def event_unit(tenant_id: str, owner_id: str, event_id: str) -> Unit:
    return (tenant_id, owner_id, event_id)


def owner_unit(tenant_id: str, owner_id: str) -> Unit:
    return (tenant_id, owner_id, OWNER_UNIT)


def node_unit(node: MemoryNode) -> Unit:
    """The key of a node's every version: the event it was extracted from, else its owner's."""
    if node.evidence_refs:
        return event_unit(node.tenant_id, node.owner_id, node.evidence_refs[0])
    return owner_unit(node.tenant_id, node.owner_id)


def payload_unit(op: Operation) -> Unit | None:
    """The key of an operation's payload; None: stored in the clear (:data:`CLEAR_OPS`)."""
    if op.op_type in CLEAR_OPS:
        return None
    node = op.after if op.after is not None else op.before
    if node is not None:
        return node_unit(node)
    if op.op_type is OpType.EXTRACTION_VALIDATED:
        return event_unit(op.tenant_id, op.owner_id, op.target_id)
    return owner_unit(op.tenant_id, op.owner_id)


def as_erased(op: Operation, erased: Collection[Unit]) -> Operation:
    """``op`` as a reader sees it once the keys of ``erased`` are destroyed: those parts are gone.

    A snapshot under an erased key reads as absent (``None``), a payload as :data:`ERASED_PAYLOAD`;
    ids, types, times and the edge (which holds no content) stay. Used by tests to prove that a
    replay of the shredded log ends in the live post-erasure state; the sealed reader
    (``sinks.sealing``) yields exactly this shape.
    """
    before = None if op.before is not None and node_unit(op.before) in erased else op.before
    after = None if op.after is not None and node_unit(op.after) in erased else op.after
    unit = payload_unit(op)
    payload = ERASED_PAYLOAD if unit is not None and unit in erased else op.payload
    if before is op.before and after is op.after and payload is op.payload:
        return op
    return op.model_copy(update={"before": before, "after": after, "payload": dict(payload)})


def is_erased(op: Operation) -> bool:
    """Whether ``op`` is read with its content erased (see :func:`as_erased`): its checksum, computed over
    the content, can no longer be recomputed. The stored record still verifies (``stored_sha256``)."""
    return op.op_type not in CLEAR_OPS and op.payload == ERASED_PAYLOAD


def units_of_erasure(op: Operation) -> set[Unit]:
    """The keys an ERASED operation's erasure destroys: its events' and, for an owner, the owner's."""
    tenant = op.tenant_id
    units: set[Unit] = set()
    events = op.payload.get("events")
    for ref in events if isinstance(events, list) else []:
        if isinstance(ref, str) and "/" in ref:
            owner, _, event_id = ref.partition("/")
            units.add(event_unit(tenant, owner, event_id))
    subject = op.payload.get("subject_owner")
    if op.payload.get("kind") == "owner" and isinstance(subject, str):
        units.add(owner_unit(tenant, subject))
    return units
