"""Graders of the agent's tool choice as a whole: the order of calls and the set of tools used."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agenteval.contracts.trace import Trace
from agenteval.grading._common import ToolName, calls, names
from agenteval.grading._registry import GradeContext, GradeOutcome, grader


class ToolSequenceParams(BaseModel):
    """Parameters of ``tool_sequence``."""

    model_config = ConfigDict(extra="forbid")

    tools: list[ToolName] = Field(min_length=1)
    """Tool names in the expected order."""
    mode: Literal["strict", "subsequence"] = "subsequence"
    """strict: the calls are exactly these, in order, nothing else; subsequence: these in order,
    other calls may come before, between and after."""


def _lcs_matched(expected: list[str], actual: list[str]) -> list[bool]:
    """For each expected item, whether a longest common subsequence with ``actual`` uses it."""
    n, m = len(expected), len(actual)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            if expected[i] == actual[j]:
                table[i][j] = table[i + 1][j + 1] + 1
            else:
                table[i][j] = max(table[i + 1][j], table[i][j + 1])
    used, i, j = [False] * n, 0, 0
    while i < n and j < m:
        if expected[i] == actual[j]:
            used[i], i, j = True, i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return used


@grader("tool_sequence", params=ToolSequenceParams)
def tool_sequence(trace: Trace, params: ToolSequenceParams, ctx: GradeContext) -> GradeOutcome:
    """The agent called tools in the expected order (strict: exactly; subsequence: others may interleave).

    Score: strict, the matched prefix over the longer of expected and actual; subsequence, the
    longest common subsequence over the expected length.
    """
    found = calls(trace)
    actual = [c.name for c in found]
    expected = params.tools
    arrow = " → ".join(expected)
    if params.mode == "strict":
        prefix = 0
        while prefix < min(len(expected), len(actual)) and expected[prefix] == actual[prefix]:
            prefix += 1
        score = prefix / max(len(expected), len(actual))
        if actual == expected:
            return GradeOutcome(1.0, True, f"the agent called exactly {arrow}")
        if prefix < min(len(expected), len(actual)):
            why = f"call {prefix + 1} was {actual[prefix]!r}, expected {expected[prefix]!r}"
        elif len(actual) < len(expected):
            why = f"the agent stopped after {prefix} of {len(expected)} expected calls"
        else:
            why = f"extra calls after the sequence: {', '.join(actual[prefix:])}"
        return GradeOutcome(
            score, False, f"expected exactly {arrow} (nothing else); {why}; the agent called: {names(found)}"
        )
    used = _lcs_matched(expected, actual)
    matched = sum(used)
    if matched == len(expected):
        return GradeOutcome(1.0, True, f"the agent called {arrow} in order (calls: {names(found)})")
    missing = [name for name, ok in zip(expected, used, strict=True) if not ok]
    return GradeOutcome(
        matched / len(expected),
        False,
        f"expected {arrow} in order (other calls allowed); {matched} of {len(expected)} found in order, "
        f"missing or out of order: {', '.join(missing)}; the agent called: {names(found)}",
    )


DEFAULT_MIN_F1 = 0.8
"""Passing F1 of tool_selection in partial mode when the suite gives none."""


class ToolSelectionParams(BaseModel):
    """Parameters of ``tool_selection``."""

    model_config = ConfigDict(extra="forbid")

    expected: list[ToolName] | None = None
    """The set of tools the agent should use; the case's ``expected_tools`` when absent."""
    mode: Literal["strict", "partial"] = "strict"
    """strict: pass only when the tools used are exactly the expected set; partial: pass when
    the F1 score reaches ``min_score``."""
    min_score: float | None = Field(default=None, ge=0.0, le=1.0)
    """Passing F1 score in partial mode (default 0.8: about one tool off in a set of three or more)."""

    @model_validator(mode="after")
    def _min_score_needs_partial(self) -> ToolSelectionParams:
        if self.min_score is not None and self.mode != "partial":
            raise ValueError("min_score applies to mode 'partial' only")
        return self


@grader("tool_selection", params=ToolSelectionParams)
def tool_selection(trace: Trace, params: ToolSelectionParams, ctx: GradeContext) -> GradeOutcome:
    """The agent used the expected set of tools (order and repetitions ignored).

    Score is F1: precision = share of distinct tools used that were expected, recall = share of
    expected tools used (1.0 when both sets are empty).
    """
    wanted_list = params.expected
    if wanted_list is None:
        wanted_list = ctx.case.expected_tools if ctx.case is not None else None
    if wanted_list is None:
        raise ValueError(
            "tool_selection needs the expected tools: give 'expected' or set expected_tools on the case "
            "(without them, tool_selection_judge has an LLM judge the tool choice)"
        )
    wanted = set(wanted_list)
    used = {c.name for c in calls(trace)}
    right = wanted & used
    if not wanted and not used:
        score = 1.0
    elif not right:
        score = 0.0
    else:
        precision, recall = len(right) / len(used), len(right) / len(wanted)
        score = 2 * precision * recall / (precision + recall)
    threshold = DEFAULT_MIN_F1 if params.min_score is None else params.min_score
    passed = used == wanted if params.mode == "strict" else score >= threshold
    missing, extra = sorted(wanted - used), sorted(used - wanted)
    parts = [f"expected tools: {', '.join(sorted(wanted)) or 'none'}"]
    parts.append(f"used: {', '.join(sorted(used)) or 'none'}")
    if missing:
        parts.append(f"missing: {', '.join(missing)}")
    if extra:
        parts.append(f"not expected: {', '.join(extra)}")
    rule = "exact set" if params.mode == "strict" else f"F1 >= {threshold:g}"
    parts.append(f"F1 {score:.2f} ({rule})")
    return GradeOutcome(score, passed, "; ".join(parts))
