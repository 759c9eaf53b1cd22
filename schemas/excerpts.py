"""Source excerpts: what was said, kept beside the claims taken from it.

A claim is a fragment of a message; the rest of what was said would be lost without the message
itself. Every admitted message (secrets already masked) is therefore also an excerpt: its text,
who said it, when, in which conversation and session. Excerpts are retrievable, but never
presented as facts: retrieval shows them as quotes, and in DEFAULT mode an excerpt whose every
claim is excluded (hypothetical, superseded, …) is excluded too.

An excerpt is a projection of the raw event, like the search index is of the operation log: it
is rebuilt from ``raw_events`` and never enters the state store or the log.
"""

from __future__ import annotations

from pydantic import Field

from schemas.canonical import derive_id
from schemas.common import ExternalId, ScopeRef, UtcDatetime, added_field
from schemas.enums import Role
from schemas.visibility import Visibility


def excerpt_id_for(stream: ScopeRef, event_id: str) -> str:
    """The excerpt of an event: one per event of a stream (tenant/owner/scope, as event ids are),
    stable across replays and rebuilds; the first one written stays (a reused id is refused)."""
    return derive_id("excerpt", stream.partition_key, event_id)


class Excerpt(ScopeRef):
    """One message as memory keeps it: what was said, by whom, when."""

    excerpt_id: str
    event_id: ExternalId
    conversation_id: ExternalId | None = None
    session_id: ExternalId | None = None
    role: Role
    #: The speaker as the event names them: display name and id (never inferred from the text).
    speaker: str | None = None
    speaker_id: str | None = None
    #: The message text with its attachments' captions, secrets masked.
    text: str
    occurred_at: UtcDatetime
    recorded_at: UtcDatetime
    #: Dates the text refers to ("yesterday" → the day before it was said), see ``extractors.dates``.
    event_dates: tuple[str, ...] = ()
    #: The turns just before it in its session ("Speaker: text"), for finding it only: a reply
    #: ("friday at sunset at the viewpoint") is found by what it answers. Never shown as said.
    context: tuple[str, ...] = ()
    #: Who may read it across owners (``schemas.visibility``), as its event says; unset is private.
    visibility: Visibility | None = added_field()
    #: Claims taken from this message (filled at read time from the claims citing the event).
    claim_ids: tuple[str, ...] = Field(default=())
