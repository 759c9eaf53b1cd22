"""The append-only operation log record and its checksum.

An operation is self-verifying: ``checksum`` is the SHA-256 of the canonical
JSON of every other field, so a tampered row (changed payload, snapshot, id or
time) is detected on read by :func:`verify_operation`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, JsonValue

from schemas.canonical import canonical_json, sha256_hex
from schemas.common import ActorRef, ScopeRef, UtcDatetime
from schemas.enums import OpType, TargetType
from schemas.errors import ChecksumMismatch
from schemas.nodes import Edge, MemoryNode


class Operation(ScopeRef):
    schema_version: Literal[1] = 1
    op_id: str
    op_type: OpType
    #: Position of this operation among those produced by one input.
    op_index: int = Field(ge=0)
    target_id: str
    target_type: TargetType = TargetType.NODE
    actor: ActorRef
    payload: dict[str, JsonValue] = Field(default_factory=dict)
    before: MemoryNode | None = None
    after: MemoryNode | None = None
    edge: Edge | None = None
    evidence_ids: tuple[str, ...] = ()
    request_id: str | None = None
    caused_by: str
    occurred_at: UtcDatetime
    policy_version: str
    checksum: str = ""

    def body(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude={"checksum"})

    def compute_checksum(self) -> str:
        return sha256_hex(canonical_json(self.body()))

    def sealed(self) -> Operation:
        """Return a copy whose checksum covers every other field."""
        return self.model_copy(update={"checksum": self.compute_checksum()})

    def canonical(self) -> str:
        return canonical_json(self.model_dump(mode="json"))


def verify_operation(op: Operation) -> Operation:
    """Raise :class:`ChecksumMismatch` unless the record is exactly as sealed."""
    if not op.checksum or op.checksum != op.compute_checksum():
        raise ChecksumMismatch("operation checksum does not match its content", op_id=op.op_id)
    return op


def load_operation(data: str | bytes | dict[str, Any]) -> Operation:
    """Parse and verify a stored operation (JSON text or decoded dict)."""
    op = Operation.model_validate(data) if isinstance(data, dict) else Operation.model_validate_json(data)
    return verify_operation(op)
