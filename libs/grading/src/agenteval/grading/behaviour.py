"""Behaviour graders: did the agent finish properly, and did it deal with tool errors."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from agenteval.contracts.trace import Trace
from agenteval.grading._common import NonEmptyText, ToolName, calls, excerpt, plural
from agenteval.grading._registry import GradeContext, GradeOutcome, grader


class TerminationParams(BaseModel):
    """Parameters of ``termination``."""

    model_config = ConfigDict(extra="forbid")

    loop_threshold: int = Field(default=3, ge=2)
    """This many identical consecutive tool calls (same tool, same arguments) count as a loop."""
    required_tools: list[ToolName] = Field(default_factory=list)
    """Tools that must have been called before the agent answered (the task was done)."""


@grader("termination", params=TerminationParams)
def termination(trace: Trace, params: TerminationParams, ctx: GradeContext) -> GradeOutcome:
    """The agent stopped properly: status ok, a final answer, no loop, required tools called.

    Score is the share of these checks that held.
    """
    failures: list[str] = []
    checks = 3 + (1 if params.required_tools else 0)
    if trace.status != "ok":
        why = f": {trace.error.code}: {trace.error.message}" if trace.error is not None else ""
        failures.append(f"the trial ended with status {trace.status!r}{why}")
    if not (trace.output or "").strip():
        failures.append("there is no final answer")
    found = calls(trace)
    run_start, longest, longest_at = 0, 0, 0
    for i in range(len(found) + 1):
        if i == len(found) or (i > run_start and found[i].key != found[run_start].key):
            if i - run_start > longest:
                longest, longest_at = i - run_start, run_start
            run_start = i
    if longest >= params.loop_threshold:
        failures.append(
            f"the agent looped: {found[longest_at].label()} repeated {longest} times in a row "
            f"(loop threshold {params.loop_threshold})"
        )
    missing = [t for t in params.required_tools if t not in {c.name for c in found}]
    if missing:
        failures.append(f"it stopped before calling the required {', '.join(missing)}")
    score = (checks - len(failures)) / checks
    if not failures:
        done = ", required tools called" if params.required_tools else ""
        return GradeOutcome(1.0, True, f"finished properly: status ok, final answer given, no loop{done}")
    return GradeOutcome(score, False, "; ".join(failures))


DEFAULT_ACKNOWLEDGEMENTS = [
    "error", "unable", "couldn't", "could not", "can't", "cannot", "failed", "failure", "sorry",
    "unavailable", "try again", "problem", "not able", "wasn't able", "went wrong", "apologize",
]  # fmt: skip
"""Words that, in the final answer, acknowledge a problem (matched as whole words, any case)."""


class ErrorHandlingParams(BaseModel):
    """Parameters of ``error_handling``."""

    model_config = ConfigDict(extra="forbid")

    acknowledgements: list[NonEmptyText] = Field(
        default_factory=lambda: list(DEFAULT_ACKNOWLEDGEMENTS), min_length=1
    )
    """Words or phrases that, in the final answer, acknowledge a problem (whole words, any case)."""
    allow_retry: bool = True
    """A later successful call of the same tool handles an error."""


def _acknowledges(text: str, words: list[str]) -> str | None:
    """The first acknowledgement found in ``text`` as a whole word or phrase, if any."""
    text = text.replace("\u2019", "'")  # typographic apostrophes: "couldn’t" is "couldn't"
    for word in words:
        if re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE):
            return word
    return None


@grader("error_handling", params=ErrorHandlingParams)
def error_handling(trace: Trace, params: ErrorHandlingParams, ctx: GradeContext) -> GradeOutcome:
    """Tool errors were retried successfully or acknowledged in the answer, never silently ignored.

    A failed call is one with an error, or whose result is ``{"error": ...}``. Score is the share
    of failed calls that were handled.
    """
    found = calls(trace)
    failed = [(i, c) for i, c in enumerate(found) if c.failed]
    if not failed:
        return GradeOutcome(1.0, True, "no tool errors")
    ack = _acknowledges(trace.output or "", params.acknowledgements)
    unhandled = []
    for i, c in failed:
        retried = params.allow_retry and any(
            later.name == c.name and not later.failed for later in found[i + 1 :]
        )
        if not retried and ack is None:
            unhandled.append(c)
    n = len(failed)
    if not unhandled:
        how = f"the answer acknowledges it ({ack!r})" if ack else "each was retried successfully"
        return GradeOutcome(1.0, True, f"{plural(n, 'tool error')}, handled: {how}")
    first = unhandled[0]
    error = first.error or str(first.result.get("error") if isinstance(first.result, dict) else "")
    answer = excerpt(trace.output, 160) if trace.output is not None else "no final answer"
    return GradeOutcome(
        (n - len(unhandled)) / n,
        False,
        f"{len(unhandled)} of {plural(n, 'tool error')} ignored: {first.label()} failed with "
        f"{excerpt(error, 120)} and was neither retried successfully nor acknowledged; the answer was {answer}",
    )
