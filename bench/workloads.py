"""The workloads W1 (overhead), W2 (concurrency) and W3 (sandboxed grading).

Each :class:`Config` is measured by :func:`run_config`: start the stack, one warm-up run
at a tenth of the size (discarded), then ``reps`` timed runs; the figures reported are
those of the median run by wall time, with every run kept in ``runs``. A run's wall time
is from SubmitRun until the run.completed event has arrived, the runner has the run as
completed and the transcript store holds every trial ("everything stored").

``python -m bench.workloads --config JSON --out FILE`` measures one config in a fresh
process (so its peak RSS is that workload's own) and writes the result as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.procs import StackProcess, cpu_seconds, peak_rss_mb
from bench.stacks import BenchStack, distributed, embedded

RUN_TIMEOUT_S = 900.0
POOL_LABEL = "W3-pool sandbox pool alone, 2 workers"
SILENCE_S = 15.0
"""A run with no event for this long has stalled: the JetStream consumers are recorded."""


@dataclass
class Config:
    """One measurement: a workload on one kind of stack at one size."""

    workload: str
    """W1, W2, W3 (through the platform) or W3-pool (the sandbox pool driven directly)."""
    mode: str = "embedded"
    """embedded or distributed (W3-pool: pool)."""
    runners: int = 1
    """Runner replicas (distributed)."""
    cases: int = 1000
    trials: int = 5
    """Trials per case (k)."""
    reps: int = 3
    limits: list[tuple[int, int]] = field(default_factory=list)
    """W2: (concurrency limit, cases) pairs, each measured on the same stack."""

    @property
    def label(self) -> str:
        if self.workload == "W3-pool":
            return POOL_LABEL
        where = f"distributed, {self.runners} runner{'s' if self.runners > 1 else ''}"
        return f"{self.workload} {self.mode if self.mode != 'distributed' else where}"


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


def _cpu(processes: list[StackProcess]) -> dict[int, float]:
    return {p.pid: cpu_seconds(p.pid) for p in processes}


async def _stored(client: Any, run_id: str, trials: int) -> None:
    """Wait until the runner has the run completed and the store holds every trial."""
    from agenteval.v1 import common_pb2, transcripts_pb2

    while True:
        listed = await client.transcripts.ListTrials(
            transcripts_pb2.ListTrialsRequest(run_id=run_id, limit=1, summary_only=True)
        )
        if (
            listed.total >= trials
            and (await client.get_run(run_id)).status == common_pb2.RUN_STATUS_COMPLETED
        ):
            return
        await asyncio.sleep(0.01)


async def timed_run(
    stack: BenchStack, suite: Any, agent: str, k: int, concurrency: int = 0
) -> dict[str, Any]:
    """Submit one run, follow it to the end, and time it. Every trial of the bench agents should
    pass; ``passes`` below ``trials`` is reported, not raised (grading may fail under load)."""
    from agenteval.client import Client
    from agenteval.v1 import runner_pb2

    expected = len(suite.cases) * k
    async with Client(stack.target) as client:
        before = _cpu(stack.processes())
        started = time.perf_counter()
        async with asyncio.timeout(RUN_TIMEOUT_S):
            run = await client.submit(suite, agent=agent, k=k, concurrency=concurrency)
            summary = None
            events = client.watch(run.run_id).__aiter__()
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
        after = _cpu(stack.processes())
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


async def measure(
    stack: BenchStack, reps: int, warmup: Callable[[], Any], timed: Callable[[], Any]
) -> dict[str, Any]:
    """One discarded warm-up, ``reps`` timed runs; the median run by wall time, and all of them."""
    await warmup()
    runs = [await timed() for _ in range(reps)]
    median = sorted(runs, key=lambda r: r["wall_s"])[(len(runs) - 1) // 2]
    return {
        **median,
        "runs": runs,
        "spread_trials_per_s": [min(r["trials_per_s"] for r in runs), max(r["trials_per_s"] for r in runs)],
    }


async def w1(stack: BenchStack, cases: int, trials: int, reps: int) -> dict[str, Any]:
    """Overhead: an agent that answers at once, one exact-match code grader."""
    graders = [{"output_equals": {"value": "ok"}}]
    agent = "python:bench.agents:instant"
    small, full = suite_for("w1-warmup", max(10, cases // 10), graders), suite_for("w1", cases, graders)
    return await measure(
        stack,
        reps,
        lambda: timed_run(stack, small, agent, trials),
        lambda: timed_run(stack, full, agent, trials),
    )


async def w2(stack: BenchStack, limits: list[tuple[int, int]], trials: int, reps: int) -> dict[str, Any]:
    """Concurrency: an agent that awaits 200 ms; achieved concurrency at each limit."""
    from bench.agents import SLEEP_S

    graders = [{"output_equals": {"value": "ok"}}]
    agent = "python:bench.agents:sleeper"
    out: dict[str, Any] = {}
    for limit, cases in limits:
        small, full = suite_for("w2-warmup", max(10, cases // 10), graders), suite_for("w2", cases, graders)
        result = await measure(
            stack,
            reps,
            lambda small=small, limit=limit: timed_run(stack, small, agent, trials, limit),
            lambda full=full, limit=limit: timed_run(stack, full, agent, trials, limit),
        )
        for run in [result, *result["runs"]]:
            run["achieved_concurrency"] = run["trials"] * SLEEP_S / run["wall_s"]
        out[str(limit)] = {"limit": limit, "cases": cases, **result}
    return {"limits": out}


async def w3(stack: BenchStack, cases: int, trials: int, reps: int) -> dict[str, Any]:
    """Grading: each trial's ~5 KB transcript graded by a sandboxed eval function."""
    from bench.transcripts import EVAL_CODE

    graders = [{"eval_function": {"code": EVAL_CODE}}]
    agent = "python:bench.agents:transcript"
    small, full = suite_for("w3-warmup", max(10, cases // 10), graders), suite_for("w3", cases, graders)
    return await measure(
        stack,
        reps,
        lambda: timed_run(stack, small, agent, trials),
        lambda: timed_run(stack, full, agent, trials),
    )


async def w3_pool(calls: int, reps: int) -> dict[str, Any]:
    """Grading without the platform: ``SandboxPool(workers=2).run_batch`` over ``calls`` traces."""
    from agenteval.sandbox import SandboxPool
    from bench.transcripts import EVAL_CODE, eval_dict

    traces = [eval_dict(i) for i in range(calls)]
    async with SandboxPool(workers=2) as pool:
        me = [StackProcess("driver+pool", os.getpid())]

        async def timed(batch: list[dict[str, Any]]) -> dict[str, Any]:
            processes = me + [StackProcess("sandbox-worker", pid) for pid in pool.worker_pids()]
            before = _cpu(processes)
            started = time.perf_counter()
            results = await pool.run_batch(EVAL_CODE, batch)
            wall_s = time.perf_counter() - started
            cpu_s = sum(cpu_seconds(p.pid) - before.get(p.pid, 0.0) for p in processes)
            failed = [r.error for r in results if not r.ok]
            if failed:
                raise RuntimeError(f"{len(failed)} eval calls failed, first: {failed[0]}")
            return {
                "trials": len(batch),
                "wall_s": wall_s,
                "cpu_s": cpu_s,
                "trials_per_s": len(batch) / wall_s,
                "wall_ms_per_trial": wall_s * 1000.0 / len(batch),
                "cpu_ms_per_trial": cpu_s * 1000.0 / len(batch),
            }

        stack = BenchStack("pool", "", me + [StackProcess("sandbox-worker", p) for p in pool.worker_pids()])
        result = await measure(
            stack, reps, lambda: timed(traces[: max(10, calls // 10)]), lambda: timed(traces)
        )
        return {**result, "peak_rss_mb": peak_rss(stack.processes())}


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


async def run_config(cfg: Config) -> dict[str, Any]:
    """Measure one config in this process; the result carries its figures and peak RSS."""
    from bench.transcripts import plain_eval_ms

    started = time.perf_counter()
    result: dict[str, Any] = {"config": asdict(cfg), "label": cfg.label}
    if cfg.workload == "W3-pool":
        result.update(await w3_pool(cfg.cases * cfg.trials, cfg.reps))
    else:
        concurrency = max((limit for limit, _ in cfg.limits), default=None)
        stack_cm = embedded(concurrency) if cfg.mode == "embedded" else distributed(cfg.runners, concurrency)
        async with stack_cm as stack:
            if cfg.workload == "W1":
                result.update(await w1(stack, cfg.cases, cfg.trials, cfg.reps))
            elif cfg.workload == "W2":
                result.update(await w2(stack, cfg.limits, cfg.trials, cfg.reps))
            elif cfg.workload == "W3":
                result.update(await w3(stack, cfg.cases, cfg.trials, cfg.reps))
            else:
                raise ValueError(f"unknown workload {cfg.workload!r}")
            result["peak_rss_mb"] = peak_rss(stack.processes())
            if stack.mode != "embedded":
                result["driver_peak_rss_mb"] = round(peak_rss_mb(os.getpid()) or 0.0, 1)
    if cfg.workload.startswith("W3"):
        result["eval_plain_python"] = plain_eval_ms()
    result["peak_rss_total_mb"] = round(sum(result["peak_rss_mb"].values()), 1)
    result["elapsed_s"] = round(time.perf_counter() - started, 1)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True, help="A Config as JSON.")
    parser.add_argument("--out", required=True, type=Path, help="Where to write the result (JSON).")
    args = parser.parse_args()
    raw = json.loads(args.config)
    raw["limits"] = [tuple(pair) for pair in raw.get("limits", [])]
    result = asyncio.run(run_config(Config(**raw)))
    args.out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
