"""Bearer API keys: stored hashed, bound to one tenant, deny by default.

A key file (JSON or TOML) lists ``keys``; each entry has an ``id`` (the actor
identity commands are journaled under), a ``sha256`` hex digest or an
``scrypt`` string (``scrypt$n$r$p$salt_hex$hash_hex``), a ``tenant_id``,
``permissions`` and optionally ``owners`` / ``scopes`` (``personal``,
``project:abc``, ``project:*``). Plaintext keys never touch the file.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
import tomllib
from collections.abc import Iterable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from schemas.common import ActorRef
from schemas.enums import ActorType, Scope
from schemas.errors import AuthError, PermissionDenied, ValidationFailed


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
    sha256: str | None = None
    scrypt: str | None = None

    @field_validator("sha256")
    @classmethod
    def _hex(cls, value: str | None) -> str | None:
        if value is not None and (len(value) != 64 or any(c not in "0123456789abcdef" for c in value.lower())):
            raise ValueError("sha256 must be 64 hex characters")
        return value.lower() if value is not None else None

    @property
    def actor(self) -> ActorRef:
        return ActorRef(actor_id=self.id, actor_type=self.actor_type)

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


class ApiKeyRing:
    """The set of known keys; :meth:`authenticate` is the only way in."""

    def __init__(self, keys: Iterable[ApiKey] = ()) -> None:
        self._keys = list(keys)
        ids = [k.id for k in self._keys]
        if len(ids) != len(set(ids)):
            raise ValidationFailed("api key ids must be unique", code="invalid_api_keys")
        for key in self._keys:
            if key.sha256 is None and key.scrypt is None:
                raise ValidationFailed("an api key needs a sha256 or scrypt hash", code="invalid_api_keys", key=key.id)
        # Positive scrypt verifications, keyed by the token's sha256 (never the token itself).
        self._verified: dict[str, ApiKey] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._keys)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> ApiKeyRing:
        raw = data.get("keys")
        if not isinstance(raw, list):
            raise ValidationFailed("api key file needs a 'keys' list", code="invalid_api_keys")
        try:
            return cls(ApiKey.model_validate(item) for item in raw)
        except ValueError:
            raise ValidationFailed("api key file has an invalid entry", code="invalid_api_keys") from None

    @classmethod
    def from_file(cls, path: str | Path) -> ApiKeyRing:
        p = Path(path)
        text = p.read_text("utf-8")
        try:
            data = tomllib.loads(text) if p.suffix.lower() == ".toml" else json.loads(text)
        except (ValueError, tomllib.TOMLDecodeError):
            raise ValidationFailed("api key file is not valid JSON/TOML", code="invalid_api_keys") from None
        return cls.from_mapping(data)

    def authenticate(self, authorization: str | None) -> ApiKey:
        if not authorization:
            raise AuthError("missing bearer token")
        scheme, _, token = authorization.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token or len(token) > 512:
            raise AuthError("malformed authorization header")
        digest = hash_key_sha256(token)
        with self._lock:
            cached = self._verified.get(digest)
        if cached is not None:
            return cached
        match: ApiKey | None = None
        # Check every key (no early exit) so timing does not reveal which entry matched.
        for key in self._keys:
            if key.sha256 is not None and hmac.compare_digest(key.sha256, digest) and match is None:
                match = key
        if match is None:
            for key in self._keys:
                if key.scrypt is not None and key.verify(token, digest):
                    match = key
                    with self._lock:
                        if len(self._verified) > 10_000:
                            self._verified.clear()
                        self._verified[digest] = key
                    break
        if match is None:
            raise AuthError("invalid bearer token")
        return match
