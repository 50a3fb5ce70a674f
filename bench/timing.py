"""One timed run through the platform, and what /proc says about the stack while it ran.

A run's wall time is from SubmitRun until the run.completed event has arrived, the runner
has the run as completed and the transcript store holds every trial ("everything stored").
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bench.procs import StackProcess, cpu_seconds, peak_rss_mb
from bench.stacks import BenchStack

RUN_TIMEOUT_S = 900.0
SILENCE_S = 15.0
"""A run with no event for this long has stalled: the JetStream consumers are recorded."""


def suite_for(name: str, cases: int, graders: list[dict[str, Any]]) -> Any:
    from agenteval.contracts.suite import Suite

    return Suite.model_validate(
        {
            "name": name,
            "cases": [
                {"id": f"case-{i}", "input": f"question {i}", "graders": graders} for i in range(cases)
            ],
        }
    )


def cpu_by_pid(processes: list[StackProcess]) -> dict[int, float]:
    """CPU seconds used so far by each process."""
    return {p.pid: cpu_seconds(p.pid) for p in processes}


async def _stored(client: Any, run_id: str, trials: int) -> None:
    """Wait until the runner has the run completed and the store holds every trial."""
    from agenteval.v1 import transcripts_pb2

    while True:
        # The raw call counts stored trials without fetching them (the typed client lists them).
        listed = await client._stubs.transcripts.ListTrials(
            transcripts_pb2.ListTrialsRequest(run_id=run_id, limit=1, summary_only=True)
        )
        if listed.total >= trials and (await client.get_run(run_id)).status == "completed":
            return
        await asyncio.sleep(0.01)


async def timed_run(
    stack: BenchStack, suite: Any, agent: str, k: int, concurrency: int = 0, watch: bool = True
) -> dict[str, Any]:
    """Submit one run, follow it to the end, and time it. Every trial of the bench agents should
    pass; ``passes`` below ``trials`` is reported, not raised (grading may fail under load).
    ``watch``: follow the run's result stream (every trial's verdict, one subscriber), else
    poll GetRun until it is completed (no subscriber)."""
    from agenteval.sdk import Client
    from agenteval.v1 import runner_pb2

    expected = len(suite.cases) * k
    async with Client(stack.target) as client:
        before = cpu_by_pid(stack.processes())
        started = time.perf_counter()
        async with asyncio.timeout(RUN_TIMEOUT_S):
            run = await client.submit(suite, agent=agent, k=k, concurrency=concurrency)
            summary = None
            events = (client.watch(run.run_id) if watch else _polled(client, run.run_id)).__aiter__()
            longest_silence_s, stall = 0.0, None
            while summary is None:
                waited = time.perf_counter()
                try:
                    ev = (
                        await asyncio.wait_for(anext(events), SILENCE_S)
                        if stall is None
                        else await anext(events)
                    )
                except TimeoutError:
                    stall = await consumers(stack)
                    continue
                except StopAsyncIteration:
                    raise RuntimeError(f"run {run.run_id}: the watch ended before run.completed") from None
                longest_silence_s = max(longest_silence_s, time.perf_counter() - waited)
                if ev.type == runner_pb2.RUN_EVENT_TYPE_COMPLETED:
                    summary = ev.summary
                elif ev.type == runner_pb2.RUN_EVENT_TYPE_CANCELLED:
                    raise RuntimeError(f"run {run.run_id} was cancelled")
            completed_s = time.perf_counter() - started
            await _stored(client, run.run_id, expected)
        wall_s = time.perf_counter() - started
        after = cpu_by_pid(stack.processes())
    if summary is None or summary.trials != expected:
        got = "no summary" if summary is None else f"{summary.trials} trials"
        raise RuntimeError(f"run {run.run_id}: expected {expected} trials, got {got}")
    cpu_s = sum(after[pid] - before.get(pid, 0.0) for pid in after)
    return {
        "trials": expected,
        "passes": summary.passes,
        "wall_s": wall_s,
        "completed_s": completed_s,
        "store_lag_s": wall_s - completed_s,
        "cpu_s": cpu_s,
        "trials_per_s": expected / wall_s,
        "wall_ms_per_trial": wall_s * 1000.0 / expected,
        "cpu_ms_per_trial": cpu_s * 1000.0 / expected,
        "longest_silence_s": longest_silence_s,
        **({"stall": stall} if stall is not None else {}),
    }


async def _polled(client: Any, run_id: str) -> Any:
    """GetRun every 20 ms until the run is completed, shaped like the watch's last event."""
    from agenteval.contracts.pb import summary_to_pb
    from agenteval.v1 import runner_pb2

    while True:
        run = await client.get_run(run_id)
        if run.status == "completed" and run.summary is not None:
            yield runner_pb2.WatchRunResponse(
                type=runner_pb2.RUN_EVENT_TYPE_COMPLETED, summary=summary_to_pb(run.summary)
            )
            return
        await asyncio.sleep(0.02)


async def consumers(stack: BenchStack) -> list[dict[str, Any]]:
    """The JetStream consumers' counters, to see where a stalled run's messages wait."""
    import nats

    from agenteval.contracts.subjects import Subjects

    nc = await nats.connect(stack.nats_url)
    try:
        infos = await nc.jetstream().consumers_info(Subjects(stack.bus_prefix).stream)
    finally:
        await nc.close()
    return [
        {
            "consumer": ci.name,
            "pending": ci.num_pending,
            "ack_pending": ci.num_ack_pending,
            "redelivered": ci.num_redelivered,
            "waiting_pulls": ci.num_waiting,
        }
        for ci in infos
    ]


def peak_rss(processes: list[StackProcess]) -> dict[str, float]:
    """VmHWM of every live process, by role (numbered when a role repeats)."""
    out: dict[str, float] = {}
    for proc in processes:
        mb = peak_rss_mb(proc.pid)
        if mb is None:
            continue
        name, n = proc.role, 1
        while name in out:
            n += 1
            name = f"{proc.role}-{n}"
        out[name] = round(mb, 1)
    return out
