"""Bearer API keys: stored hashed, bound to one tenant, deny by default.

A key file (JSON or TOML) lists ``keys``; each entry has an ``id`` (the actor
identity commands are journaled under), a ``sha256`` hex digest or an
``scrypt`` string (``scrypt$n$r$p$salt_hex$hash_hex``), a ``tenant_id``,
``permissions`` and optionally ``owners`` / ``scopes`` (``personal``,
``project:abc``, ``project:*``), ``expires_at`` (an ISO time with a timezone), ``revoked``,
``kind`` (the principal kind: ``platform``, ``human`` or ``agent``, TRUST-FACTS §3) and
``actor_type`` (who its commands are journaled as).
Plaintext keys never touch the file. The file is read again when it changes (at most every
``reload_every_s``), so a key is added, revoked or rotated without a restart; a file that no longer
parses keeps the keys read last (an operator's typo never opens or closes every door).

An unknown token must not cost the server: a token seen to fail is remembered (by its SHA-256) for
``negative_ttl_s`` and refused without running scrypt again, and the caller throttles failures per
client address (``epistream.api.context``) and runs scrypt off the event loop.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import threading
import time
import tomllib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from schemas.common import ActorRef
from schemas.enums import ActorType, PrincipalKind, Scope
from schemas.errors import AuthError, PermissionDenied, ValidationFailed
from schemas.roles import actor_type_for_channel
from schemas.visibility import GroupName, readable_by


class Permission(StrEnum):
    READ = "read"
    WRITE = "write"
    ASSERT = "assert"
    DEPRECATE = "deprecate"
    ADMIN = "admin"


class ApiKey(BaseModel):
    """One key's grants; ``owners``/``scopes`` None means "any in the tenant"."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    tenant_id: str = Field(min_length=1, max_length=128)
    permissions: frozenset[Permission] = frozenset()
    owners: frozenset[str] | None = None
    scopes: frozenset[str] | None = None
    actor_type: ActorType = ActorType.AI_AGENT
    #: Who holds the key (TRUST-FACTS §3): authority comes from this channel, never from a field a
    #: request sets. ``platform`` relays conversations (the roles of its events are trusted), ``human``
    #: is a person acting directly (its actor type defaults to HUMAN_USER), ``agent`` a model or an
    #: automation: every event it writes, whatever its role, and every command are model suggestions.
    kind: PrincipalKind = PrincipalKind.PLATFORM
    sha256: str | None = None
    scrypt: str | None = None
    #: After this time the key is refused (``key_expired``); a key without it does not expire.
    expires_at: datetime | None = None
    #: A revoked key is refused (``key_revoked``) but kept in the file, so its id stays taken.
    revoked: bool = False
    #: The groups its holder belongs to (TRUST-FACTS §6): besides the owners it is allowed for, it reads
    #: other owners' records shared with the tenant or with one of these exact groups, never their private
    #: ones (``schemas.visibility``).
    groups: frozenset[GroupName] = frozenset()

    @model_validator(mode="before")
    @classmethod
    def _human_actor(cls, data: Any) -> Any:
        """A person's key acts as a person unless its file says otherwise."""
        if isinstance(data, dict) and "actor_type" not in data and str(data.get("kind", "")).lower() == "human":
            data = {**data, "actor_type": ActorType.HUMAN_USER}
        return data

    @field_validator("expires_at")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("expires_at needs a timezone")
        return value

    @field_validator("sha256")
    @classmethod
    def _hex(cls, value: str | None) -> str | None:
        if value is not None and (len(value) != 64 or any(c not in "0123456789abcdef" for c in value.lower())):
            raise ValueError("sha256 must be 64 hex characters")
        return value.lower() if value is not None else None

    @property
    def actor(self) -> ActorRef:
        """The actor its commands carry: the declared type, narrowed to what the key's kind allows."""
        return ActorRef(actor_id=self.id, actor_type=actor_type_for_channel(self.kind, self.actor_type))

    def has(self, permission: Permission) -> bool:
        return permission in self.permissions or Permission.ADMIN in self.permissions

    def require(self, permission: Permission) -> None:
        if not self.has(permission):
            raise PermissionDenied("this key lacks a permission", permission=permission.value)

    def owner_allowed(self, owner_id: str) -> bool:
        return self.owners is None or owner_id in self.owners

    def scope_allowed(self, scope: Scope, scope_id: str | None) -> bool:
        if self.scopes is None:
            return True
        key = scope.value if scope_id is None else f"{scope.value}:{scope_id}"
        return key in self.scopes or (scope_id is not None and f"{scope.value}:*" in self.scopes)

    def readable(self, owner_id: str) -> frozenset[str] | None:
        """What it may read of ``owner_id``'s memory: everything (None) when allowed for the owner, else
        the owner's shared records and those of its groups."""
        return None if self.owner_allowed(owner_id) else readable_by(self.groups)

    def check_owner(self, owner_id: str) -> None:
        if not self.owner_allowed(owner_id):
            raise PermissionDenied("this key may not act for that owner")

    def check_scope(self, scope: Scope | None, scope_id: str | None) -> None:
        """A scope-restricted key must name an allowed scope: no search spans scopes it may not see."""
        if self.scopes is None:
            return
        if scope is None or not self.scope_allowed(scope, scope_id):
            raise PermissionDenied("this key may not act in that scope")

    def default_owner(self) -> str | None:
        if self.owners is not None and len(self.owners) == 1:
            return next(iter(self.owners))
        return None

    def default_scope(self) -> tuple[Scope, str | None] | None:
        """The one exact scope a key is limited to, if any (lets clients omit it)."""
        if self.scopes is None or len(self.scopes) != 1:
            return None
        (only,) = self.scopes
        name, _, sid = only.partition(":")
        if sid == "*":
            return None
        try:
            return Scope(name), (sid or None)
        except ValueError:
            return None

    def verify(self, token: str, token_sha256: str) -> bool:
        ok = False
        if self.sha256 is not None:
            ok = hmac.compare_digest(self.sha256, token_sha256)
        if self.scrypt is not None:
            ok = _scrypt_verify(self.scrypt, token) or ok
        return ok


