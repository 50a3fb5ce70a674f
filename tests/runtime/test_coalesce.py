"""Events handed over by concurrent tasks go out as batches, and each caller learns the outcome."""

from __future__ import annotations

import asyncio
import gc

import pytest

from agenteval.contracts.events import RunCancelled
from agenteval.runtime.coalesce import Coalescer


def ev(i: int) -> RunCancelled:
    return RunCancelled(event_id=f"e{i}", run_id=f"r{i}")


async def test_events_of_one_loop_turn_are_published_as_one_batch() -> None:
    batches: list[list[str]] = []

    async def publish(events) -> None:
        batches.append([e.event_id for e in events])

    c = Coalescer(publish)
    await asyncio.gather(*(c.add(ev(i)) for i in range(50)))
    await c.add(ev(99))
    assert batches == [[f"e{i}" for i in range(50)], ["e99"]]


async def test_a_failed_batch_fails_every_caller_in_it_and_not_the_next() -> None:
    fail = True

    async def publish(events) -> None:
        if fail:
            raise RuntimeError("stream unavailable")

    c = Coalescer(publish)
    results = await asyncio.gather(*(c.add(ev(i)) for i in range(3)), return_exceptions=True)
    assert all(isinstance(r, RuntimeError) for r in results)
    fail = False
    await c.add(ev(4))  # does not raise


async def test_a_caller_cancelled_while_waiting_does_not_cancel_the_batch() -> None:
    sent: list[str] = []
    gate = asyncio.Event()

    async def publish(events) -> None:
        await gate.wait()
        sent.extend(e.event_id for e in events)

    c = Coalescer(publish)
    first = asyncio.create_task(c.add(ev(1)))
    second = asyncio.create_task(c.add(ev(2)))
    await asyncio.sleep(0.01)
    first.cancel()
    gate.set()
    await second
    with pytest.raises(asyncio.CancelledError):
        await first
    assert sent == ["e1", "e2"]


async def test_serial_sends_one_batch_at_a_time_and_gathers_what_came_meanwhile() -> None:
    batches: list[list[int]] = []
    out = asyncio.Event()
    sending = 0

    async def send(items) -> None:
        nonlocal sending
        sending += 1
        assert sending == 1, "two batches were out at once"
        batches.append(list(items))
        await out.wait()
        sending -= 1

    c = Coalescer(send, serial=True)
    first = asyncio.create_task(c.add(0))
    await asyncio.sleep(0.01)  # the first batch is out
    later = [asyncio.create_task(c.add(i)) for i in range(1, 6)]
    await asyncio.sleep(0.01)
    assert batches == [[0]]
    out.set()
    await asyncio.gather(first, *later)
    assert batches == [[0], [1, 2, 3, 4, 5]]


async def test_a_batch_that_fails_after_its_callers_were_cancelled_leaves_no_unread_error() -> None:
    reported: list[dict[str, object]] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    gate = asyncio.Event()

    async def send(items: list[int]) -> None:
        await gate.wait()
        raise ConnectionError("the bus went away")

    try:
        coalescer: Coalescer[int] = Coalescer(send)
        caller = asyncio.create_task(coalescer.add(1))
        await asyncio.sleep(0.01)  # the batch is out
        caller.cancel()  # the runner stops: its trials are cancelled
        await asyncio.gather(caller, return_exceptions=True)
        gate.set()
        await asyncio.sleep(0.01)  # the batch fails, with nobody waiting on it
        gc.collect()
        assert not reported, reported
    finally:
        loop.set_exception_handler(None)
