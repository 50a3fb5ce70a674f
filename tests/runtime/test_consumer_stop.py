"""A stopping consumer hands back everything it holds: what its handlers were running, what
waited in its buffer and what the server was still sending it. Another consumer of the same
durable then takes it at once, not after the ack wait."""

from __future__ import annotations

import asyncio
from collections import Counter

import nats
import pytest

from agenteval.contracts.events import RunCancelled
from agenteval.contracts.subjects import Subjects
from agenteval.runtime.bus import (
    BatchConsumers,
    batch_subscriber,
    concurrent_subscriber,
    make_broker,
    publish_many,
)

ACK_WAIT_S = 600.0
"""Far longer than the test waits: a message left with the stopped consumer never comes back in time."""


@pytest.mark.parametrize("kind", ["concurrent", "batch"])
async def test_a_stopped_consumer_hands_back_what_it_holds_and_nothing_runs_twice(
    nats_url: str, bus_prefix: str, kind: str
) -> None:
    subjects = Subjects(bus_prefix)
    started: Counter[str] = Counter()
    finished: Counter[str] = Counter()
    busy = asyncio.Event()

    def consumer(name: str):
        broker = make_broker(nats_url)

        async def one(data: bytes) -> None:
            run_id = RunCancelled.model_validate_json(data).run_id
            started[run_id] += 1
            if sum(started.values()) >= 16:
                busy.set()
            await asyncio.sleep(0.05 + int(run_id[1:]) % 7 / 20)
            finished[run_id] += 1

        if kind == "concurrent":
            concurrent_subscriber(
                broker,
                subjects.run_cancelled,
                subjects,
                durable="work",
                max_workers=32,
                ack_wait_s=ACK_WAIT_S,
            )(one)
        else:

            async def batch(payloads: list[bytes]) -> None:
                await asyncio.gather(*(one(p) for p in payloads))

            batch_subscriber(
                broker, subjects.run_cancelled, subjects, durable="work", batch_size=8, ack_wait_s=ACK_WAIT_S
            )(batch)

        return broker, BatchConsumers(broker, nats_url)

    broker, first = consumer("first")
    await first.start()
    second = None
    try:
        events = [RunCancelled(event_id=f"e{i}", run_id=f"r{i}") for i in range(120)]
        await publish_many(broker, subjects.run_cancelled, events, subjects)
        await asyncio.wait_for(busy.wait(), 10)
        await first.stop()  # mid-way: handlers running, messages buffered and on their way
        _, second = consumer("second")
        await second.start()
        async with asyncio.timeout(60):
            while len(finished) < 120:
                await asyncio.sleep(0.1)
        await asyncio.sleep(1.0)  # anything handed out twice would start again now
        assert sorted(finished) == sorted(e.run_id for e in events)
        assert max(finished.values()) == 1, f"finished twice: {[k for k, v in finished.items() if v > 1]}"
    finally:
        if second is not None:
            await second.stop()
        nc = await nats.connect(nats_url)
        await nc.jetstream().delete_stream(subjects.stream)
        await nc.close()
