"""Throughput of the eval-function sandbox: ``python bench/bench_sandbox.py`` prints JSON.

Measures, for a cheap eval function on ~5 KB traces:
- batched calls/s (run_batch) and calls per CPU-second (parent + workers, from /proc);
- the time to run_batch 1,000 traces;
- sequential single-call (run) calls/s;
- with ``--test-eval-code``: the real TestEvalCode request for 1,000 labeled traces, over
  gRPC to the grader of an embedded stack (what ``agent-eval evals check`` waits for).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import time
from typing import Any

from agenteval.sandbox import SandboxPool

CHEAP_EVAL = """
import re

def eval_answer_mentions_refund(trace, ctx=None):
    output = trace.get("output") or ""
    used_tool = any(call.get("name") == "issue_refund" for call in trace.get("tool_calls", []))
    if re.search(r"\\brefund(ed)?\\b", output, re.I) and used_tool:
        return 1.0, "mentions the refund and issued it"
    return 0.0, "no refund issued or mentioned"
"""


def make_trace(i: int) -> dict[str, Any]:
    """A trace of about 5 KB in the shape of ``Trace.to_eval_dict()``."""
    steps: list[dict[str, Any]] = []
    for j in range(6):
        steps.append(
            {
                "type": "llm_call",
                "model": "claude-sonnet",
                "input_tokens": 900 + j,
                "output_tokens": 120,
                "latency_ms": 850.0,
                "content": f"Thinking about order {i}-{j}: " + "the customer wants their money back. " * 6,
            }
        )
        steps.append(
            {
                "type": "tool_call",
                "name": "issue_refund" if j == 5 and i % 2 == 0 else "lookup_order",
                "arguments": {"order_id": f"A{i:05d}", "reason": "damaged item"},
                "result": {"status": "ok", "items": [{"sku": "X-1", "qty": 1, "price": 19.99}]},
                "latency_ms": 42.0,
            }
        )
    trace = {
        "input": [{"role": "user", "content": f"My order A{i:05d} arrived broken, I want a refund."}],
        "steps": steps,
        "output": "I have refunded your order." if i % 2 == 0 else "Please send a photo of the damage.",
        "state": {"refunded": i % 2 == 0},
        "usage": {"input_tokens": 5400, "output_tokens": 720},
        "latency_ms": 5400.0,
        "status": "ok",
        "error": None,
        "metadata": {"case_id": f"case-{i}", "trial": i % 5},
    }
    trace["tool_calls"] = [s for s in steps if s["type"] == "tool_call"]
    return trace


def cpu_seconds(pids: list[int]) -> float:
    """CPU time of this process plus the given children (user + system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    total = usage.ru_utime + usage.ru_stime
    ticks = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
        except (OSError, IndexError, ValueError):
            pass
    return total


async def bench(workers: int, batch: int) -> dict[str, Any]:
    traces = [make_trace(i) for i in range(batch)]
    trace_bytes = len(json.dumps(traces[0]))
    async with SandboxPool(workers=workers) as pool:
        warm = await pool.run_batch(CHEAP_EVAL, traces[:200])  # compile caches, warm workers
        assert all(r.error is None for r in warm), warm[0].error
        pids = pool.worker_pids()

        cpu0, t0 = cpu_seconds(pids), time.perf_counter()
        results = await pool.run_batch(CHEAP_EVAL, traces)
        wall = time.perf_counter() - t0
        cpu = cpu_seconds(pids) - cpu0
        assert all(r.error is None for r in results), "benchmark eval failed"

        t1 = time.perf_counter()
        await pool.run_batch(CHEAP_EVAL, traces[:1000])
        batch_1000_s = time.perf_counter() - t1

        singles = 300
        t2 = time.perf_counter()
        for trace in traces[:singles]:
            await pool.run(CHEAP_EVAL, trace)
        single_wall = time.perf_counter() - t2

    cores = min(workers + 1, os.cpu_count() or 1)
    return {
        "workers": workers,
        "cpu_count": os.cpu_count(),
        "trace_bytes": trace_bytes,
        "batch_size": batch,
        "batched_calls_per_s": round(batch / wall),
        "batched_calls_per_cpu_s": round(batch / cpu) if cpu > 0 else None,
        "batched_calls_per_s_per_core": round(batch / wall / cores),
        "run_batch_1000_traces_s": round(batch_1000_s, 4),
        "single_run_calls_per_s": round(singles / single_wall),
    }


async def bench_test_eval_code(n: int = 1000, reps: int = 5) -> dict[str, Any]:
    """Wall time of TestEvalCode on ``n`` labeled traces through gRPC (median of ``reps``)."""
    import statistics
    import tempfile
    from pathlib import Path

    from agenteval.cli.stack import EmbeddedStack
    from agenteval.contracts import pb
    from agenteval.sdk import Client, LabeledTrace, Trace
    from agenteval.v1 import grader_pb2

    traces = [
        pb.labeled_trace_to_pb(
            LabeledTrace(
                trace_id=f"t{i}",
                trace=Trace.from_eval_dict(make_trace(i)),
                label="positive" if i % 2 == 0 else "negative",
            )
        )
        for i in range(n)
    ]
    # Built once, sent raw: the figure is the service's time, not the client's conversion.
    request = grader_pb2.TestEvalCodeRequest(code=CHEAP_EVAL, traces=traces)
    with tempfile.TemporaryDirectory(prefix="agenteval-bench-") as tmp:
        async with EmbeddedStack(Path(tmp)) as stack, Client(stack.target) as client:
            await client._stubs.grader.TestEvalCode(request)  # warm-up: workers, caches
            times = []
            for _ in range(reps):
                t0 = time.perf_counter()
                reply = await client._stubs.grader.TestEvalCode(request)
                times.append(time.perf_counter() - t0)
    assert reply.total == n and not reply.code_error, reply.code_error
    return {
        "test_eval_code_traces": n,
        "test_eval_code_s_median": round(statistics.median(times), 4),
        "test_eval_code_s_range": [round(min(times), 4), round(max(times), 4)],
        "test_eval_code_accuracy": round(reply.accuracy, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=5000)
    parser.add_argument(
        "--test-eval-code", action="store_true", help="Also time the gRPC TestEvalCode request."
    )
    args = parser.parse_args()
    result = asyncio.run(bench(args.workers, args.batch))
    if args.test_eval_code:
        result.update(asyncio.run(bench_test_eval_code()))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
