"""Erasure on request (GDPR art. 17 and its kin): what to forget, and the receipt of having forgotten it.

An erasure names one of four scopes inside a tenant: an owner's whole memory, a speaker (what they
said and what is attributed to them, in every owner's memory of the tenant), one conversation of an
owner, or one event of an owner and everything derived from it. The log stays append-only: content
is stored sealed under per-event data keys (``sinks.sealing``), erasure destroys the keys and appends
an ``ERASED`` operation naming what went by id and count. The receipt says what was removed where,
when, by whom and what the verification run found; it never holds erased content.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from schemas.canonical import canonical_json, derive_id
from schemas.common import Contract, ExternalId, KeyId, UtcDatetime

ErasureKind = Literal["owner", "speaker", "conversation", "event"]


class ErasureScope(Contract):
    """What to erase: ``owner`` (with ``owner_id``), ``speaker`` (``speaker_id``), or within one owner a
    ``conversation`` (``conversation_id``) or an ``event`` (``event_id``) and what was derived from it."""

    tenant_id: KeyId
    kind: ErasureKind
    owner_id: KeyId | None = None
    speaker_id: ExternalId | None = None
    conversation_id: ExternalId | None = None
    event_id: ExternalId | None = None

    @model_validator(mode="after")
    def _complete(self) -> ErasureScope:
        need = {"owner": ("owner_id",), "speaker": ("speaker_id",),
                "conversation": ("owner_id", "conversation_id"), "event": ("owner_id", "event_id")}[self.kind]
        unwanted = {"owner_id", "speaker_id", "conversation_id", "event_id"} - set(need)
        missing = [name for name in need if getattr(self, name) is None]
        extra = [name for name in sorted(unwanted) if getattr(self, name) is not None]
        if missing or extra:
            raise ValueError(f"a {self.kind} erasure needs {', '.join(need)} and nothing else"
                             f" (missing: {missing or '-'}, unexpected: {extra or '-'})")  # fmt: skip
        return self

    @property
    def scope_key(self) -> str:
        """The scope as one canonical text: equal scopes, equal keys (receipts are found by it)."""
        return canonical_json(self.model_dump(mode="json", exclude_none=True))

    def erasure_id(self, generation: int = 0) -> str:
        """Derived, so a repeated request names the same erasure; ``generation`` counts earlier erasures of
        the scope that found something (a scope erased again after new content arrived is a new erasure)."""
        return derive_id("erasure", self.scope_key, generation)


class ErasureReceipt(Contract):
    """What one erasure removed (counts per table and index), when, by whom, and its verification."""

    schema_version: Literal[1] = 1
    erasure_id: str
    scope: ErasureScope
    requested_by: str
    request_id: str | None = None
    requested_at: UtcDatetime
    completed_at: UtcDatetime
    #: ``"<table or index>" -> rows/documents removed or made unreadable`` (keys: data keys destroyed).
    counts: dict[str, int] = Field(default_factory=dict)
    #: Ids of what went (nodes, events, edges), never content; capped per kind (``counts`` has the totals).
    erased_ids: dict[str, list[str]] = Field(default_factory=dict)
    #: The verification run after the erasure: ``replay_differences`` (0: the log replays to the live state),
    #: ``remaining`` (rows/documents of the scope still readable: 0 expected) and ``passed``.
    verification: dict[str, int | bool] = Field(default_factory=dict)
    #: ``True`` for the answer to a repeated request: nothing was left to erase, this is the earlier receipt.
    repeated: bool = False


def erase_command_id(erasure_id: str, partition_key: str) -> str:
    """The command id of an erasure's part for one ``tenant/owner/scope`` (one command per key it reaches)."""
    return derive_id("erase", erasure_id, partition_key)
