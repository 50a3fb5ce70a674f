"""The agent worker pool on its own, with real worker processes: checking agents without
importing them in the runner, workers that die from outside, closing, what workers inherit."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agenteval.contracts.errors import InvalidArgument
from agenteval.contracts.events import TrialRequested
from agenteval.contracts.suite import Case
from agenteval.runner.settings import RunnerSettings
from agenteval.runner.trials import TrialRunner
from agenteval.runner.workers import PoolClosed, Verdict, WorkerLimits, WorkerPool
from tests.runner.procs import alive

FAULTS = "python:tests.runner.fault_agents:misbehaves"


def request(agent: str, case_id: str = "c", timeout_s: float = 5.0, **metadata: str) -> TrialRequested:
    return TrialRequested(
        event_id=f"trial.requested:r/{case_id}/0",
        run_id="r",
        trial_id=f"r/{case_id}/0",
        case=Case(id=case_id, input="hi", metadata=metadata),
        graders=[],
        trial_index=0,
        trials_total=1,
        agent=agent,
        timeout_s=timeout_s,
    )


@pytest.fixture
async def trials() -> AsyncIterator[TrialRunner]:
    runner = TrialRunner(RunnerSettings())
    yield runner
    await runner.close()


def agent_file(tmp_path: Path, body: str) -> str:
    path = tmp_path / "agent_under_test.py"
    path.write_text(body + "\n\nasync def agent(messages, ctx):\n    return 'fine'\n")
    return f"python:{path}:agent"


async def test_an_agent_is_checked_in_a_worker_and_one_that_exits_on_import_is_refused(
    trials: TrialRunner, tmp_path: Path
) -> None:
    with pytest.raises(InvalidArgument, match="no attribute 'nothing_here'"):
        await trials.check("python:tests.runner.fault_agents:nothing_here")
    spec = agent_file(tmp_path, "import os\nos._exit(7)")
    with pytest.raises(InvalidArgument, match="exited with code 7"):
        await trials.check(spec)
    await trials.check(FAULTS)  # the pool goes on
    trace = await trials.run(request(FAULTS))
    assert trace.status == "ok" and trace.output == "fine"


async def test_an_agent_whose_import_hangs_is_refused_after_the_load_timeout(tmp_path: Path) -> None:
    pool = WorkerPool(WorkerLimits(workers=1, load_timeout_s=0.5, kill_grace_s=0.3))
    try:
        error = await asyncio.wait_for(pool.load(agent_file(tmp_path, "import time\ntime.sleep(600)")), 30)
        assert error is not None and "importing it held its worker" in error
        assert await pool.load(FAULTS) is None
    finally:
        await pool.close()


async def test_checking_an_agent_does_not_wait_for_a_worker_whose_loop_another_trial_blocks(
    tmp_path: Path,
) -> None:
    """A submission checks its agent in a worker. With the only worker's loop held by a
    blocking agent (its trial has 60 s to go), the check is answered elsewhere, while that
    trial still runs: not after the deadline kills the worker (the second submit of a runner
    serving a blocked agent used to wait a minute)."""
    pool = WorkerPool(WorkerLimits(workers=1))
    blocked = (FAULTS, [], "r", "c", 0, 0, {}, {}, {"fault": "block"}, 60.0, "")
    try:
        trial = asyncio.create_task(pool.run(blocked, 60.0))
        # Sent at once, it may reach the worker behind the blocking trial: it is taken back.
        assert await asyncio.wait_for(pool.load("python:tests.agents:echo_tool"), 120) is None
        assert not trial.done(), "the check waited for the blocked worker to be killed"
        # Sent once the loop is known blocked, it never goes there; an import that fails says so.
        await asyncio.sleep(1.0)
        error = await asyncio.wait_for(pool.load(agent_file(tmp_path, "raise ValueError('bad agent')")), 120)
        assert error is not None and "bad agent" in error
        assert await asyncio.wait_for(pool.load("python:tests.agents:instant"), 120) is None
        assert not trial.done()
    finally:
        await pool.close()


async def test_workers_killed_from_outside_cost_a_rerun_and_a_trial_dying_alone_is_blamed(
    trials: TrialRunner,
) -> None:
    """What the OOM killer does: SIGKILL, without a word. Idle workers are just replaced; a
    trial whose worker dies is run again alone (it may be innocent), and blamed with the
    reason only when it dies alone too."""
    await trials.check(FAULTS)
    pool = trials.pool
    assert pool is not None
    for pid in pool.worker_pids():
        os.kill(pid, signal.SIGKILL)
    trace = await trials.run(request(FAULTS))
    assert trace.status == "ok", "a trial after idle workers died did not run"

    async def kill_the_worker_running_it(lane: list[Any]) -> None:
        for _ in range(200):
            holding = [w for w in lane if w.inflight and w.pid is not None and w.killed is None]
            if holding:
                os.kill(holding[0].pid, signal.SIGKILL)
                return
            await asyncio.sleep(0.05)
        raise AssertionError("no worker took the trial")

    survivor = asyncio.create_task(trials.run(request("python:tests.agents:long_nap", "survivor")))
    await kill_the_worker_running_it(pool._workers)
    trace = await asyncio.wait_for(survivor, 20)
    assert trace.status == "ok", f"a trial whose worker was killed once did not pass: {trace.error}"

    doomed = asyncio.create_task(trials.run(request("python:tests.agents:long_nap", "doomed")))
    await kill_the_worker_running_it(pool._workers)
    await kill_the_worker_running_it(pool._solo)  # where it runs alone, as a suspect
    trace = await asyncio.wait_for(doomed, 20)
    assert trace.status == "error" and trace.error is not None
    assert trace.error.code == "agent_crashed"
    assert "agent process was killed by SIGKILL (out of memory?" in trace.error.message


async def test_closing_the_pool_ends_running_trials_and_the_workers() -> None:
    pool = WorkerPool(WorkerLimits(workers=2))
    item = ("python:tests.agents:slow", [], "r", "c", 0, 0, {}, {}, {}, 30.0, "")
    running = asyncio.create_task(pool.run(item, 30.0))
    await asyncio.sleep(1.0)
    pids = pool.worker_pids()
    assert len(pids) == 2
    await asyncio.wait_for(pool.close(), 10)
    with pytest.raises(PoolClosed):
        await running
    assert not any(alive(pid) for pid in pids), "closing the pool left workers running"


async def test_workers_get_the_runners_environment_and_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Agents need their API keys and relative paths as the runner sees them."""
    monkeypatch.setenv("AGENT_API_KEY", "sk-test")
    (tmp_path / "data.txt").write_text("from the working directory")
    monkeypatch.chdir(tmp_path)
    spec = agent_file(
        tmp_path,
        "import os\n\nasync def reads(messages, ctx):\n"
        "    return os.environ['AGENT_API_KEY'] + ' ' + open('data.txt').read()",
    ).replace(":agent", ":reads")
    runner = TrialRunner(RunnerSettings())
    try:
        trace = await runner.run(request(spec))
    finally:
        await runner.close()
    assert trace.output == "sk-test from the working directory"


async def test_a_trial_result_is_json_the_pool_never_unmarshals() -> None:
    pool = WorkerPool(WorkerLimits(workers=1))
    try:
        item = (FAULTS, [], "r", "c", 0, 0, {}, {}, {}, 5.0, "")
        out = await pool.run(item, 5.0)
        assert not isinstance(out, Verdict)
        assert out.startswith(b"{") and b'"output":"fine"' in out
    finally:
        await pool.close()


async def test_an_agent_that_ignores_its_cancellation_still_times_out_with_its_steps(
    trials: TrialRunner,
) -> None:
    trace = await asyncio.wait_for(
        trials.run(request("python:tests.runner.fault_agents:stubborn", timeout_s=0.5)), 10
    )
    assert trace.status == "timeout" and trace.error is not None
    assert "did not finish within 0.5s" in trace.error.message
    assert [s.content for s in trace.steps] == ["started", "cancelled, carrying on"]
    trace = await trials.run(request(FAULTS))
    assert trace.status == "ok", "the worker holding the stubborn agent stopped working"
