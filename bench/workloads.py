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
from bench.timing import cpu_by_pid, peak_rss, suite_for, timed_run

POOL_LABEL = "W3-pool sandbox pool alone, 2 workers"


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
    watch: bool = True
    """Follow each run through its result stream (one subscriber) or by polling GetRun (none)."""

    @property
    def label(self) -> str:
        if self.workload == "W3-pool":
            return POOL_LABEL
        where = f"distributed, {self.runners} runner{'s' if self.runners > 1 else ''}"
        label = f"{self.workload} {self.mode if self.mode != 'distributed' else where}"
        return label if self.watch else f"{label}, no subscriber"


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


async def w1(stack: BenchStack, cases: int, trials: int, reps: int, watch: bool = True) -> dict[str, Any]:
    """Overhead: an agent that answers at once, one exact-match code grader."""
    graders = [{"output_equals": {"value": "ok"}}]
    agent = "python:bench.agents:instant"
    small, full = suite_for("w1-warmup", max(10, cases // 10), graders), suite_for("w1", cases, graders)
    return await measure(
        stack,
        reps,
        lambda: timed_run(stack, small, agent, trials, watch=watch),
        lambda: timed_run(stack, full, agent, trials, watch=watch),
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
            before = cpu_by_pid(processes)
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
                result.update(await w1(stack, cfg.cases, cfg.trials, cfg.reps, cfg.watch))
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
