"""A judge's structured verdict, parsed strictly from its reply."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

VERDICT_FORMAT = (
    "Reply with only this JSON object, no other text:\n"
    '{"score": <number from 0 to 1>, "passed": <true or false>, "reasoning": "<one to three sentences>"}'
)


@dataclass(frozen=True)
class Verdict:
    """A judge's parsed answer."""

    score: float
    passed: bool | None
    reasoning: str


class VerdictError(ValueError):
    """The judge's reply is not a valid verdict; the message says why."""


_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n(.*?)\n?[ \t]*```", re.DOTALL)


def parse_verdict(text: str) -> Verdict:
    """Parse a verdict: a JSON object alone, or inside one ```json fence. Strict on types."""
    stripped = text.strip()
    if not stripped:
        raise VerdictError("the reply was empty")
    if stripped.startswith("{"):
        candidate = stripped
    else:
        fences = _FENCE.findall(stripped)
        if len(fences) != 1:
            raise VerdictError(
                "the reply is not a JSON object" if not fences else "the reply has more than one code block"
            )
        candidate = fences[0].strip()
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError as exc:
        raise VerdictError(f"the reply is not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise VerdictError(f"the verdict must be a JSON object, got {type(data).__name__}")
    score = data.get("score")
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        raise VerdictError(f'"score" must be a number from 0 to 1, got {json.dumps(score)}')
    if not 0.0 <= score <= 1.0:
        raise VerdictError(f'"score" must be from 0 to 1, got {score}')
    passed = data.get("passed")
    if passed is not None and not isinstance(passed, bool):
        raise VerdictError(f'"passed" must be true or false, got {json.dumps(passed)}')
    reasoning = data.get("reasoning", "")
    if not isinstance(reasoning, str):
        raise VerdictError(f'"reasoning" must be a string, got {type(reasoning).__name__}')
    return Verdict(score=float(score), passed=passed, reasoning=reasoning.strip())
