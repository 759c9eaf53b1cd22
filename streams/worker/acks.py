"""When a consumed record becomes committable: held, released, or left for redelivery.

faust commits the offset of a record once every reference on its message is acknowledged. The
stages here keep their input records unacknowledged until what was derived from them is durable
(see :mod:`streams.write_behind` and :mod:`streams.delivery`), and leave them uncommitted when
their work went stale in a rebalance, so the consumer delivers them again.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

log = logging.getLogger("epistream.worker")


def leave_uncommitted(events: Iterable[Any]) -> None:
    """Keep these records out of the offsets faust commits, so they are delivered again.

    ``take_events`` acknowledges every record of a batch when the agent asks for the next one;
    an acknowledged offset is committed even when it belongs to a partition that was revoked and
    assigned back meanwhile. A record already marked acknowledged is skipped by that bookkeeping
    (faust's ``Message.ack`` does nothing twice), so its offset stays uncommitted: the commit
    cannot pass it, and the consumer, which re-reads from the committed offsets after the
    rebalance, delivers it again.
    """
    for event in events:
        event.message.acked = True


@contextmanager
def unless_done(events: Iterable[Any]) -> Iterator[None]:
    """Leave a take's records uncommitted when its processing does not finish.

    ``take_events`` acknowledges the take an agent holds when the agent is cancelled (a worker
    stopping on SIGTERM) or fails, so every record of it would be committed whether or not it was
    processed: a stop during a ClickHouse outage committed dead letters that were never stored, and
    one during an extraction would have committed events that were never extracted. Records of the
    take already held by a write-behind stay uncommitted anyway; this covers the rest.
    """
    held = list(events)
    try:
        yield
    except BaseException:
        leave_uncommitted(held)
        raise


def hold(event: Any) -> None:
    """One more reference on the record: ``take_events``' acknowledgement no longer makes it committable."""
    event.message.incref()


def release(event: Any, consumer: Any) -> None:
    """Acknowledge the record's last reference: its offset becomes committable."""
    event.message.ack(consumer)


def abandon(event: Any) -> None:
    leave_uncommitted((event,))


def current_generation(events: list[Any], generation_id: int) -> list[Any]:
    """The records of a take fetched under the consumer's current group generation.

    ``take_events`` fills its buffer in the background, so records fetched before a rebalance can
    be handed over after it. Reducing them then is out of order: an earlier record of the same
    partition may have been left for redelivery by the batch the rebalance overlapped, and the
    consumer now fetches again from the committed offset, so it comes back *after* them, to be
    reduced against a state that already holds its successors (different operations than the
    uninterrupted run). Those records are left uncommitted instead; the consumer delivers them
    again, in order, after the ones before them.
    """
    stale = [ev for ev in events if ev.message.generation_id != generation_id]
    if not stale:
        return events
    log.info("materialize: %d records fetched before a rebalance left for redelivery", len(stale))
    leave_uncommitted(stale)
    return [ev for ev in events if ev.message.generation_id == generation_id]
