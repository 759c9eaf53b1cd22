"""Time of a consumed record.

A Kafka-received event without ``received_at`` gets the record's timestamp (set once by the
producer), never the worker's clock, so a redelivery of the same record yields identical state.
"""

from __future__ import annotations

from datetime import UTC, datetime

from schemas.events import ConversationEvent


def received_at(timestamp_s: float | None) -> datetime:
    # faust exposes the record timestamp in seconds; a record always has one on Kafka >= 0.10.
    return datetime.fromtimestamp(timestamp_s or 0.0, UTC)


def enrich(event: ConversationEvent, timestamp_s: float | None) -> ConversationEvent:
    """Use the record time as ``received_at`` only when the publisher set none."""
    if event.received_at is not None:
        return event
    return event.model_copy(update={"received_at": received_at(timestamp_s)})
