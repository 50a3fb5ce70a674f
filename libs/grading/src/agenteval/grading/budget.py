"""Budget graders: how many steps, how much repetition, how long."""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agenteval.contracts.trace import Trace
from agenteval.grading._common import calls, names, plural
from agenteval.grading._registry import GradeContext, GradeOutcome, grader


class MaxStepsParams(BaseModel):
    """Parameters of ``max_steps``."""

    model_config = ConfigDict(extra="forbid")

    max: int = Field(ge=0)
    """Most steps that pass."""
    count: Literal["tool_calls", "steps"] = "tool_calls"
    """What is counted: tool calls only, or every step (messages and LLM calls too)."""


@grader("max_steps", params=MaxStepsParams)
def max_steps(trace: Trace, params: MaxStepsParams, ctx: GradeContext) -> GradeOutcome:
    """The agent stayed within a step budget; over it, the score is max / used."""
    found = calls(trace)
    n = len(found) if params.count == "tool_calls" else len(trace.steps)
    unit = "tool call" if params.count == "tool_calls" else "step"
    if n <= params.max:
        return GradeOutcome(1.0, True, f"{plural(n, unit)}, within the budget of {params.max}")
    return GradeOutcome(
        params.max / n,
        False,
        f"{plural(n, unit)}, over the budget of {params.max} (tool calls: {names(found)})",
    )


class EfficiencyParams(BaseModel):
    """Parameters of ``efficiency``."""

    model_config = ConfigDict(extra="forbid")

    max_steps: int | None = Field(default=None, ge=1)
    """Tool calls beyond this count as waste (no budget when absent)."""
    max_repeated_calls: int = Field(default=1, ge=1)
    """How often an identical call (same tool, same arguments) may succeed before repeats are waste.
    A repeat of a call that failed is a retry, never waste."""
    min_score: float = Field(default=1.0, ge=0.0, le=1.0)
    """Passing score (1.0: no waste at all)."""


@grader("efficiency", params=EfficiencyParams)
def efficiency(trace: Trace, params: EfficiencyParams, ctx: GradeContext) -> GradeOutcome:
    """The agent did not waste tool calls on repeats or beyond a budget.

    Score is the share of tool calls that were not waste: repeats of an identical call that
    already succeeded ``max_repeated_calls`` times, and calls beyond ``max_steps`` (the larger of
    the two wastes counts, since they can be the same calls).
    """
    found = calls(trace)
    if not found:
        return GradeOutcome(1.0, True, "no tool calls, nothing wasted")
    succeeded: Counter[str] = Counter()
    repeats: list[str] = []
    for c in found:
        if succeeded[c.key] >= params.max_repeated_calls:
            repeats.append(c.label())
        if not c.failed:
            succeeded[c.key] += 1
    over = max(0, len(found) - params.max_steps) if params.max_steps is not None else 0
    waste = max(len(repeats), over)
    score = (len(found) - waste) / len(found)
    parts = [f"{plural(len(found), 'tool call')}"]
    if repeats:
        parts.append(f"{plural(len(repeats), 'repeated identical call')}: {'; '.join(repeats[:5])}")
    if over:
        parts.append(f"{over} over the budget of {params.max_steps}")
    if not repeats and not over:
        parts.append(
            "no repeats" + (f", within the budget of {params.max_steps}" if params.max_steps else "")
        )
    return GradeOutcome(score, score >= params.min_score, "; ".join(parts) + f"; efficiency {score:.2f}")


class LatencyBudgetParams(BaseModel):
    """Parameters of ``latency_budget``."""

    model_config = ConfigDict(extra="forbid")

    max_ms: float = Field(gt=0)
    """Longest trial wall time that passes, in milliseconds."""


@grader("latency_budget", params=LatencyBudgetParams)
def latency_budget(trace: Trace, params: LatencyBudgetParams, ctx: GradeContext) -> GradeOutcome:
    """The trial finished within a time budget; over it, the score is budget / took.

    Uses the trial's wall time, or the sum of step latencies when the wall time was not recorded.
    """
    took = trace.latency_ms or sum(max(0.0, s.latency_ms) for s in trace.steps)
    if took <= params.max_ms:
        return GradeOutcome(1.0, True, f"took {took:,.0f} ms, within the budget of {params.max_ms:,.0f} ms")
    slow = sorted(trace.steps, key=lambda s: s.latency_ms, reverse=True)[:3]
    slowest = ", ".join(
        f"{s.name or s.model or s.type} {s.latency_ms:,.0f} ms" for s in slow if s.latency_ms > 0
    )
    return GradeOutcome(
        params.max_ms / took,
        False,
        f"took {took:,.0f} ms, over the budget of {params.max_ms:,.0f} ms"
        + (f"; slowest steps: {slowest}" if slowest else ""),
    )
