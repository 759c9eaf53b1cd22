"""streams.write_behind: records are acknowledged only after the write that holds their rows."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from streams.write_behind import WriteBehind


@dataclass
class Ledger:
    """What happened to each record: held, released (committable) or abandoned (redelivered)."""

    held: list[str] = field(default_factory=list)
    released: list[str] = field(default_factory=list)
    abandoned: list[str] = field(default_factory=list)
    writes: list[list[str]] = field(default_factory=list)


def make(
    ledger: Ledger,
    *,
    max_delay_s: float = 0.05,
    max_items: int = 100,
    outcome: dict[str, bool] | None = None,
    gate: asyncio.Event | None = None,
) -> WriteBehind[str]:
    async def write(items: list[str]) -> Sequence[bool]:
        if gate is not None:
            await gate.wait()
        # what was acknowledged when the write started must not include these items' records
        assert not set(ledger.released) & {f"r-{i}" for i in items}
        ledger.writes.append(list(items))
        return [(outcome or {}).get(i, True) for i in items]

    return WriteBehind(
        write,
        max_delay_s=max_delay_s,
        max_items=max_items,
        hold=ledger.held.append,
        release=ledger.released.append,
        abandon=ledger.abandoned.append,
    )


async def _settle(wb: WriteBehind[str], ledger: Ledger, n: int, timeout: float = 2.0) -> None:
    async def wait() -> None:
        while len(ledger.released) + len(ledger.abandoned) < n:
            await asyncio.sleep(0.005)

    await asyncio.wait_for(wait(), timeout)


def test_records_are_released_only_after_one_write_of_several_takes() -> None:
    async def scenario() -> Ledger:
        ledger = Ledger()
        wb = make(ledger, max_delay_s=0.1)
        runner = asyncio.ensure_future(wb.run())
        wb.add("a", ["r-a"])
        wb.add("b", ["r-b1", "r-b2"], size=2)
        await asyncio.sleep(0.03)
        assert ledger.held == ["r-a", "r-b1", "r-b2"] and ledger.released == []  # not yet written
        assert wb.pending == 3
        await _settle(wb, ledger, 3)
        runner.cancel()
        return ledger

    ledger = asyncio.run(scenario())
    assert ledger.writes == [["a", "b"]]  # one write for both takes, in order
    assert ledger.released == ["r-a", "r-b1", "r-b2"] and ledger.abandoned == []


def test_a_full_buffer_is_written_at_once_and_holds_intake_until_then() -> None:
    async def scenario() -> tuple[Ledger, bool, bool]:
        ledger = Ledger()
        gate = asyncio.Event()
        wb = make(ledger, max_delay_s=30.0, max_items=3, gate=gate)
        runner = asyncio.ensure_future(wb.run())
        wb.add("a", ["r-a"], size=2)
        wb.add("b", ["r-b"], size=2)  # 4 >= 3: written now, not in 30 s
        room = asyncio.ensure_future(wb.room())
        await asyncio.sleep(0.05)
        blocked_while_writing = not room.done()
        gate.set()
        await asyncio.wait_for(room, 1.0)
        await _settle(wb, ledger, 2)
        runner.cancel()
        return ledger, blocked_while_writing, room.done()

    ledger, blocked, freed = asyncio.run(scenario())
    assert blocked and freed
    assert ledger.writes == [["a", "b"]] and ledger.released == ["r-a", "r-b"]


def test_items_the_write_refuses_are_left_for_redelivery() -> None:
    async def scenario() -> Ledger:
        ledger = Ledger()
        wb = make(ledger, outcome={"stale": False})
        runner = asyncio.ensure_future(wb.run())
        wb.add("stale", ["r-s1", "r-s2"])
        wb.add("live", ["r-l"])
        await _settle(wb, ledger, 3)
        runner.cancel()
        return ledger

    ledger = asyncio.run(scenario())
    assert ledger.abandoned == ["r-s1", "r-s2"] and ledger.released == ["r-l"]


def test_abandoned_pending_items_are_never_written() -> None:
    async def scenario() -> tuple[Ledger, list[str]]:
        ledger = Ledger()
        wb = make(ledger, max_delay_s=0.05)
        runner = asyncio.ensure_future(wb.run())
        wb.add("old", ["r-o"])
        dropped = wb.abandon_pending()
        wb.add("new", ["r-n"])
        await _settle(wb, ledger, 2)
        runner.cancel()
        return ledger, dropped

    ledger, dropped = asyncio.run(scenario())
    assert dropped == ["old"]
    assert ledger.writes == [["new"]]
    assert ledger.abandoned == ["r-o"] and ledger.released == ["r-n"]


def test_a_failing_write_stops_the_loop_and_acknowledges_nothing() -> None:
    async def scenario() -> Ledger:
        ledger = Ledger()

        async def broken(items: list[str]) -> Sequence[bool]:
            raise OSError("disk gone")

        wb: WriteBehind[str] = WriteBehind(
            broken, max_delay_s=0.01, max_items=10, hold=ledger.held.append,
            release=ledger.released.append, abandon=ledger.abandoned.append,
        )
        wb.add("a", ["r-a"])
        with pytest.raises(OSError):
            await asyncio.wait_for(wb.run(), 1.0)
        return ledger

    ledger = asyncio.run(scenario())
    # neither committable nor skipped: the worker stops and the record is redelivered
    assert ledger.held == ["r-a"] and ledger.released == [] and ledger.abandoned == []


def test_flush_writes_what_is_queued_without_waiting_for_the_delay() -> None:
    async def scenario() -> Ledger:
        ledger = Ledger()
        wb = make(ledger, max_delay_s=60.0)
        wb.add("a", ["r-a"])
        await asyncio.wait_for(wb.flush(), 1.0)
        return ledger

    ledger = asyncio.run(scenario())
    assert ledger.writes == [["a"]] and ledger.released == ["r-a"]


@pytest.mark.parametrize(("delay", "items"), [(0, 10), (0.1, 0), (-1, 5)])
def test_limits_must_be_positive(delay: float, items: int) -> None:
    with pytest.raises(ValueError):
        make(Ledger(), max_delay_s=delay, max_items=items)


def test_an_urgent_item_is_written_at_once_with_what_waits_before_it() -> None:
    async def scenario() -> tuple[Ledger, float]:
        ledger = Ledger()
        wb = make(ledger, max_delay_s=30.0)
        runner = asyncio.ensure_future(wb.run())
        wb.add("event", ["r-e"])
        await asyncio.sleep(0.02)
        assert ledger.writes == []  # an ordinary item waits for the delay
        started = asyncio.get_running_loop().time()
        wb.add("command", ["r-c"], urgent=True)
        await _settle(wb, ledger, 2)
        took = asyncio.get_running_loop().time() - started
        wb.add("later", ["r-l"])  # urgency does not outlive its write
        await asyncio.sleep(0.05)
        runner.cancel()
        return ledger, took

    ledger, took = asyncio.run(scenario())
    assert ledger.writes == [["event", "command"]] and took < 5.0
    assert ledger.released == ["r-e", "r-c"]


def test_unwritten_lists_the_write_in_progress_then_the_queue() -> None:
    async def scenario() -> tuple[list[str], list[str], list[str]]:
        ledger = Ledger()
        gate = asyncio.Event()
        wb = make(ledger, max_delay_s=0.01, gate=gate)
        runner = asyncio.ensure_future(wb.run())
        wb.add("a", ["r-a"])
        await asyncio.sleep(0.05)  # "a" is being written (held at the gate)
        wb.add("b", ["r-b"])
        during = wb.unwritten
        dropped = wb.abandon_pending()
        after_abandon = wb.unwritten
        gate.set()
        await _settle(wb, ledger, 2)
        runner.cancel()
        assert wb.unwritten == []
        return during, dropped, after_abandon

    during, dropped, after_abandon = asyncio.run(scenario())
    assert during == ["a", "b"] and dropped == ["b"] and after_abandon == ["a"]
