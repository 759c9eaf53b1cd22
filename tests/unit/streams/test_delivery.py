"""A stage's inputs become committable only once the records it sent are on the broker (streams.delivery)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from schemas.errors import BackendUnavailable, DeliveryFailed
from streams.delivery import Outbox, delivered


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_delivered_returns_only_after_every_record_is_acknowledged() -> None:
    async def go() -> list[str]:
        loop = asyncio.get_running_loop()
        futures = [loop.create_future() for _ in range(3)]
        seen: list[str] = []

        async def stage() -> None:
            await delivered(f for f in futures)  # a generator is read once
            seen.append("released")

        task = asyncio.ensure_future(stage())
        for i, f in enumerate(futures):
            await asyncio.sleep(0.01)
            assert seen == [], f"released before record {i} was acknowledged"
            f.set_result(i)
        await task
        return seen

    assert run(go()) == ["released"]


def test_a_record_the_broker_refused_fails_the_stage_with_a_stable_code() -> None:
    async def go() -> DeliveryFailed:
        loop = asyncio.get_running_loop()
        ok, bad = loop.create_future(), loop.create_future()
        ok.set_result(None)
        bad.set_exception(RuntimeError("secret-ish broker text about content"))
        with pytest.raises(DeliveryFailed) as caught:
            await delivered([ok, bad])
        return caught.value

    err = run(go())
    assert err.code == "delivery_failed"
    assert isinstance(err, BackendUnavailable)
    assert err.details == {"reason": "RuntimeError"}
    assert "secret" not in err.message


def test_a_cancelled_record_is_a_failed_delivery() -> None:
    async def go() -> None:
        f = asyncio.get_running_loop().create_future()
        f.cancel()
        with pytest.raises(DeliveryFailed):
            await delivered([f])

    run(go())


def test_outbox_forgets_acknowledged_records_and_drains_the_rest() -> None:
    async def go() -> tuple[int, int, int]:
        loop = asyncio.get_running_loop()
        box = Outbox()
        done = loop.create_future()
        done.set_result(None)
        box.track(done)  # already acknowledged: nothing to wait for
        later = box.track(loop.create_future())
        never = box.track(loop.create_future())
        assert box.outstanding == 2
        loop.call_later(0.02, later.set_result, None)
        left = await box.drain(timeout_s=0.2)
        after_drain = box.outstanding
        never.set_result(None)
        await asyncio.sleep(0)
        return left, after_drain, box.outstanding

    assert run(go()) == (1, 1, 0)


def test_outbox_drain_does_not_raise_for_a_failed_record() -> None:
    async def go() -> int:
        loop = asyncio.get_running_loop()
        box = Outbox()
        bad = box.track(loop.create_future())
        bad.set_exception(RuntimeError("x"))
        left = await box.drain(timeout_s=0.1)
        bad.exception()  # retrieved: the stage that sent it raises for it
        return left

    assert run(go()) == 0
