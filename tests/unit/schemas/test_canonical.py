"""schemas.canonical helpers (hashing, ISO text); expectations come from hashlib and datetime."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta, timezone

import pytest

from schemas.canonical import iso, sha256_hex


@pytest.mark.parametrize("size", [0, 1, 2046, 2047, 2048, 2049, 4094, 4095, 4096, 10_000])
def test_sha256_hex_in_pieces_equals_hashlib(size: int) -> None:
    """Long texts are hashed in pieces (so hashlib keeps the GIL); the digest must not change."""
    data = bytes((i * 31 + 7) % 251 for i in range(size))
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
    text = "é" * size  # str input: hashed as its UTF-8
    assert sha256_hex(text) == hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (datetime(2026, 3, 1, 9, 30, 5, 7, tzinfo=UTC), "2026-03-01T09:30:05.000007Z"),
        (datetime(2026, 3, 1, 11, 30, tzinfo=timezone(timedelta(hours=2))), "2026-03-01T09:30:00.000000Z"),
        (datetime(999, 1, 1, tzinfo=UTC), "0999-01-01T00:00:00.000000Z"),  # four digits, as ISO-8601 wants
        (datetime(1, 1, 1, tzinfo=UTC), "0001-01-01T00:00:00.000000Z"),
    ],
)
def test_iso_is_four_digit_utc_with_microseconds_and_parses_back(value: datetime, text: str) -> None:
    assert iso(value) == text
    assert datetime.fromisoformat(text.replace("Z", "+00:00")) == value


def test_iso_refuses_naive_datetimes() -> None:
    with pytest.raises(ValueError):
        iso(datetime(2026, 1, 1))
