"""What chat platforms publish, and how raw bytes become a ConversationEvent.

``parse_event`` is the single admission gate for the stream, the CLI and the
HTTP API: it turns any bad input into :class:`InvalidEvent` with a stable
reason code, so dead-letter records and API errors say the same thing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Literal

from pydantic import Field, JsonValue, ValidationError, ValidationInfo, field_validator, model_validator

from schemas.canonical import sha256_hex
from schemas.common import Contract, ExternalId, ScopeRef, UtcDatetime, added_field
from schemas.enums import PrincipalKind, Role
from schemas.errors import EventIdConflict, InvalidEvent
from schemas.task_state import TaskState, TaskStateCodes
from schemas.visibility import Visibility

DEFAULT_MAX_CONTENT_BYTES: Final = 32 * 1024
MAX_METADATA_BYTES: Final = 16 * 1024
MAX_METADATA_KEYS: Final = 64
#: Attachments a message may describe (shared photos, files): their captions are part of its text.
MAX_ATTACHMENTS: Final = 16
#: Hard ceiling on one serialized event, whatever the content limit says.
MAX_EVENT_BYTES: Final = 1024 * 1024


class EventCodes:
    """Stable reason codes for rejected events (dead letters, API errors)."""

    INVALID_UTF8 = "invalid_utf8"
    INVALID_JSON = "invalid_json"
    #: A record with a value of no bytes (or only whitespace); a Kafka record with no value at all is
    #: ``null_value`` (streams.agents.NULL_VALUE), so a dead letter tells the two apart.
    EMPTY_EVENT = "empty_event"
    NOT_AN_OBJECT = "not_an_object"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    CONTENT_TOO_LARGE = "content_too_large"
    METADATA_TOO_LARGE = "metadata_too_large"
    NAIVE_TIMESTAMP = "naive_timestamp"
    INVALID_TIMESTAMP = "invalid_timestamp"
    UNKNOWN_ROLE = "unknown_role"
    UNKNOWN_SCOPE = "unknown_scope"
    EMPTY_ID = "empty_id"
    INVALID_ID = "invalid_id"
    MISSING_FIELD = "missing_field"
    UNKNOWN_FIELD = "unknown_field"
    UNSUPPORTED_SCHEMA_VERSION = "unsupported_schema_version"
    SCHEMA_VIOLATION = "schema_violation"
    OCCURRED_IN_FUTURE = "occurred_at_in_future"
    OCCURRED_BEFORE_FLOOR = "occurred_at_before_floor"
    #: ``expires_at`` is not after ``occurred_at``: what the message says would be stale when said.
    EXPIRES_BEFORE_OCCURRED = "expires_at_not_after_occurred_at"
    #: ``visibility`` is not ``private``, ``shared`` or ``group:<name>`` (``schemas.visibility``).
    INVALID_VISIBILITY = "invalid_visibility"
    EVENT_ID_CONFLICT = EventIdConflict.code
    TASK_COMPLETION_UNVERIFIED = TaskStateCodes.COMPLETION_UNVERIFIED
    INVALID_TASK_STATE = TaskStateCodes.INVALID


class Attachment(Contract):
    """Something shared with a message, as the platform describes it (the bytes never come here).

    Its ``caption`` (or ``alt_text``) is part of what the message says: "look 👇" with a photo
    captioned "our new puppy, a beagle" tells memory about a beagle.
    """

    kind: str = Field(default="file", min_length=1, max_length=32, description="image, file, audio, video, link…")
    caption: str | None = Field(default=None, max_length=2000)
    alt_text: str | None = Field(default=None, max_length=2000)
    name: str | None = Field(default=None, max_length=256, description="File name, if any.")

    @property
    def description(self) -> str | None:
        """The text that describes it: the caption, else the alt text (blank counts as none)."""
        for value in (self.caption, self.alt_text):
            if value is not None and value.strip():
                return value.strip()
        return None


class ConversationEvent(ScopeRef):
    """One message in a conversation, as published to ``conversation.events``."""

    schema_version: Literal[1] = 1
    event_id: ExternalId
    conversation_id: ExternalId | None = None
    session_id: ExternalId | None = None
    role: Role
    #: Who wrote the message, as the platform names them: a display name (``speaker``) and a stable
    #: id (``speaker_id``). Taken as given, never inferred from the text.
    speaker: str | None = Field(default=None, max_length=200)
    speaker_id: ExternalId | None = added_field()
    content: str
    occurred_at: UtcDatetime
    #: The sender's UTC offset when the message was written, taken from ``occurred_at`` as sent
    #: (times are kept in UTC): "yesterday" at 21:30 -04:00 is the sender's day, not UTC's.
    utc_offset_minutes: int | None = added_field(ge=-18 * 60, le=18 * 60)
    #: Set by the ingestion edge (API, publisher) when the event was accepted;
    #: the reducer uses it as ``recorded_at`` (knowledge time).
    received_at: UtcDatetime | None = None
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    attachments: tuple[Attachment, ...] = added_field((), max_length=MAX_ATTACHMENTS)
    #: SHA-256 of ``content`` as the platform sent it, set by admission when masking changed the
    #: content (the original is never kept). Omitted while unset, so an event without secrets
    #: serializes as before.
    source_sha256: str | None = added_field(None, pattern=r"^[0-9a-f]{64}$")
    #: The kind of principal the event arrived through (TRUST-FACTS §3), written by the ingestion edge
    #: from the API key or the publisher's configured source; a value the caller sent can only narrow
    #: it (``schemas.roles.narrow_principal``). None = a trusted relay, as before channels existed.
    channel: PrincipalKind | None = added_field()
    #: Until when what this message says holds (TRUST-FACTS §4): its claims carry it and are stale once it
    #: has passed (a derived condition, not a lifecycle state) until revalidated. Omitted while unset.
    expires_at: UtcDatetime | None = added_field()
    #: A task continuation capsule the message carries (TRUST-FACTS §5): it becomes a ``task_state``
    #: claim of this event, with the evidence kind its role and channel give (``schemas.task_state``).
    task_state: TaskState | None = added_field()
    #: Who may read the claims of this message across owners of the tenant (``schemas.visibility``):
    #: ``private`` (unset), ``shared`` or ``group:<name>``. Omitted while unset.
    visibility: Visibility | None = added_field()

    @model_validator(mode="after")
    def _expiry_after_occurrence(self) -> ConversationEvent:
        if self.expires_at is not None and self.expires_at <= self.occurred_at:
            raise ValueError(f"{EventCodes.EXPIRES_BEFORE_OCCURRED}: expires_at must be after occurred_at")
        return self

    @model_validator(mode="before")
    @classmethod
    def _sender_offset(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("utc_offset_minutes") is None:
            offset = _offset_minutes(data.get("occurred_at"))
            if offset is not None:
                data = {**data, "utc_offset_minutes": offset}
        return data

    @field_validator("content")
    @classmethod
    def _content_size(cls, value: str, info: ValidationInfo) -> str:
        limit = DEFAULT_MAX_CONTENT_BYTES
        if isinstance(info.context, dict):
            limit = int(info.context.get("max_content_bytes", limit))
        if len(value.encode("utf-8")) > limit:
            raise ValueError(f"{EventCodes.CONTENT_TOO_LARGE}: content exceeds {limit} bytes")
        return value

    @field_validator("metadata")
    @classmethod
    def _metadata_size(cls, value: dict[str, JsonValue]) -> dict[str, JsonValue]:
        if len(value) > MAX_METADATA_KEYS or len(json.dumps(value, default=str)) > MAX_METADATA_BYTES:
            raise ValueError(f"{EventCodes.METADATA_TOO_LARGE}: metadata exceeds the limit")
        return value

    @property
    def content_sha256(self) -> str:
        """The original content's digest: kept by admission when it masked a secret, else the content's."""
        return self.source_sha256 if self.source_sha256 is not None else sha256_hex(self.content)

    @property
    def text(self) -> str:
        """What the message says: its content, then one line per described attachment (``[image: …]``).

        Extraction quotes from this text and the message's excerpt shows it, so a claim taken from a
        caption cites the caption.
        """
        described = [(a.kind, a.description) for a in self.attachments]
        lines = [f"[{kind}: {text}]" for kind, text in described if text]
        return "\n".join([self.content, *lines]) if lines else self.content

    @property
    def recorded_at(self) -> UtcDatetime:
        return self.received_at or self.occurred_at


def _offset_minutes(value: Any) -> int | None:
    """The UTC offset of a timestamp as sent (None when it has none or cannot be read)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            return None
    if isinstance(value, datetime):
        offset = value.utcoffset()
        return None if offset is None else int(offset.total_seconds() // 60)
    return None


def _code_for(error: ValidationError) -> tuple[str, str]:
    """Map the first pydantic error to a stable code and a value-free message."""
    first = error.errors(include_input=False, include_url=False)[0]
    loc = ".".join(str(p) for p in first["loc"]) or "event"
    kind = first["type"]
    msg = str(first.get("msg", ""))
    field = str(first["loc"][0]) if first["loc"] else ""
    if EventCodes.EXPIRES_BEFORE_OCCURRED in msg:
        return EventCodes.EXPIRES_BEFORE_OCCURRED, "expires_at: must be after occurred_at"
    for code in (EventCodes.CONTENT_TOO_LARGE, EventCodes.METADATA_TOO_LARGE):
        if code in msg:
            return code, f"{loc}: too large"
    if field == "task_state":
        if TaskStateCodes.COMPLETION_UNVERIFIED in msg:
            return TaskStateCodes.COMPLETION_UNVERIFIED, f"{loc}: {msg.split(': ', 1)[-1]}"
        return TaskStateCodes.INVALID, f"{loc}: {kind}"
    if kind == "missing":
        return EventCodes.MISSING_FIELD, f"{loc}: required"
    if kind == "extra_forbidden":
        return EventCodes.UNKNOWN_FIELD, f"{loc}: not a known field"
    if kind == "timezone_aware" or "timezone-aware" in msg:
        return EventCodes.NAIVE_TIMESTAMP, f"{loc}: must include a timezone"
    if field in {"occurred_at", "received_at", "expires_at"}:
        return EventCodes.INVALID_TIMESTAMP, f"{loc}: not an ISO-8601 timestamp"
    if field == "visibility":
        return EventCodes.INVALID_VISIBILITY, f"{loc}: not private, shared or group:<name>"
    if field == "role":
        return EventCodes.UNKNOWN_ROLE, f"{loc}: not one of {', '.join(r.value for r in Role)}"
    if field == "scope":
        return EventCodes.UNKNOWN_SCOPE, f"{loc}: not a known scope"
    if field == "schema_version":
        return EventCodes.UNSUPPORTED_SCHEMA_VERSION, f"{loc}: unsupported schema version"
    if field.endswith("_id"):
        if kind in {"string_too_short", "missing"}:
            return EventCodes.EMPTY_ID, f"{loc}: must not be empty"
        return EventCodes.INVALID_ID, f"{loc}: invalid identifier"
    return EventCodes.SCHEMA_VIOLATION, f"{loc}: {kind}"


@dataclass(frozen=True, slots=True)
class TimeBounds:
    """When an event may say it happened, relative to when it was received.

    Knowledge time comes from the receiving component; ``occurred_at`` is the platform's word, and
    an event dated far ahead would pin its value (a later "I moved" could never supersede it).
    """

    max_future: timedelta = timedelta(hours=24)
    floor: datetime = datetime(2000, 1, 1, tzinfo=UTC)

    def check(self, event: ConversationEvent, now: datetime) -> None:
        """Raise :class:`InvalidEvent` when ``occurred_at`` is beyond ``now`` (its receive time, else the
        receiving clock) by more than ``max_future``, or before ``floor``."""
        received = event.received_at or now
        if event.occurred_at > received + self.max_future:
            raise InvalidEvent(
                f"occurred_at is more than {self.max_future} after it was received",
                code=EventCodes.OCCURRED_IN_FUTURE,
            )
        if event.occurred_at < self.floor:
            raise InvalidEvent(f"occurred_at is before {self.floor.date()}", code=EventCodes.OCCURRED_BEFORE_FLOOR)


def validate_event(data: Any, *, max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES) -> ConversationEvent:
    """Validate a decoded JSON value; raise :class:`InvalidEvent` with a stable code."""
    if not isinstance(data, dict):
        raise InvalidEvent("event must be a JSON object", code=EventCodes.NOT_AN_OBJECT)
    for key in ("event_id", "tenant_id", "owner_id"):
        value = data.get(key)
        if isinstance(value, str) and not value.strip():
            raise InvalidEvent(f"{key}: must not be empty", code=EventCodes.EMPTY_ID, field=key)
    try:
        return ConversationEvent.model_validate(data, context={"max_content_bytes": max_content_bytes})
    except ValidationError as exc:
        code, message = _code_for(exc)
        raise InvalidEvent(message, code=code) from None


def parse_event(raw: bytes | str, *, max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES) -> ConversationEvent:
    """Admit raw bytes from Kafka, a file line or an HTTP body."""
    if isinstance(raw, bytes):
        if len(raw) > MAX_EVENT_BYTES:
            raise InvalidEvent("event exceeds the maximum serialized size", code=EventCodes.PAYLOAD_TOO_LARGE)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidEvent("event is not valid UTF-8", code=EventCodes.INVALID_UTF8) from None
    else:
        text = raw
        if len(text.encode("utf-8", "surrogatepass")) > MAX_EVENT_BYTES:
            raise InvalidEvent("event exceeds the maximum serialized size", code=EventCodes.PAYLOAD_TOO_LARGE)
    if not text.strip():
        raise InvalidEvent("event is empty", code=EventCodes.EMPTY_EVENT)
    if text.startswith("\ufeff"):
        # RFC 8259 §8.1 lets a parser ignore a byte order mark; editors and Windows exports write
        # one at the start of a JSON-lines file, which would make its first event a dead letter.
        text = text[1:]
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise InvalidEvent("event is not valid JSON", code=EventCodes.INVALID_JSON) from None
    return validate_event(data, max_content_bytes=max_content_bytes)
