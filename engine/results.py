"""What one reducer step returns, and how an outcome is derived from operations.

The outcome is a pure function of the operations an input produced, so a
request-id retry answered from the store (live or rebuilt by replay) returns
exactly what the first attempt returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

import schemas.errors as errors_module
from engine.snapshots import construct
from schemas.enums import OpType, TargetType
from schemas.errors import EpistreamError
from schemas.operations import Operation

Status = Literal["applied", "duplicate", "rejected"]


class Outcome(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    status: Status
    input_id: str
    request_id: str | None = None
    #: Every node this input created or changed, in order of first appearance.
    node_ids: tuple[str, ...] = ()
    #: Nodes this input created (ASSERT operations).
    created_node_ids: tuple[str, ...] = ()
    op_ids: tuple[str, ...] = ()
    error_code: str | None = None
    error_class: str | None = None
    error_message: str | None = None
    #: True when this outcome answers an exact request-id retry from the record.
    retried: bool = False
    #: Claim indexes skipped because they broke a creation rule (extraction only).
    skipped_claims: tuple[int, ...] = ()


class ApplyResult:
    """What one reducer step returns: its operations, and the outcome they amount to.

    An outcome derived from operations is built when first asked for: the ingest paths read
    only ``status`` and ``operations``, and building a model per input was ~5% of the reducer.
    """

    __slots__ = ("_origin", "_outcome", "operations", "status")

    def __init__(self, outcome: Outcome, operations: list[Operation] | None = None) -> None:
        self.operations: list[Operation] = [] if operations is None else operations
        self.status: Status = outcome.status
        self._outcome: Outcome | None = outcome
        self._origin: tuple[str, str | None, tuple[int, ...] | None] | None = None

    @classmethod
    def of_operations(
        cls,
        input_id: str,
        request_id: str | None,
        operations: list[Operation],
        skipped_claims: tuple[int, ...] | None = None,
    ) -> ApplyResult:
        """The result of an input that produced ``operations`` (see :func:`outcome_from_operations`)."""
        result = cls.__new__(cls)
        result.operations = operations
        result.status = "applied"
        for op in operations:
            if op.op_type is OpType.COMMAND_REJECTED:
                result.status = "rejected"
                break
        result._outcome = None
        result._origin = (input_id, request_id, skipped_claims)
        return result

    @property
    def outcome(self) -> Outcome:
        outcome = self._outcome
        if outcome is None:
            assert self._origin is not None
            input_id, request_id, skipped = self._origin
            outcome = self._outcome = outcome_from_operations(input_id, request_id, self.operations, skipped)
        return outcome

    @property
    def ok(self) -> bool:
        """Applied, or a harmless repeat (duplicate input / exact retry of an applied request)."""
        return self.status != "rejected"

    def raise_for_error(self) -> None:
        """Re-raise a journaled rejection as its typed error (for API callers)."""
        if self.status != "rejected":
            return
        outcome = self.outcome
        cls = getattr(errors_module, outcome.error_class or "", None)
        if not (isinstance(cls, type) and issubclass(cls, EpistreamError)):
            cls = EpistreamError
        raise cls(outcome.error_message or "command rejected", code=outcome.error_code)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ApplyResult):
            return NotImplemented
        return self.outcome == other.outcome and self.operations == other.operations

    __hash__ = None  # type: ignore[assignment]  # holds a list, as the dataclass it replaced did

    def __repr__(self) -> str:
        return f"ApplyResult(outcome={self.outcome!r}, operations={self.operations!r})"


_OUTCOME_DEFAULTS = {name: field.get_default(call_default_factory=True) for name, field in Outcome.model_fields.items()}


def make_outcome(**fields: Any) -> Outcome:
    """``Outcome(**fields)`` without re-validating values the engine built itself."""
    return construct(Outcome, {**_OUTCOME_DEFAULTS, **fields}, set(fields))


def outcome_from_operations(
    input_id: str, request_id: str | None, ops: Sequence[Operation], skipped_claims: tuple[int, ...] | None = None
) -> Outcome:
    # One pass and one construction: this runs once per input on the reducer's hot path.
    node_ids: dict[str, None] = {}
    created: list[str] = []
    rejected: Operation | None = None
    for op in ops:
        op_type = op.op_type
        if op_type is OpType.COMMAND_REJECTED:
            if rejected is None:
                rejected = op
            continue
        if op.target_type is TargetType.NODE:
            node_ids.setdefault(op.target_id, None)
        if op_type is OpType.ASSERT:
            created.append(op.target_id)
    op_ids = tuple(op.op_id for op in ops)
    if rejected is not None:
        payload = rejected.payload
        return make_outcome(
            status="rejected",
            input_id=input_id,
            request_id=request_id,
            op_ids=op_ids,
            error_code=str(payload.get("code")),
            error_class=str(payload.get("error_class")),
            error_message=str(payload.get("message")),
        )
    applied: dict[str, Any] = {
        "status": "applied",
        "input_id": input_id,
        "request_id": request_id,
        "node_ids": tuple(node_ids),
        "created_node_ids": tuple(created),
        "op_ids": op_ids,
    }
    if skipped_claims is not None:  # only extractions report it (and only then is it a set field)
        applied["skipped_claims"] = skipped_claims
    return make_outcome(**applied)