def hash_key_sha256(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def hash_key_scrypt(token: str, *, n: int = 2**14, r: int = 8, p: int = 1) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(token.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=32)
    return f"scrypt${n}${r}${p}${salt.hex()}${digest.hex()}"


def _scrypt_verify(stored: str, token: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        got = hashlib.scrypt(
            token.encode("utf-8"), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p), dklen=len(digest) // 2
        )
    except (ValueError, MemoryError):
        return False
    return hmac.compare_digest(got.hex(), digest.lower())


def generate_key() -> str:
    """A fresh random key (the plaintext is shown once; store only its hash)."""
    return "eps_" + secrets.token_urlsafe(32)


_log = logging.getLogger("epistream.api.auth")
#: Result of :meth:`ApiKeyRing.lookup` when only an scrypt check can tell: run :meth:`ApiKeyRing.verify_slow`.
NEEDS_SCRYPT = object()


class ApiKeyRing:
    """The set of known keys; :meth:`authenticate` (or :meth:`lookup` then :meth:`verify_slow`) is the only way in."""

    def __init__(
        self,
        keys: Iterable[ApiKey] = (),
        *,
        source: Path | None = None,
        clock: Callable[[], datetime] | None = None,
        negative_ttl_s: float = 30.0,
        reload_every_s: float = 2.0,
    ) -> None:
        self._set(list(keys))
        self._source = source
        self._stamp = _stamp(source) if source is not None else None
        self._clock = clock or (lambda: datetime.now(UTC))
        self._negative_ttl_s = negative_ttl_s
        self._reload_every_s = reload_every_s
        self._checked_at = time.monotonic()
        self._lock = threading.Lock()

    def _set(self, keys: list[ApiKey]) -> None:
        ids = [k.id for k in keys]
        if len(ids) != len(set(ids)):
            raise ValidationFailed("api key ids must be unique", code="invalid_api_keys")
        for key in keys:
            if key.sha256 is None and key.scrypt is None:
                raise ValidationFailed("an api key needs a sha256 or scrypt hash", code="invalid_api_keys", key=key.id)
        self._keys = keys
        # Positive scrypt verifications and recent failures, keyed by the token's sha256 (never the token).
        self._verified: dict[str, ApiKey] = {}
        self._failed: OrderedDict[str, float] = OrderedDict()

    def __len__(self) -> int:
        return len(self._keys)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], **options: Any) -> ApiKeyRing:
        return cls(_parse_keys(data), **options)

    @classmethod
    def from_file(cls, path: str | Path, **options: Any) -> ApiKeyRing:
        p = Path(path)
        return cls(_read_keys(p), source=p, **options)

    def reload_if_changed(self) -> bool:
        """Read the key file again if it changed since it was read; True when new keys are in force."""
        if self._source is None:
            return False
        stamp = _stamp(self._source)
        if stamp == self._stamp:
            return False
        try:
            keys = _read_keys(self._source)
            with self._lock:
                self._set(keys)
                self._stamp = stamp
        except (OSError, ValidationFailed) as exc:
            _log.error("api key file %s not reloaded (%s); the keys read last stay in force", self._source,
                       getattr(exc, "code", type(exc).__name__))  # fmt: skip
            self._stamp = stamp  # reported once per change of the file
            return False
        _log.info("api key file reloaded: %d keys", len(self._keys))
        return True

    def _maybe_reload(self) -> None:
        now = time.monotonic()
        if self._source is not None and now - self._checked_at >= self._reload_every_s:
            self._checked_at = now
            self.reload_if_changed()

    def authenticate(self, authorization: str | None) -> ApiKey:
        """The key a bearer header names, or :class:`AuthError`; runs scrypt in the calling thread."""
        found = self.lookup(authorization)
        if found is NEEDS_SCRYPT:
            return self.verify_slow(authorization or "")
        assert isinstance(found, ApiKey)
        return found

    def lookup(self, authorization: str | None) -> ApiKey | object:
        """Everything but scrypt: the header's form, SHA-256 keys, remembered results; :data:`NEEDS_SCRYPT`
        when only an scrypt key could still match. Cheap enough for the event loop."""
        self._maybe_reload()
        _token_text, digest = _token(authorization)
        with self._lock:
            cached = self._verified.get(digest)
            failed_until = self._failed.get(digest)
        if cached is not None:
            return self._usable(cached)
        if failed_until is not None and failed_until > time.monotonic():
            raise AuthError("invalid bearer token")
        match: ApiKey | None = None
        # Check every key (no early exit) so timing does not reveal which entry matched.
        for key in self._keys:
            if key.sha256 is not None and hmac.compare_digest(key.sha256, digest) and match is None:
                match = key
        if match is not None:
            return self._usable(match)
        if any(key.scrypt is not None for key in self._keys):
            return NEEDS_SCRYPT
        self._remember_failure(digest)
        raise AuthError("invalid bearer token")

    def verify_slow(self, authorization: str) -> ApiKey:
        """The scrypt check (tens of milliseconds by design): run it off the event loop."""
        token, digest = _token(authorization)
        for key in self._keys:
            if key.scrypt is not None and key.verify(token, digest):
                with self._lock:
                    if len(self._verified) > 10_000:
                        self._verified.clear()
                    self._verified[digest] = key
                return self._usable(key)
        self._remember_failure(digest)
        raise AuthError("invalid bearer token")

    def _remember_failure(self, digest: str) -> None:
        with self._lock:
            self._failed[digest] = time.monotonic() + self._negative_ttl_s
            self._failed.move_to_end(digest)
            while len(self._failed) > 10_000:
                self._failed.popitem(last=False)

    def _usable(self, key: ApiKey) -> ApiKey:
        if key.revoked:
            raise AuthError("this key was revoked", code="key_revoked")
        if key.expires_at is not None and key.expires_at <= self._clock():
            raise AuthError("this key expired", code="key_expired")
        return key


def _token(authorization: str | None) -> tuple[str, str]:
    if not authorization:
        raise AuthError("missing bearer token")
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 512:
        raise AuthError("malformed authorization header")
    return token, hash_key_sha256(token)


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def _parse_keys(data: Mapping[str, Any]) -> list[ApiKey]:
    raw = data.get("keys") if isinstance(data, Mapping) else None  # a bare list or value: no "keys"
    if not isinstance(raw, list):
        raise ValidationFailed("api key file needs a 'keys' list", code="invalid_api_keys")
    try:
        return [ApiKey.model_validate(item) for item in raw]
    except ValueError:
        raise ValidationFailed("api key file has an invalid entry", code="invalid_api_keys") from None


def _read_keys(p: Path) -> list[ApiKey]:
    text = p.read_text("utf-8")
    try:
        data = tomllib.loads(text) if p.suffix.lower() == ".toml" else json.loads(text)
    except (ValueError, tomllib.TOMLDecodeError):
        raise ValidationFailed("api key file is not valid JSON/TOML", code="invalid_api_keys") from None
    return _parse_keys(data)
