"""Graders of individual tool calls: was a tool called (how often, with what arguments)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agenteval.contracts.trace import Trace
from agenteval.grading._common import Call, ToolName, calls, names, plural, ratio, short_args
from agenteval.grading._match import MISSING, Expected, mismatch, show
from agenteval.grading._registry import GradeContext, GradeOutcome, grader


def _arg_problems(call: Call, expected: dict[str, object]) -> list[str]:
    """One entry per expected argument that ``call`` does not match."""
    problems = []
    for key, want in expected.items():
        why = mismatch(want, call.arguments.get(key, MISSING))
        if why is not None:
            problems.append(f"{key}: {why}")
    return problems


def _closest(found: list[Call], expected: dict[str, object]) -> tuple[Call, list[str]]:
    """The call with the fewest argument mismatches, and those mismatches."""
    scored = [(c, _arg_problems(c, expected)) for c in found]
    return min(scored, key=lambda pair: len(pair[1]))


class ToolCalledParams(BaseModel):
    """Parameters of ``tool_called``."""

    model_config = ConfigDict(extra="forbid")

    tool: ToolName
    """Tool that must be called."""
    min_times: int = Field(default=1, ge=0)
    """Fewest matching calls that pass."""
    max_times: int | None = Field(default=None, ge=0)
    """Most matching calls that pass (no limit when absent)."""
    args: dict[str, Expected] | None = None
    """Only calls whose arguments match these count (a subset: other arguments may be present)."""

    @model_validator(mode="after")
    def _bounds(self) -> ToolCalledParams:
        if self.max_times is not None and self.max_times < self.min_times:
            raise ValueError(f"max_times ({self.max_times}) is below min_times ({self.min_times})")
        return self


@grader("tool_called", params=ToolCalledParams)
def tool_called(trace: Trace, params: ToolCalledParams, ctx: GradeContext) -> GradeOutcome:
    """The agent called a tool (between min_times and max_times, optionally with given arguments)."""
    everything = calls(trace)
    of_tool = [c for c in everything if c.name == params.tool]
    hits = [c for c in of_tool if not params.args or not _arg_problems(c, params.args)]
    n, lo, hi = len(hits), params.min_times, params.max_times
    with_args = f" with {show(params.args)}" if params.args else ""
    if n < lo:
        want = f"expected tool {params.tool!r} to be called{with_args}"
        if lo > 1:
            want += f" at least {plural(lo, 'time')}"
        if of_tool and params.args:
            closest, problems = _closest(of_tool, params.args)
            seen = (
                f"it was called {plural(len(of_tool), 'time')} and {len(hits)} matched; "
                f"closest: step {closest.step}: {'; '.join(problems) or 'matched'}"
            )
        elif of_tool:
            seen = f"it was called {plural(len(of_tool), 'time')}"
        else:
            seen = f"the agent called: {names(everything)}"
        return GradeOutcome(n / lo, False, f"{want}; {seen}")
    if hi is not None and n > hi:
        steps = ", ".join(str(c.step) for c in hits)
        return GradeOutcome(
            hi / n,
            False,
            f"expected tool {params.tool!r}{with_args} at most {plural(hi, 'time')}; "
            f"it was called {plural(n, 'time')} (steps {steps})",
        )
    return GradeOutcome(1.0, True, f"tool {params.tool!r} was called{with_args} {plural(n, 'time')}")


class ToolNotCalledParams(BaseModel):
    """Parameters of ``tool_not_called``."""

    model_config = ConfigDict(extra="forbid")

    tool: ToolName
    """Tool that must not be called."""
    args: dict[str, Expected] | None = None
    """Forbid only calls whose arguments match these (a subset); any call when absent."""


@grader("tool_not_called", params=ToolNotCalledParams)
def tool_not_called(trace: Trace, params: ToolNotCalledParams, ctx: GradeContext) -> GradeOutcome:
    """The agent did not call a tool (negative cases: no refund without confirmation, ...)."""
    hits = [c for c in calls(trace) if c.name == params.tool]
    if params.args:
        hits = [c for c in hits if not _arg_problems(c, params.args)]
    with_args = f" with {show(params.args)}" if params.args else ""
    if not hits:
        return GradeOutcome(1.0, True, f"tool {params.tool!r} was not called{with_args}")
    shown = "; ".join(c.label() for c in hits[:5])
    return GradeOutcome(
        0.0,
        False,
        f"tool {params.tool!r} must not be called{with_args}, but the agent called it "
        f"{plural(len(hits), 'time')}: {shown}",
    )


class ToolArgsParams(BaseModel):
    """Parameters of ``tool_args``."""

    model_config = ConfigDict(extra="forbid")

    tool: ToolName
    """Tool whose arguments are checked."""
    args: dict[str, Expected] = Field(min_length=1)
    """Expected arguments: literal values or patterns ({regex}, {one_of}, {contains}, {equals})."""
    call: Literal["any", "first", "last", "all"] = "any"
    """Which call must match: any one of them, the first, the last, or every call."""


@grader("tool_args", params=ToolArgsParams)
def tool_args(trace: Trace, params: ToolArgsParams, ctx: GradeContext) -> GradeOutcome:
    """A tool was called with the expected arguments; score is the fraction of arguments that matched."""
    everything = calls(trace)
    of_tool = [c for c in everything if c.name == params.tool]
    if not of_tool:
        return GradeOutcome(
            0.0, False, f"expected tool {params.tool!r} to be called; the agent called: {names(everything)}"
        )
    total = len(params.args)
    checked = {"any": of_tool, "first": of_tool[:1], "last": of_tool[-1:], "all": of_tool}[params.call]
    results = [(c, _arg_problems(c, params.args)) for c in checked]
    scores = [ratio(total - len(problems), total) for _, problems in results]
    if params.call == "all":
        score = sum(scores) / len(scores)
        bad = [(c, p) for c, p in results if p]
        if not bad:
            return GradeOutcome(
                1.0, True, f"all {len(results)} calls of {params.tool!r} had the expected arguments"
            )
        detail = " | ".join(f"step {c.step}: {'; '.join(p)}" for c, p in bad[:3])
        return GradeOutcome(
            score,
            False,
            f"{len(bad)} of {len(results)} calls of {params.tool!r} had wrong arguments: {detail}",
        )
    best = max(range(len(results)), key=lambda i: scores[i])
    call, problems = results[best]
    which = {"any": "a call", "first": "the first call", "last": "the last call"}[params.call]
    if not problems:
        return GradeOutcome(
            1.0, True, f"{which} of {params.tool!r} (step {call.step}) had the expected arguments"
        )
    closest = " (closest)" if params.call == "any" and len(results) > 1 else ""
    return GradeOutcome(
        scores[best],
        False,
        f"expected {which} of {params.tool!r} with {show(params.args)}; "
        f"step {call.step}{closest} was called with ({short_args(call.arguments)}): {'; '.join(problems)}",
    )
