"""TestEvalCode: run an eval function over labeled traces and measure its accuracy.

Score >= 0.5 predicts "positive". A trace the code fails on counts as an error (and as
not correct); code that cannot run at all is reported once, as ``code_error``. Traces
reach the code with ``tool_calls`` as graders give them (:meth:`Trace.to_eval_dict`), so
an eval function scores the same here as in a suite.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenteval.contracts import pb
from agenteval.contracts.errors import InvalidArgument
from agenteval.contracts.records import EvalCodeReport, EvalMismatch, Label
from agenteval.v1 import grader_pb2

POSITIVE: Label = "positive"
NEGATIVE: Label = "negative"
MAX_MISMATCHES = 200
MAX_TIMEOUT_S = 60.0
"""Longest per-trace timeout a caller may ask for (as for eval_function graders)."""


def with_tool_calls(trace: Any) -> Any:
    """``trace`` with ``tool_calls`` (its tool_call steps) added when missing.

    Stored traces (``Trace.model_dump_json``) have every field but that one. Cheaper than
    validating each trace again, which would cost about as much as running the code.
    """
    if not isinstance(trace, dict) or "tool_calls" in trace or not isinstance(trace.get("steps"), list):
        return trace
    calls = [s for s in trace["steps"] if isinstance(s, dict) and s.get("type") == "tool_call"]
    return {**trace, "tool_calls": calls}


class EvalCodeTester:
    """Runs eval code in the sandbox pool and scores it against labels."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool

    async def test(
        self,
        code: str,
        traces: Sequence[tuple[str, dict[str, Any], str]],
        allowed_imports: list[str] | None = None,
        timeout_s: float | None = None,
    ) -> EvalCodeReport:
        """``traces`` is (trace_id, trace dict, label) with label positive/negative."""
        from agenteval.sandbox import check_code

        for _, _, label in traces:
            if label not in (POSITIVE, NEGATIVE):
                raise InvalidArgument(f"label must be 'positive' or 'negative', got {label!r}")
        if timeout_s is not None and not 0 < timeout_s <= MAX_TIMEOUT_S:
            raise InvalidArgument(
                f"timeout_s must be above 0 and at most {MAX_TIMEOUT_S:g}, got {timeout_s:g}"
            )
        try:
            problems = check_code(code, allowed_imports=allowed_imports or ())
        except ValueError as exc:  # a malformed allowed_imports entry
            raise InvalidArgument(str(exc)) from None
        if problems:
            msg = "; ".join(f"{p.rule}: {p.message}" for p in problems)
            return EvalCodeReport(
                accuracy=0.0, total=len(traces), correct=0, incorrect=0, errors=len(traces), code_error=msg
            )
        results = await self.pool.run_batch(
            code,
            [with_tool_calls(t) for _, t, _ in traces],
            allowed_imports=allowed_imports or (),
            timeout_s=timeout_s,
        )
        correct = incorrect = errors = 0
        mismatches: list[EvalMismatch] = []
        for (trace_id, _, label), res in zip(traces, results, strict=True):
            if res.error is not None:
                errors += 1
                if len(mismatches) < MAX_MISMATCHES:
                    mismatches.append(
                        EvalMismatch(
                            trace_id=trace_id,
                            expected=label,
                            error=f"{res.error.rule}: {res.error.message}",
                        )
                    )
                continue
            predicted = POSITIVE if (res.score or 0.0) >= 0.5 else NEGATIVE
            if predicted == label:
                correct += 1
            else:
                incorrect += 1
                if len(mismatches) < MAX_MISMATCHES:
                    mismatches.append(
                        EvalMismatch(
                            trace_id=trace_id,
                            expected=label,
                            predicted=predicted,
                            score=res.score,
                            explanation=res.explanation,
                        )
                    )
        total = len(traces)
        return EvalCodeReport(
            accuracy=correct / total if total else 0.0,
            total=total,
            correct=correct,
            incorrect=incorrect,
            errors=errors,
            mismatches=mismatches,
        )

    async def test_pb(self, request: grader_pb2.TestEvalCodeRequest) -> grader_pb2.TestEvalCodeResponse:
        traces = [
            (t.trace_id, t.trace.to_eval_dict(), t.label) for t in pb.labeled_traces_from_pb(request.traces)
        ]
        report = await self.test(
            request.code, traces, list(request.allowed_imports), request.timeout_s or None
        )
        return pb.eval_report_to_pb(report)
