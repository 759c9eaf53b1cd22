"""The embedded runner's store queue: order, a bound on batches in flight, and a prefix after a failure."""

from __future__ import annotations

import threading

import pytest

from epistream.runner import _BatchWriter


def test_batches_are_stored_in_submission_order_with_at_most_depth_in_flight() -> None:
    gate = threading.Event()
    stored: list[int] = []

    def store(n: int) -> None:
        gate.wait(10)
        stored.append(n)

    with _BatchWriter(depth=3) as writer:
        for n in range(3):
            writer.submit(store, n)  # the store thread is held: three fit without waiting
        assert len(writer._pending) == 3 and stored == []
        blocked = threading.Thread(target=writer.submit, args=(store, 3))
        blocked.start()
        blocked.join(0.3)
        assert blocked.is_alive()  # a fourth waits until a slot frees up
        gate.set()
        blocked.join(10)
        assert not blocked.is_alive()
        for n in range(4, 10):
            writer.submit(store, n)
    assert stored == list(range(10))


def test_after_a_failed_store_nothing_behind_it_is_stored_and_the_failure_is_raised() -> None:
    gate = threading.Event()
    stored: list[int] = []

    def store(n: int) -> None:
        gate.wait(10)
        if n == 1:
            raise OSError("disk full")
        stored.append(n)

    writer = _BatchWriter(depth=3)
    with pytest.raises(OSError, match="disk full"), writer:
        for n in range(3):
            writer.submit(store, n)  # 1 fails while 2 waits behind it
        gate.set()
        writer.submit(store, 3)
        writer.submit(store, 4)
    assert stored == [0]  # a prefix: neither 2 nor the batches submitted after the failure


def test_a_store_queue_needs_room_for_one_batch() -> None:
    with pytest.raises(ValueError, match="at least one"):
        _BatchWriter(depth=0)
