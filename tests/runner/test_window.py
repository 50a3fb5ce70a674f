"""A run's shared concurrency window: trials in a fixed order by position, a KV counter that moves on."""

from __future__ import annotations

import asyncio

import nats
import pytest

from agenteval.contracts.errors import Unavailable
from agenteval.contracts.events import RunSubmitted
from agenteval.contracts.subjects import Subjects
from agenteval.contracts.suite import Suite
from agenteval.runner.service import RunnerService
from agenteval.runner.settings import RunnerSettings
from agenteval.runtime.run_windows import RunWindows


def submitted(k: int = 3) -> RunSubmitted:
    suite = Suite.model_validate(
        {
            "name": "s",
            "cases": [
                {"id": "a", "input": "x"},
                {"id": "b", "input": "y", "trials": 2},
                {"id": "c", "input": "z"},
            ],
        }
    )
    total = sum(suite.trials_for(c, None) if c.trials else k for c in suite.cases)
    return RunSubmitted(
        event_id="e", run_id="r1", suite=suite, agent="python:tests.agents:instant", trials_total=total
    )


def test_trials_by_position_are_slices_of_the_whole_run() -> None:
    service = RunnerService(None, RunnerSettings(), None, None)  # type: ignore[arg-type]
    ev = submitted()
    whole = [t.trial_id for t in service.trials_of(ev)]
    assert len(whole) == ev.trials_total
    for start, stop in [(0, 1), (0, 4), (1, 3), (2, 5), (3, 3), (4, 99)]:
        assert [t.trial_id for t in service.trials_of(ev, start, stop)] == whole[start:stop]


async def test_the_window_moves_on_by_what_finished_and_stops_at_the_total(
    nats_url: str, bus_prefix: str
) -> None:
    nc = await nats.connect(nats_url)
    windows = RunWindows(lambda: nc, Subjects(bus_prefix))
    try:
        await windows.open("r1", 2)
        await windows.open("r1", 1)  # a redelivered run.submitted never moves it back
        assert await windows.release("r1", 1, total=5) == (2, 3)
        assert await windows.release("r1", 2, total=5) == (3, 5)
        assert await windows.release("r1", 2, total=5) == (5, 5), "nothing more is due past the total"
        with pytest.raises(Unavailable):
            await windows.release("nope", 1, total=5)
    finally:
        await nc.jetstream().delete_key_value(windows.name)
        await nc.close()


async def test_replicas_moving_one_window_at_once_never_release_a_position_twice(
    nats_url: str, bus_prefix: str
) -> None:
    conns = [await nats.connect(nats_url) for _ in range(3)]
    replicas = [RunWindows(lambda c=c: c, Subjects(bus_prefix)) for c in conns]
    try:
        await replicas[0].open("r2", 10)
        ranges = await asyncio.gather(*(replicas[i % 3].release("r2", 1, total=100) for i in range(60)))
        released = sorted(p for start, stop in ranges for p in range(start, stop))
        assert released == list(range(10, 70)), "each position was released exactly once"
    finally:
        await conns[0].jetstream().delete_key_value(replicas[0].name)
        for c in conns:
            await c.close()
