"""Cost of code graders per trial: time run_grader for each built-in code grader on a ~5 KB trace.

python bench/bench_graders.py   # prints JSON: microseconds per grade, per grader
"""

from __future__ import annotations

import asyncio
import json
import time

from agenteval.contracts.suite import Case, GraderSpec
from agenteval.contracts.trace import Step, Trace
from agenteval.grading import GradeContext, run_grader

SPECS = [
    GraderSpec(name="output_equals", params={"value": "Refund of $42.50 issued for order A1001."}),
    GraderSpec(name="output_contains", params={"text": "refund"}),
    GraderSpec(name="output_matches", params={"pattern": r"A\d{4}"}),
    GraderSpec(name="tool_called", params={"tool": "issue_refund"}),
    GraderSpec(name="tool_args", params={"tool": "issue_refund", "args": {"order_id": "A1001"}}),
    GraderSpec(name="tool_sequence", params={"tools": ["lookup_order", "issue_refund"]}),
    GraderSpec(name="max_steps", params={"max": 20}),
    GraderSpec(name="efficiency", params={}),
    GraderSpec(name="termination", params={}),
    GraderSpec(name="grounding", params={}),
    GraderSpec(name="error_handling", params={}),
    GraderSpec(name="state_check", params={"expected": {"orders.A1001.status": "refunded"}}),
]


def trace() -> Trace:
    steps = []
    for i in range(12):
        steps.append(
            Step(
                type="llm_call",
                model="claude-haiku-4-5",
                input_tokens=900,
                output_tokens=80,
                content="thinking about the order " * 4,
            )
        )
        steps.append(
            Step(
                type="tool_call",
                name="lookup_order" if i < 11 else "issue_refund",
                arguments={"order_id": "A1001", "note": "x" * 40},
                result={"order_id": "A1001", "total": 42.5, "status": "delivered", "items": ["a"] * 5},
            )
        )
    return Trace(
        input=[{"role": "user", "content": "Please refund order A1001"}],
        steps=steps,
        output="Refund of $42.50 issued for order A1001.",
        state={"orders": {"A1001": {"status": "refunded"}}},
    )


async def main(n: int = 2000) -> dict[str, float]:
    t = trace()
    ctx = GradeContext(case=Case(id="c", input="Please refund order A1001"))
    out: dict[str, float] = {"trace_bytes": len(t.model_dump_json())}
    for spec in SPECS:
        started = time.perf_counter()
        for _ in range(n):
            await run_grader(spec, t, ctx)
        out[spec.name] = (time.perf_counter() - started) / n * 1e6
    return out


if __name__ == "__main__":
    print(json.dumps({k: round(v, 1) for k, v in asyncio.run(main()).items()}, indent=2))
