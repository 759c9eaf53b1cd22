"""Records kept beside the operation log: raw events as stored, and dead letters.

Both are written by the ingestion path (embedded runner, stream workers, API) and
read by operators (``dlq list``, provenance), so their shape is a contract of its own.
"""

from __future__ import annotations

from pydantic import Field, JsonValue

from schemas.canonical import derive_id
from schemas.common import Contract, UtcDatetime
from schemas.enums import Role, Scope
from schemas.events import Attachment, ConversationEvent


class StoredEvent(Contract):
    """A raw event as stored: content already masked, hash of the original content."""

    event_id: str
    tenant_id: str
    owner_id: str
    scope: Scope
    scope_id: str | None = None
    conversation_id: str | None = None
    session_id: str | None = None
    role: Role
    speaker: str | None = None
    content: str
    content_sha256: str
    occurred_at: UtcDatetime
    recorded_at: UtcDatetime
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    ingested_seq: int = 0
    speaker_id: str | None = None
    attachments: tuple[Attachment, ...] = ()
    utc_offset_minutes: int | None = None
    #: ``schemas.visibility``; None (private) for rows written before visibility existed.
    visibility: str | None = None

    def as_event(self) -> ConversationEvent:
        """The event as admitted (its stored, masked content): what excerpts are rebuilt from."""
        return ConversationEvent.model_construct(
            tenant_id=self.tenant_id, owner_id=self.owner_id, scope=self.scope, scope_id=self.scope_id,
            event_id=self.event_id, conversation_id=self.conversation_id, session_id=self.session_id,
            role=self.role, speaker=self.speaker, speaker_id=self.speaker_id, content=self.content,
            occurred_at=self.occurred_at, utc_offset_minutes=self.utc_offset_minutes, received_at=self.recorded_at,
            metadata=self.metadata, attachments=self.attachments, visibility=self.visibility,
        )  # fmt: skip


#: Largest number of (masked) bytes a dead letter keeps; its ``original_length`` says how long the input was.
MAX_DEAD_LETTER_BYTES = 64 * 1024


class DeadLetter(Contract):
    """Input that could not be processed: its bytes with secrets masked, and where the original is.

    The original bytes are never kept (they may hold a credential): ``masked_bytes`` is what they
    say with every secret replaced by ``[REDACTED:<kind>]`` (at most ``MAX_DEAD_LETTER_BYTES``),
    ``original_sha256`` and ``original_length`` identify the original, and ``source`` with
    ``partition``/``offset`` (a topic) or ``offset`` alone (a file's line number) say where to re-read
    it while the source retains it.
    """

    source: str = Field(min_length=1, max_length=200)
    partition: int | None = None
    offset: int | None = None
    reason_code: str = Field(min_length=1, max_length=100)
    message: str = Field(default="", max_length=4000)
    masked_bytes: bytes = Field(max_length=MAX_DEAD_LETTER_BYTES)
    original_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    original_length: int = Field(ge=0)
    received_at: UtcDatetime

    @property
    def truncated(self) -> bool:
        """Whether ``masked_bytes`` holds only the first part of a longer input."""
        return self.original_length > len(self.masked_bytes) and self.original_length > MAX_DEAD_LETTER_BYTES

    @property
    def dlq_id(self) -> str:
        """Stable across redelivery: the source coordinates and the original's digest (the digest alone without them).

        One batched record (memory.extractions holds one record per partition of a batch) can yield
        several letters at the same coordinates, one per input the reducer refused; the digest of each
        keeps them apart, where the coordinates alone made the table keep one of them.
        """
        digest = self.original_sha256
        if self.offset is not None:
            partition = self.partition if self.partition is not None else -1
            return derive_id("dlq", self.source, partition, self.offset, digest)
        return derive_id("dlq", self.source, digest)
