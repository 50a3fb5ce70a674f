"""Trace helpers and explanation wording shared by the code graders."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import StringConstraints

from agenteval.contracts.trace import Trace
from agenteval.grading._registry import GradeOutcome

ToolName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
"""A tool name parameter: surrounding spaces are dropped, empty names are rejected."""

NonEmptyText = Annotated[str, StringConstraints(min_length=1)]
"""A text parameter that must not be empty."""


@dataclass(frozen=True)
class Call:
    """One tool call of a trace, with where it happened."""

    step: int
    """1-based position among all steps (what a person sees in the transcript)."""
    name: str
    """Tool name (``<unnamed>`` when the trace lacks one)."""
    arguments: dict[str, Any]
    """Arguments (empty when missing or not a mapping)."""
    result: Any
    """What the tool returned."""
    error: str | None
    """Why it failed, when it did."""

    @property
    def failed(self) -> bool:
        """The call failed: an error is recorded, or the result is ``{"error": <truthy>}``."""
        if self.error:
            return True
        return isinstance(self.result, dict) and bool(self.result.get("error"))

    @property
    def key(self) -> str:
        """Identity of the call: name plus canonical arguments (identical calls share it)."""
        return self.name + " " + canonical(self.arguments)

    def label(self) -> str:
        return f"{self.name}({short_args(self.arguments)}) at step {self.step}"


def calls(trace: Trace) -> list[Call]:
    """The tool calls of ``trace`` in order, tolerant of odd fields."""
    found = []
    for i, step in enumerate(trace.steps, start=1):
        if step.type != "tool_call":
            continue
        args = step.arguments if isinstance(step.arguments, dict) else {}
        found.append(Call(i, step.name or "<unnamed>", args, step.result, step.error))
    return found


def canonical(value: Any) -> str:
    """Stable JSON text of ``value`` (sorted keys; non-JSON values by ``str``)."""
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


def short_args(args: dict[str, Any], limit: int = 80) -> str:
    text = ", ".join(f"{k}={canonical(v)}" for k, v in args.items())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def names(found: list[Call]) -> str:
    """``lookup_order, send_email`` or ``no tools`` for explanations."""
    return ", ".join(c.name for c in found) if found else "no tools"


def excerpt(text: str, limit: int = 200) -> str:
    """``text`` quoted and cut to ``limit`` characters for an explanation."""
    cut = text if len(text) <= limit else text[: limit - 3] + "..."
    return repr(cut)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def no_output(trace: Trace) -> GradeOutcome | None:
    """A failing outcome when the trial produced no final answer, else ``None``."""
    if trace.output is not None:
        return None
    why = f"the trial ended with status {trace.status!r}"
    if trace.error is not None:
        why += f" ({trace.error.code}: {trace.error.message})"
    return GradeOutcome(0.0, False, f"no final answer to check: {why}")


def ratio(good: int, total: int) -> float:
    """``good / total``, and 1.0 when there was nothing to check."""
    return 1.0 if total == 0 else good / total
