"""Graders of the final answer: equality, containment, regex and JSON structure.

Every one fails (with the trial's status in the explanation) when there is no final answer.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from agenteval.contracts.trace import Trace
from agenteval.grading._common import NonEmptyText, excerpt, no_output
from agenteval.grading._match import compile_regex
from agenteval.grading._registry import GradeContext, GradeOutcome, grader
from agenteval.grading._schema import check_schema, validate


def _fold(text: str, case_sensitive: bool) -> str:
    return text if case_sensitive else text.casefold()


class OutputEqualsParams(BaseModel):
    """Parameters of ``output_equals``."""

    model_config = ConfigDict(extra="forbid")

    value: str | None = None
    """The exact expected answer; the case's ``expected_output`` when absent."""
    case_sensitive: bool = True
    """Whether letter case must match."""
    strip: bool = True
    """Ignore leading and trailing whitespace on both sides."""


@grader("output_equals", params=OutputEqualsParams)
def output_equals(trace: Trace, params: OutputEqualsParams, ctx: GradeContext) -> GradeOutcome:
    """The final answer equals an expected value."""
    expected = params.value
    if expected is None:
        expected = ctx.case.expected_output if ctx.case is not None else None
    if expected is None:
        raise ValueError("output_equals needs a value: give 'value' or set expected_output on the case")
    missing = no_output(trace)
    if missing is not None:
        return missing
    got = trace.output or ""
    a, b = (expected.strip(), got.strip()) if params.strip else (expected, got)
    a, b = _fold(a, params.case_sensitive), _fold(b, params.case_sensitive)
    if a == b:
        return GradeOutcome(1.0, True, "the final answer equals the expected value")
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return GradeOutcome(
        0.0,
        False,
        f"expected the answer {excerpt(expected)}, got {excerpt(got)} (first difference at character {at + 1})",
    )


class OutputContainsParams(BaseModel):
    """Parameters of ``output_contains``."""

    model_config = ConfigDict(extra="forbid")

    text: NonEmptyText | None = None
    """One text the answer must contain."""
    texts: list[NonEmptyText] = Field(default_factory=list)
    """Several texts (together with ``text``)."""
    match: Literal["all", "any"] = "all"
    """Whether all texts or at least one must appear."""
    case_sensitive: bool = False
    """Whether letter case must match."""

    @model_validator(mode="after")
    def _some_text(self) -> OutputContainsParams:
        if self.text is None and not self.texts:
            raise ValueError("give 'text' or 'texts'")
        return self

    def wanted(self) -> list[str]:
        return ([self.text] if self.text is not None else []) + self.texts


@grader("output_contains", params=OutputContainsParams)
def output_contains(trace: Trace, params: OutputContainsParams, ctx: GradeContext) -> GradeOutcome:
    """The final answer contains a text (or all / any of several); score is the fraction found."""
    missing = no_output(trace)
    if missing is not None:
        return missing
    output = trace.output or ""
    hay = _fold(output, params.case_sensitive)
    wanted = params.wanted()
    found = [t for t in wanted if _fold(t, params.case_sensitive) in hay]
    absent = [t for t in wanted if t not in found]
    if params.match == "any":
        ok = bool(found)
        score = 1.0 if ok else 0.0
    else:
        ok = not absent
        score = len(found) / len(wanted)
    if ok:
        return GradeOutcome(score, True, f"the answer contains {', '.join(map(repr, found))}")
    need = "all of" if params.match == "all" else "any of"
    return GradeOutcome(
        score,
        False,
        f"expected the answer to contain {need} {', '.join(map(repr, wanted))}; "
        f"missing {', '.join(map(repr, absent))}; the answer was {excerpt(output)}",
    )


class OutputNotContainsParams(BaseModel):
    """Parameters of ``output_not_contains``."""

    model_config = ConfigDict(extra="forbid")

    texts: list[NonEmptyText] = Field(default_factory=list)
    """Texts that must not appear in the answer."""
    text: NonEmptyText | None = None
    """One forbidden text (together with ``texts``)."""
    case_sensitive: bool = False
    """Whether letter case must match."""

    @model_validator(mode="after")
    def _some_text(self) -> OutputNotContainsParams:
        if self.text is None and not self.texts:
            raise ValueError("give 'texts' or 'text'")
        return self


