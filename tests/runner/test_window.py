"""A run's shared concurrency window: trials in a fixed order by position, a KV counter that
moves on once the positions it lets out are published."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import nats
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from agenteval.contracts.errors import Unavailable
from agenteval.contracts.events import Event, RunSubmitted, TrialCompleted, TrialRequested
from agenteval.contracts.subjects import Subjects
from agenteval.contracts.suite import Suite
from agenteval.runner.app import MIGRATIONS
from agenteval.runner.repository import RunRecord, RunRepository
from agenteval.runner.service import RunnerService
from agenteval.runner.settings import RunnerSettings
from agenteval.runtime.run_windows import RunWindows
from agenteval.storage import create_engine, upgrade


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
    published: list[tuple[int, int]] = []

    async def publish(start: int, stop: int) -> None:
        published.append((start, stop))

    try:
        await windows.open("r1", 2)
        await windows.open("r1", 1)  # a redelivered run.submitted never moves it back
        assert await windows.release("r1", 1, 5, publish) == (2, 3)
        assert await windows.release("r1", 2, 5, publish) == (3, 5)
        assert await windows.release("r1", 2, 5, publish) == (5, 5), "nothing more is due past the total"
        assert published == [(2, 3), (3, 5)]
        with pytest.raises(Unavailable):
            await windows.release("nope", 1, 5, publish)
    finally:
        await nc.jetstream().delete_key_value(windows.name)
        await nc.close()


async def test_replicas_moving_one_window_at_once_never_release_a_position_twice(
    nats_url: str, bus_prefix: str
) -> None:
    conns = [await nats.connect(nats_url) for _ in range(3)]
    replicas = [RunWindows(lambda c=c: c, Subjects(bus_prefix)) for c in conns]
    published: set[int] = set()

    async def publish(start: int, stop: int) -> None:
        published.update(range(start, stop))

    try:
        await replicas[0].open("r2", 10)
        ranges = await asyncio.gather(*(replicas[i % 3].release("r2", 1, 100, publish) for i in range(60)))
        released = sorted(p for start, stop in ranges for p in range(start, stop))
        assert released == list(range(10, 70)), "each position was released exactly once"
        # A replica that lost a race had published the position the winner counted: the same
        # trial id, deduplicated by the stream; nothing past the counter went out.
        assert published == set(range(10, 70))
    finally:
        await conns[0].jetstream().delete_key_value(replicas[0].name)
        for c in conns:
            await c.close()


async def test_the_window_moves_only_once_what_it_lets_out_is_published(
    nats_url: str, bus_prefix: str
) -> None:
    nc = await nats.connect(nats_url)
    windows = RunWindows(lambda: nc, Subjects(bus_prefix))

    async def dies(start: int, stop: int) -> None:
        raise ConnectionError("the runner died before publishing")

    published: list[tuple[int, int]] = []

    async def publish(start: int, stop: int) -> None:
        published.append((start, stop))

    try:
        await windows.open("r3", 2)
        with pytest.raises(ConnectionError):
            await windows.release("r3", 1, 5, dies)
        assert await windows.release("r3", 1, 5, publish) == (2, 3), "the same position, again"
        assert published == [(2, 3)]
    finally:
        await nc.jetstream().delete_key_value(windows.name)
        await nc.close()


class Recorder:
    """The bus; with ``die_on`` set, publishing there never returns (the runner dies there)."""

    def __init__(self) -> None:
        self.sent: list[Event] = []
        self.die_on: str | None = None
        self.dying = asyncio.Event()
        self.hung: list[asyncio.Task[object]] = []

    async def __call__(self, subject: str, events: Sequence[Event]) -> None:
        if subject == self.die_on:
            self.hung.append(asyncio.current_task())  # type: ignore[arg-type]
            self.dying.set()
            await asyncio.Event().wait()
        self.sent.extend(events)

    async def kill(self) -> None:
        """End what hung there, as the death of its process would."""
        for task in self.hung:
            task.cancel()
        await asyncio.gather(*self.hung, return_exceptions=True)


def record_of(ev: RunSubmitted) -> RunRecord:
    return RunRecord(
        run_id=ev.run_id,
        suite=ev.suite.name,
        agent=ev.agent,
        agent_version="",
        k=ev.k,
        seed=0,
        concurrency=ev.concurrency,
        timeout_s=None,
        status="pending",
        trials_total=ev.trials_total,
        trials_graded=0,
        passes=0,
        created_at=datetime.now(UTC),
        completed_at=None,
        suite_json=ev.suite.model_dump_json(),
        summary_json=None,
        error=None,
        project=ev.project,
    )


class Replicas:
    """Runner replicas sharing one run's table (SQLite), the window bucket (real NATS) and a
    recorded bus; each ``runner()`` is a fresh process (nothing cached)."""

    def __init__(self, engine: AsyncEngine, nc: Any, subjects: Subjects) -> None:
        self.engine, self.nc, self.subjects = engine, nc, subjects
        self.sent = Recorder()
        self.made: list[RunnerService] = []

    def runner(self, settings: RunnerSettings | None = None) -> RunnerService:
        windows = RunWindows(lambda: self.nc, self.subjects)
        service = RunnerService(
            RunRepository(self.engine),
            settings or RunnerSettings(),
            self.subjects,
            self.sent,
            windows=windows,
        )
        self.made.append(service)
        return service

    def requested(self) -> list[TrialRequested]:
        return [e for e in self.sent.sent if isinstance(e, TrialRequested)]


@contextlib.asynccontextmanager
async def replicas_of(
    ev: RunSubmitted, nats_url: str, bus_prefix: str, tmp_path: Path
) -> AsyncIterator[Replicas]:
    """The run ``ev`` stored as submitted, and replicas to run it."""
    engine = create_engine(f"sqlite:///{tmp_path / 'runner.db'}")
    await upgrade(engine, "runner", MIGRATIONS)
    await RunRepository(engine).insert(record_of(ev))
    nc = await nats.connect(nats_url)
    subjects = Subjects(bus_prefix)
    replicas = Replicas(engine, nc, subjects)
    try:
        yield replicas
    finally:
        for service in replicas.made:
            await service.close()
        await nc.jetstream().delete_key_value(RunWindows(lambda: nc, subjects).name)
        await nc.close()
        await engine.dispose()


async def test_a_runner_killed_before_the_next_trial_went_out_loses_no_trial(
    nats_url: str, bus_prefix: str, tmp_path: Path
) -> None:
    suite = Suite.model_validate(
        {"name": "s", "cases": [{"id": "a", "input": "x"}, {"id": "b", "input": "y", "trials": 2}]}
    )
    ev = RunSubmitted(
        event_id="e",
        run_id="r4",
        project="team-a",
        suite=suite,
        agent="python:tests.agents:instant",
        k=None,
        concurrency=2,
        trials_total=sum(suite.trials_for(c) for c in suite.cases),
    )
    async with replicas_of(ev, nats_url, bus_prefix, tmp_path) as replicas:
        sent = replicas.sent
        first_runner = replicas.runner(RunnerSettings(agents_in_process=True))
        second_runner = replicas.runner(RunnerSettings(agents_in_process=True))
        await first_runner.expand(ev)
        queue = replicas.requested()
        assert len(queue) == 2
        # The first runner finishes a trial and is killed while the next one goes out.
        sent.die_on = replicas.subjects.trial_requested
        killed = asyncio.create_task(first_runner.execute(queue[0]))
        await sent.dying.wait()
        killed.cancel()
        await sent.kill()
        await asyncio.gather(killed, return_exceptions=True)
        sent.die_on = None
        # Never acked, the trial comes back to the other runner, with the rest of the run.
        ran: list[str] = []
        while queue:
            req = queue.pop(0)
            before = len(sent.sent)
            await second_runner.execute(req)
            ran.append(req.trial_id)
            queue.extend(e for e in sent.sent[before:] if isinstance(e, TrialRequested))
        whole = {t.trial_id for t in second_runner.trials_of(ev)}
        assert set(ran) == whole, "every trial of the run ran"
        assert {e.trial_id for e in sent.sent if isinstance(e, TrialCompleted)} == whole
        assert {e.project for e in replicas.requested()} == {"team-a"}, (
            "trials let out keep the run's project"
        )


async def test_a_trial_that_could_not_be_run_still_lets_the_next_one_out(
    nats_url: str, bus_prefix: str, tmp_path: Path
) -> None:
    suite = Suite.model_validate({"name": "s", "cases": [{"id": "a", "input": "x", "trials": 3}]})
    ev = RunSubmitted(
        event_id="e",
        run_id="r5",
        suite=suite,
        agent="python:tests.agents:instant",
        concurrency=1,
        trials_total=3,
    )
    async with replicas_of(ev, nats_url, bus_prefix, tmp_path) as replicas:
        service = replicas.runner()
        await service.expand(ev)
        [first] = replicas.requested()
        await service.fail_trial(first.model_dump_json().encode(), "delivery limit reached")
        completed = [e for e in replicas.sent.sent if isinstance(e, TrialCompleted)]
        assert [(e.trial_id, e.trace.status) for e in completed] == [(first.trial_id, "error")]
        let_out = [e.trial_id for e in replicas.requested()][1:]
        assert let_out == ["r5/a/1"], "the run goes on after a trial that could not run"
