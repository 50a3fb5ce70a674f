"""Builders of traces and a one-call way to grade one, for the grader tests."""

from __future__ import annotations

from typing import Any

from agenteval.contracts.suite import Case, GraderSpec
from agenteval.contracts.trace import Trace
from agenteval.grading import GradeContext, GradeOutcome, get_grader, validate_spec


def call(
    name: str | None, result: Any = None, error: str | None = None, latency_ms: float = 0.0, **arguments: Any
) -> dict[str, Any]:
    """A tool_call step."""
    return {
        "type": "tool_call",
        "name": name,
        "arguments": arguments,
        "result": result,
        "error": error,
        "latency_ms": latency_ms,
    }


def message(content: str, role: str = "assistant") -> dict[str, Any]:
    """A message step."""
    return {"type": "message", "role": role, "content": content}


def trace(*steps: dict[str, Any], output: str | None = "done", **fields: Any) -> Trace:
    """A validated trace of ``steps`` answering ``output`` (other Trace fields by keyword)."""
    fields.setdefault("input", [{"role": "user", "content": "please help"}])
    return Trace.model_validate({"steps": list(steps), "output": output, **fields})


def case(**fields: Any) -> Case:
    """A case the trace answers."""
    fields.setdefault("id", "c1")
    fields.setdefault("input", "please help")
    return Case.model_validate(fields)


def grade(
    name: str, t: Trace, params: dict[str, Any] | None = None, ctx_case: Case | None = None
) -> GradeOutcome:
    """Validate ``params`` as a suite would, run grader ``name`` on ``t`` and check the score range."""
    parsed = validate_spec(GraderSpec(name=name, params=params or {}))
    outcome = get_grader(name).fn(t, parsed, GradeContext(case=ctx_case))
    assert isinstance(outcome, GradeOutcome)
    assert 0.0 <= outcome.score <= 1.0, f"{name} scored {outcome.score} outside [0, 1]"
    assert outcome.explanation, f"{name} gave no explanation"
    if outcome.passed:
        assert outcome.score > 0.0, f"{name} passed with score 0"
    return outcome
