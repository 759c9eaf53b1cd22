"""Is an arriving event new, a redelivery, or a reused id with other content?

Publishers choose event ids. An id names an event within its stream (tenant, owner, scope): the
same id in another owner's stream is another event, so nothing about one owner's ids can be learnt
or pre-empted through another's. Within a stream, the same id with the same content digest is a
redelivery (dropped, whatever id scheme it was first reduced under), and with different content a
conflict, refused with ``event_id_conflict`` and kept as a dead letter, never dropped in silence.
"""

from __future__ import annotations

from typing import Literal

from engine.store import StateStore
from schemas.claims import EVENT_ID_SCHEME, event_input_id
from schemas.common import ScopeRef

EventStatus = Literal["new", "duplicate", "conflict"]


def event_status(store: StateStore, stream: ScopeRef, event_id: str, content_sha256: str) -> tuple[EventStatus, str]:
    """The event's status and the input id it was (or will be) reduced under."""
    for seen in store.owner_events(stream.tenant_id, stream.owner_id, event_id):
        if seen.scope.same_scope(stream):
            same = not seen.content_sha256 or seen.content_sha256 == content_sha256
            return ("duplicate" if same else "conflict"), seen.input_id
    input_id = event_input_id(stream.tenant_id, event_id, scheme=EVENT_ID_SCHEME, partition_key=stream.partition_key)
    return ("duplicate" if store.has_seen(input_id) else "new"), input_id
