"""Dead letters: bad input kept whole, with where it came from and why it failed.

Nothing is dropped silently: the original bytes travel with a stable reason
code so an operator can inspect, fix and re-drive the record.
"""

from __future__ import annotations

import base64
from typing import Literal

from pydantic import Field

from schemas.canonical import derive_id, sha256_hex
from schemas.common import Contract, UtcDatetime


class DeadLetter(Contract):
    schema_version: Literal[1] = 1
    dlq_id: str
    #: Topic name, file name or API route the record came from.
    source: str
    partition: int | None = None
    offset: int | None = None
    reason_code: str
    #: A value-free explanation (field names, limits), never the content itself.
    message: str = Field(default="", max_length=2000)
    original_b64: str
    original_sha256: str
    received_at: UtcDatetime

    @property
    def original(self) -> bytes:
        return base64.b64decode(self.original_b64)

    @classmethod
    def build(
        cls,
        original: bytes,
        *,
        source: str,
        reason_code: str,
        message: str,
        received_at: UtcDatetime,
        partition: int | None = None,
        offset: int | None = None,
    ) -> DeadLetter:
        """Derive the id from the coordinates (or the bytes) so a redelivery dedups."""
        digest = sha256_hex(original)
        coords = f"{source}|{partition}|{offset}" if offset is not None else f"{source}|{digest}"
        return cls(
            dlq_id=derive_id("dead-letter", coords),
            source=source,
            partition=partition,
            offset=offset,
            reason_code=reason_code,
            message=message,
            original_b64=base64.b64encode(original).decode("ascii"),
            original_sha256=digest,
            received_at=received_at,
        )
