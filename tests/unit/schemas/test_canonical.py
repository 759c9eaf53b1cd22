"""Hashing helpers of schemas.canonical; expectations come from hashlib, not the code under test."""

from __future__ import annotations

import hashlib

import pytest

from schemas.canonical import sha256_hex


@pytest.mark.parametrize("size", [0, 1, 2046, 2047, 2048, 2049, 4094, 4095, 4096, 10_000])
def test_sha256_hex_in_pieces_equals_hashlib(size: int) -> None:
    """Long texts are hashed in pieces (so hashlib keeps the GIL); the digest must not change."""
    data = bytes((i * 31 + 7) % 251 for i in range(size))
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
    text = "é" * size  # str input: hashed as its UTF-8
    assert sha256_hex(text) == hashlib.sha256(text.encode("utf-8")).hexdigest()
