"""The grounding grader: numbers and quoted facts in the answer come from tool results or the input.

Extraction rules (documented because they decide what is checked):

- numbers are digit runs with optional thousands commas and decimals (``1,234.50``), not part
  of a word (``A1001`` and ``3rd`` are not numbers); the sign is ignored; ``1,234.50`` equals
  ``1234.5``; whole numbers up to ``ignore_up_to`` (default 10: ordinals, list numbering,
  small counts) are not checked;
- quoted facts are texts of 2 to 300 characters between double quotes (``"..."`` or
  ``“...”``), found case-insensitively; single quotes are not used (apostrophes);
- sources are every tool result (all keys and values) and error, tool messages, and, with
  ``include_input``, the input messages.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agenteval.contracts.trace import Trace
from agenteval.grading._common import calls, no_output
from agenteval.grading._registry import GradeContext, GradeOutcome, grader

_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w]|[.,]\d)")
_QUOTED = re.compile(r"\"([^\"\n]{2,300})\"|“([^”\n]{2,300})”")


def numbers_in(text: str) -> list[tuple[str, Decimal]]:
    """The numbers written in ``text``: (as written, normalized value)."""
    found = []
    for m in _NUMBER.finditer(text):
        try:
            value = Decimal(m.group(1).replace(",", "") + (m.group(2) or "")).normalize()
        except InvalidOperation:  # pragma: no cover - the regex only yields valid decimals
            continue
        found.append((m.group(0), value))
    return found


def _texts(value: Any, out: list[str]) -> None:
    """Every key and scalar of a JSON-like value, as text."""
    if isinstance(value, dict):
        for k, v in value.items():
            out.append(str(k))
            _texts(v, out)
    elif isinstance(value, list | tuple):
        for v in value:
            _texts(v, out)
    elif value is not None:
        out.append(str(value))


def _sources(trace: Trace, include_input: bool) -> str:
    parts: list[str] = []
    for c in calls(trace):
        _texts(c.result, parts)
        if c.error:
            parts.append(c.error)
    for step in trace.steps:
        if step.type == "message" and step.role == "tool" and step.content:
            parts.append(step.content)
    if include_input:
        parts.extend(m.content for m in trace.input)
    return "\n".join(parts)


def _squash(text: str) -> str:
    return " ".join(text.split()).casefold()


class GroundingParams(BaseModel):
    """Parameters of ``grounding``."""

    model_config = ConfigDict(extra="forbid")

    min_score: float = Field(default=1.0, ge=0.0, le=1.0)
    """Passing share of supported facts (1.0: every number and quote must be supported)."""
    ignore_up_to: int | None = Field(default=10, ge=0)
    """Whole numbers from 0 to this are not checked; every number is checked when null."""
    check_numbers: bool = True
    """Check numbers."""
    check_quotes: bool = True
    """Check double-quoted texts."""
    include_input: bool = True
    """The input messages count as a source (the user may have given the number)."""


@grader("grounding", params=GroundingParams)
def grounding(trace: Trace, params: GroundingParams, ctx: GradeContext) -> GradeOutcome:
    """Numbers and quoted facts in the final answer appear in tool results or the input.

    Score is the share of them that are supported (1.0 when the answer states none).
    """
    missing = no_output(trace)
    if missing is not None:
        return missing
    answer = trace.output or ""
    source = _sources(trace, params.include_input)
    facts: list[tuple[str, bool]] = []
    if params.check_numbers:
        known = {value for _, value in numbers_in(source)}
        seen: set[Decimal] = set()
        for written, value in numbers_in(answer):
            small = (
                params.ignore_up_to is not None
                and value == value.to_integral()
                and value <= params.ignore_up_to
            )
            if small or value in seen:
                continue
            seen.add(value)
            facts.append((written, value in known))
    if params.check_quotes:
        hay = _squash(source)
        for m in _QUOTED.finditer(answer):
            quote = m.group(1) or m.group(2)
            facts.append((f'"{quote}"', _squash(quote) in hay))
    if not facts:
        return GradeOutcome(1.0, True, "the answer states no numbers or quoted facts to check")
    unsupported = [text for text, ok in facts if not ok]
    score = (len(facts) - len(unsupported)) / len(facts)
    where = "tool results or the input" if params.include_input else "tool results"
    if not unsupported:
        return GradeOutcome(1.0, True, f"all {len(facts)} facts in the answer appear in the {where}")
    return GradeOutcome(
        score,
        score >= params.min_score,
        f"{len(unsupported)} of {len(facts)} facts in the answer do not appear in the {where}: "
        f"{', '.join(unsupported[:10])}",
    )
