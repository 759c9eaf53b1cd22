"""Shared field types and the base model every contract derives from."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from schemas.canonical import to_utc
from schemas.enums import ActorType, Scope

_ID_RE = re.compile(r"^[A-Za-z0-9._:@+\-]{1,128}$")


def _check_key_id(value: str) -> str:
    """Tenant/owner/scope ids form the partition key ``tenant/owner/scope``: no slashes."""
    if not _ID_RE.fullmatch(value):
        raise ValueError("must be 1-128 characters of letters, digits and . _ : @ + -")
    return value


KeyId = Annotated[str, AfterValidator(_check_key_id)]
#: Publisher-given ids (event ids, command ids): printable ASCII without spaces.
ExternalId = Annotated[str, StringConstraints(min_length=1, max_length=200, pattern=r"^[\x21-\x7e]+$")]
UtcDatetime = Annotated[datetime, AfterValidator(to_utc)]
Probability = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


def added_field(default: Any = None, **kwargs: Any) -> Any:
    """A field added to a contract after records of it were sealed: left out of its JSON while unset.

    Operations are checksummed over their canonical JSON, and verifying a stored one re-encodes the
    node snapshots, edges and payloads it holds. A new field written as ``null`` (or ``[]``) would
    change the text of every record sealed before it existed; omitted while it holds its default,
    old records keep their exact text and checksum, and the same input still gives the same bytes.
    """
    factory = kwargs.get("default_factory")
    if factory is not None:
        empty = factory()
        return Field(exclude_if=lambda value: value == empty, **kwargs)
    return Field(default=default, exclude_if=lambda value: value == default, **kwargs)


class Contract(BaseModel):
    """Strict-ish, immutable, JSON round-trippable base for every contract."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        use_enum_values=False,
        ser_json_inf_nan="null",
        validate_default=True,
    )

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class ActorRef(Contract):
    actor_id: str = Field(min_length=1, max_length=200)
    actor_type: ActorType


class ScopeRef(Contract):
    """Who a memory belongs to; also the Kafka partition key."""

    tenant_id: KeyId
    owner_id: KeyId
    scope: Scope
    scope_id: KeyId | None = None

    @property
    def scope_key(self) -> str:
        return self.scope.value if self.scope_id is None else f"{self.scope.value}:{self.scope_id}"

    @property
    def partition_key(self) -> str:
        return f"{self.tenant_id}/{self.owner_id}/{self.scope_key}"

    def scope_ref(self) -> ScopeRef:
        return ScopeRef(tenant_id=self.tenant_id, owner_id=self.owner_id, scope=self.scope, scope_id=self.scope_id)

    def same_scope(self, other: ScopeRef) -> bool:
        return (
            self.tenant_id == other.tenant_id
            and self.owner_id == other.owner_id
            and self.scope == other.scope
            and self.scope_id == other.scope_id
        )
