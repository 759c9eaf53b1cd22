"""Canonical JSON and derived identifiers.

Replay, retries and duplicate delivery are safe only if the same input gives
byte-identical output. Everything that is hashed or turned into an id goes
through these helpers, so there is exactly one definition of "canonical".
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import UTC, datetime
from typing import Any

#: Namespace for every id epistream derives (UUIDv5). Never change it: doing so
#: changes every id and breaks idempotency against existing logs.
EPISTREAM_NAMESPACE = uuid.UUID("6f1b2a8e-4c1d-5e7a-9b0c-2d3e4f5a6b7c")


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 text; floats as Python's shortest repr."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


#: hashlib hashes a buffer of 2,048 bytes or more with the GIL released. Taking it back while
#: another thread runs (the embedded runner's store thread, a worker's sink) waits for that
#: thread's switch interval: in the embedded ingest one ``sha256(text)`` per sealed operation
#: cost ~20 µs of waiting against ~1.5 µs of hashing. Texts here are at most a few hundred KiB,
#: so they are hashed in pieces that keep the GIL.
_GIL_KEPT_BELOW = 2048


def sha256_hex(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    if len(data) < _GIL_KEPT_BELOW:
        return hashlib.sha256(data).hexdigest()
    digest = hashlib.sha256()
    view = memoryview(data)
    for start in range(0, len(data), _GIL_KEPT_BELOW - 1):
        digest.update(view[start : start + _GIL_KEPT_BELOW - 1])
    return digest.hexdigest()


def derive_id(*parts: str | int) -> str:
    """UUIDv5 over the parts joined with a separator that ids cannot contain."""
    name = "\x1f".join(str(p) for p in parts)
    return str(uuid.uuid5(EPISTREAM_NAMESPACE, name))


def to_utc(value: datetime) -> datetime:
    """Normalise an aware datetime to UTC so its canonical text is unique."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("datetime must be timezone-aware")
    return value.astimezone(UTC)


def iso(value: datetime) -> str:
    """ISO-8601 in UTC with microseconds and a ``Z`` suffix.

    ``isoformat`` rather than ``strftime("%Y...")``: glibc's ``%Y`` does not pad years below
    1000 to four digits, and ``datetime.fromisoformat`` (and OpenSearch) refuse "999-01-01".
    """
    return to_utc(value).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"
