"""TestEvalCode: run an eval function over labeled traces and measure its accuracy.

Score >= 0.5 predicts "positive". A trace the code fails on counts as an error (and as
not correct); code that cannot run at all is reported once, as ``code_error``. Traces
reach the code with ``tool_calls`` as graders give them (:meth:`Trace.to_eval_dict`), so
an eval function scores the same here as in a suite.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agenteval.contracts.errors import InvalidArgument
from agenteval.v1 import grader_pb2

POSITIVE, NEGATIVE = "positive", "negative"
LABEL_TO_PB = {POSITIVE: grader_pb2.LABEL_POSITIVE, NEGATIVE: grader_pb2.LABEL_NEGATIVE}
LABEL_FROM_PB = {v: k for k, v in LABEL_TO_PB.items()}
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


@dataclass
class Mismatch:
    trace_id: str
    expected: str
    predicted: str | None
    score: float | None
    explanation: str
    error: str | None = None


@dataclass
class EvalCodeReport:
    accuracy: float
    total: int
    correct: int
    incorrect: int
    errors: int
    mismatches: list[Mismatch] = field(default_factory=list)
    code_error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "accuracy": self.accuracy,
            "total": self.total,
            "correct": self.correct,
            "incorrect": self.incorrect,
            "errors": self.errors,
            "code_error": self.code_error,
            "mismatches": [m.__dict__ for m in self.mismatches],
        }


class EvalCodeTester:
    """Runs eval code in the sandbox pool and scores it against labels."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool

    async def test(
        self,
        code: str,
        traces: list[tuple[str, dict[str, Any], str]],
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
            return EvalCodeReport(0.0, len(traces), 0, 0, len(traces), [], code_error=msg)
        results = await self.pool.run_batch(
            code,
            [with_tool_calls(t) for _, t, _ in traces],
            allowed_imports=allowed_imports or (),
            timeout_s=timeout_s,
        )
        correct = incorrect = errors = 0
        mismatches: list[Mismatch] = []
        for (trace_id, _, label), res in zip(traces, results, strict=True):
            if res.error is not None:
                errors += 1
                if len(mismatches) < MAX_MISMATCHES:
                    mismatches.append(
                        Mismatch(trace_id, label, None, None, "", f"{res.error.rule}: {res.error.message}")
                    )
                continue
            predicted = POSITIVE if (res.score or 0.0) >= 0.5 else NEGATIVE
            if predicted == label:
                correct += 1
            else:
                incorrect += 1
                if len(mismatches) < MAX_MISMATCHES:
                    mismatches.append(Mismatch(trace_id, label, predicted, res.score, res.explanation))
        total = len(traces)
        return EvalCodeReport(
            correct / total if total else 0.0, total, correct, incorrect, errors, mismatches
        )

    async def test_pb(self, request: grader_pb2.TestEvalCodeRequest) -> grader_pb2.TestEvalCodeResponse:
        traces: list[tuple[str, dict[str, Any], str]] = []
        for i, lt in enumerate(request.traces):
            if lt.label not in LABEL_FROM_PB:
                raise InvalidArgument(f"traces[{i}] ({lt.trace_id or 'no id'}): label is not set")
            try:
                trace = json.loads(lt.trace_json)
            except ValueError as exc:
                raise InvalidArgument(
                    f"traces[{i}] ({lt.trace_id or 'no id'}): trace_json is not JSON: {exc}"
                ) from None
            traces.append((lt.trace_id or str(i), trace, LABEL_FROM_PB[lt.label]))
        report = await self.test(
            request.code, traces, list(request.allowed_imports), request.timeout_s or None
        )
        return grader_pb2.TestEvalCodeResponse(
            accuracy=report.accuracy,
            total=report.total,
            correct=report.correct,
            incorrect=report.incorrect,
            errors=report.errors,
            code_error=report.code_error or "",
            mismatches=[
                grader_pb2.Mismatch(
                    trace_id=m.trace_id,
                    expected=LABEL_TO_PB[m.expected],
                    predicted=LABEL_TO_PB.get(m.predicted or "", grader_pb2.LABEL_UNSPECIFIED),
                    score=m.score or 0.0,
                    explanation=m.explanation,
                    error=m.error or "",
                )
                for m in report.mismatches
            ],
        )
