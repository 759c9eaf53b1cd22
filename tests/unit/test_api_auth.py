"""The key ring: expiry, revocation, reload without restart, and unknown tokens that cost nothing twice."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from epistream.api.auth import NEEDS_SCRYPT, ApiKeyRing, hash_key_scrypt, hash_key_sha256
from epistream.api.limits import TokenBucketLimiter
from schemas.errors import AuthError, RateLimited, ValidationFailed

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def _entry(key_id: str, token: str, **extra: Any) -> dict[str, Any]:
    return {"id": key_id, "tenant_id": "t1", "permissions": ["read"], "sha256": hash_key_sha256(token), **extra}


def _write(path: Path, entries: list[dict[str, Any]]) -> None:
    path.write_text(json.dumps({"keys": entries}))
    # A later write must look different even on filesystems with coarse mtimes.
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def _code(exc: pytest.ExceptionInfo[BaseException]) -> str:
    return str(getattr(exc.value, "code", ""))


def test_expired_key_is_refused_with_its_own_code() -> None:
    clock = [NOW]
    ring = ApiKeyRing.from_mapping(
        {"keys": [_entry("a", "tok-a", expires_at=(NOW + timedelta(hours=1)).isoformat())]},
        clock=lambda: clock[0],
    )
    assert ring.authenticate("Bearer tok-a").id == "a"
    clock[0] = NOW + timedelta(hours=1)
    with pytest.raises(AuthError) as err:
        ring.authenticate("Bearer tok-a")
    assert _code(err) == "key_expired"


def test_expiry_without_timezone_is_an_invalid_file() -> None:
    with pytest.raises(ValidationFailed) as err:
        ApiKeyRing.from_mapping({"keys": [_entry("a", "tok-a", expires_at="2026-06-01T12:00:00")]})
    assert _code(err) == "invalid_api_keys"


def test_a_key_file_that_is_a_bare_list_is_an_invalid_file(tmp_path: Path) -> None:
    """A JSON list is not the ``{"keys": [...]}`` document: a typed error, never a traceback."""
    path = tmp_path / "keys.json"
    path.write_text("[]")
    with pytest.raises(ValidationFailed) as err:
        ApiKeyRing.from_file(path)
    assert _code(err) == "invalid_api_keys"


def test_revoked_key_is_refused_and_its_id_stays_taken() -> None:
    ring = ApiKeyRing.from_mapping({"keys": [_entry("a", "tok-a", revoked=True), _entry("b", "tok-b")]})
    with pytest.raises(AuthError) as err:
        ring.authenticate("Bearer tok-a")
    assert _code(err) == "key_revoked"
    assert ring.authenticate("Bearer tok-b").id == "b"
    with pytest.raises(ValidationFailed):
        ApiKeyRing.from_mapping({"keys": [_entry("a", "tok-a", revoked=True), _entry("a", "tok-c")]})


def test_key_file_changes_take_effect_without_restart(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    _write(path, [_entry("a", "tok-a")])
    ring = ApiKeyRing.from_file(path, reload_every_s=0.0)
    assert ring.authenticate("Bearer tok-a").id == "a"
    # Rotate: a new key is added and the old one revoked, in one edit.
    _write(path, [_entry("a", "tok-a", revoked=True), _entry("a2", "tok-a2")])
    assert ring.authenticate("Bearer tok-a2").id == "a2"
    with pytest.raises(AuthError) as err:
        ring.authenticate("Bearer tok-a")
    assert _code(err) == "key_revoked"


def test_a_broken_key_file_keeps_the_keys_read_last(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    _write(path, [_entry("a", "tok-a")])
    ring = ApiKeyRing.from_file(path, reload_every_s=0.0)
    path.write_text('{"keys": [ {"id": ')
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
    assert ring.reload_if_changed() is False
    assert ring.authenticate("Bearer tok-a").id == "a"
    _write(path, [])  # a valid file with no keys closes every door, as written
    with pytest.raises(AuthError):
        ring.authenticate("Bearer tok-a")


def test_reload_is_rate_limited(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    _write(path, [_entry("a", "tok-a")])
    ring = ApiKeyRing.from_file(path, reload_every_s=3600.0)
    _write(path, [_entry("b", "tok-b")])
    with pytest.raises(AuthError):  # not re-read yet: the file is stat'ed at most once an hour here
        ring.authenticate("Bearer tok-b")
    assert ring.reload_if_changed() is True
    assert ring.authenticate("Bearer tok-b").id == "b"


def test_an_unknown_token_is_checked_against_scrypt_once(monkeypatch: pytest.MonkeyPatch) -> None:
    hashed = hash_key_scrypt("tok-s", n=2**10)
    ring = ApiKeyRing.from_mapping(
        {"keys": [{"id": "s", "tenant_id": "t1", "permissions": ["read"], "scrypt": hashed}]}, negative_ttl_s=60.0
    )
    import epistream.api.auth as auth

    calls: list[str] = []
    real = auth._scrypt_verify

    def counting(stored: str, token: str) -> bool:
        calls.append(token)
        return real(stored, token)

    monkeypatch.setattr(auth, "_scrypt_verify", counting)
    assert ring.lookup("Bearer guess-1") is NEEDS_SCRYPT
    with pytest.raises(AuthError):
        ring.verify_slow("Bearer guess-1")
    for _ in range(5):
        with pytest.raises(AuthError):
            ring.authenticate("Bearer guess-1")
    assert calls == ["guess-1"]
    # The real key is verified once, then served from memory.
    assert ring.authenticate("Bearer tok-s").id == "s"
    assert ring.authenticate("Bearer tok-s").id == "s"
    assert calls == ["guess-1", "tok-s"]


def test_sha256_only_rings_never_ask_for_scrypt() -> None:
    ring = ApiKeyRing.from_mapping({"keys": [_entry("a", "tok-a")]})
    with pytest.raises(AuthError):
        ring.lookup("Bearer nope")
    assert ring.lookup("Bearer tok-a") is not NEEDS_SCRYPT


@pytest.mark.parametrize("header", [None, "", "Basic abc", "Bearer ", "Bearer " + "x" * 513])
def test_malformed_headers_are_refused_before_any_hashing(header: str | None) -> None:
    ring = ApiKeyRing.from_mapping({"keys": [_entry("a", "tok-a")]})
    with pytest.raises(AuthError):
        ring.authenticate(header)


def test_failure_counting_bucket_refuses_after_the_burst_and_refills() -> None:
    now = [0.0]
    limiter = TokenBucketLimiter(1.0, 3, clock=lambda: now[0])
    limiter.peek("1.2.3.4")  # unknown addresses pass
    for _ in range(5):  # failures spend what there is, never raise
        limiter.take("1.2.3.4", raise_when_empty=False)
    with pytest.raises(RateLimited) as err:
        limiter.peek("1.2.3.4")
    assert err.value.details["retry_after_s"] >= 1
    limiter.peek("5.6.7.8")  # another address is not affected
    now[0] = 1.0
    limiter.peek("1.2.3.4")
    time.sleep(0)  # the limiter reads only its clock