@grader("output_not_contains", params=OutputNotContainsParams)
def output_not_contains(trace: Trace, params: OutputNotContainsParams, ctx: GradeContext) -> GradeOutcome:
    """The final answer contains none of the forbidden texts; score is the fraction absent."""
    missing = no_output(trace)
    if missing is not None:
        return missing
    output = trace.output or ""
    hay = _fold(output, params.case_sensitive)
    forbidden = ([params.text] if params.text is not None else []) + params.texts
    present = []
    for t in forbidden:
        at = hay.find(_fold(t, params.case_sensitive))
        if at >= 0:
            present.append(f"{t!r} (…{output[max(0, at - 30) : at + len(t) + 30]}…)")
    if not present:
        return GradeOutcome(1.0, True, f"the answer contains none of {', '.join(map(repr, forbidden))}")
    return GradeOutcome(
        1 - len(present) / len(forbidden), False, f"the answer contains forbidden text: {'; '.join(present)}"
    )


class OutputMatchesParams(BaseModel):
    """Parameters of ``output_matches``."""

    model_config = ConfigDict(extra="forbid")

    pattern: NonEmptyText
    """A Python regular expression."""
    ignore_case: bool = False
    """Match regardless of letter case."""
    multiline: bool = False
    """``^`` and ``$`` match at every line."""
    dotall: bool = False
    """``.`` matches newlines too."""
    full: bool = False
    """The whole answer must match (otherwise the pattern is searched anywhere)."""

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        compile_regex(value)
        return value

    def compiled(self) -> re.Pattern[str]:
        flags = (
            (re.IGNORECASE if self.ignore_case else 0)
            | (re.MULTILINE if self.multiline else 0)
            | (re.DOTALL if self.dotall else 0)
        )
        return compile_regex(self.pattern, flags)


@grader("output_matches", params=OutputMatchesParams)
def output_matches(trace: Trace, params: OutputMatchesParams, ctx: GradeContext) -> GradeOutcome:
    """The final answer matches a regular expression (searched, or whole with ``full``)."""
    missing = no_output(trace)
    if missing is not None:
        return missing
    output = trace.output or ""
    rx = params.compiled()
    found = rx.fullmatch(output) if params.full else rx.search(output)
    how = "match the whole of" if params.full else "match"
    if found is not None:
        return GradeOutcome(
            1.0, True, f"the answer matches /{params.pattern}/ at {excerpt(found.group(0), 80)}"
        )
    return GradeOutcome(
        0.0, False, f"expected the answer to {how} /{params.pattern}/; the answer was {excerpt(output)}"
    )


class OutputJsonParams(BaseModel):
    """Parameters of ``output_json``."""

    model_config = ConfigDict(extra="forbid")

    schema_: dict[str, Any] | None = Field(default=None, alias="schema")
    """A JSON Schema (subset: type, properties, required, items, enum, const, minimum, maximum,
    minLength, maxLength, minItems, maxItems, pattern, additionalProperties); parsing is enough when absent."""

    @field_validator("schema_")
    @classmethod
    def _valid(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None:
            check_schema(value)
        return value


_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\r?\n(.*?)```", re.DOTALL)


def parse_json_answer(text: str) -> tuple[Any, str | None]:
    """The JSON value of ``text`` (whole, or the first fenced block that parses), or the parse error."""
    try:
        return json.loads(text), None
    except ValueError as exc:
        first_error = str(exc)
    for block in _FENCE.findall(text):
        try:
            return json.loads(block), None
        except ValueError:
            continue
    return None, first_error


@grader("output_json", params=OutputJsonParams)
def output_json(trace: Trace, params: OutputJsonParams, ctx: GradeContext) -> GradeOutcome:
    """The final answer is JSON (bare or in a ```json block) matching a schema.

    Score: 0 when it does not parse, else the share of schema checks (plus parsing) that held.
    """
    missing = no_output(trace)
    if missing is not None:
        return missing
    output = trace.output or ""
    value, error = parse_json_answer(output)
    if error is not None:
        return GradeOutcome(0.0, False, f"the answer is not JSON ({error}); the answer was {excerpt(output)}")
    if params.schema_ is None:
        return GradeOutcome(1.0, True, "the answer is valid JSON")
    result = validate(params.schema_, value)
    score = (1 + result.checks - len(result.errors)) / (1 + result.checks)
    if not result.errors:
        return GradeOutcome(1.0, True, f"the answer is JSON matching the schema ({result.checks} checks)")
    shown = "; ".join(result.errors[:5])
    more = f" (and {len(result.errors) - 5} more)" if len(result.errors) > 5 else ""
    return GradeOutcome(
        score,
        False,
        f"the answer is JSON but breaks the schema in {len(result.errors)} places: {shown}{more}",
    )
