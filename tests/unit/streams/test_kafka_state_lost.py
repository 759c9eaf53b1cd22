"""When an empty memory.operations means a broker lost its data, and when the log merely ran ahead."""

from __future__ import annotations

import pytest

from streams.worker.recovery import state_lost


@pytest.mark.parametrize(
    ("operation_records", "event_records", "stored_operations", "stored_events", "lost"),
    [
        # a fresh deployment: nothing anywhere
        (0, 0, 0, 0, False),
        # healthy: the topic holds the operations
        (1709, 3000, 1709, 3000, False),
        # a worker killed before its first operation records were acked: the events are all still in Kafka
        (0, 3000, 1709, 600, False),
        (0, 600, 1709, 600, False),
        # a wiped broker: the events topic was recreated empty, or holds only what came after the wipe
        (0, 0, 1709, 600, True),
        (0, 40, 1709, 600, True),
        (0, 599, 1709, 600, True),
    ],
)
def test_state_lost(
    operation_records: int, event_records: int, stored_operations: int, stored_events: int, lost: bool
) -> None:
    assert (
        state_lost(
            operation_records=operation_records,
            event_records=event_records,
            stored_operations=stored_operations,
            stored_events=stored_events,
        )
        is lost
    )
