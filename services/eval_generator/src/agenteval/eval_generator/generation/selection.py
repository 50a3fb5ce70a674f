"""Choosing what a generation saves: every candidate measured on the same training split.

A candidate that cannot run, or fails or times out on any training trace, is never chosen.
Among the others the most accurate wins; on a tie the version saved before stays (no churn),
then the model's final function, then the functions it tested (the later first), then the
synthesizer's rule.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from agenteval.eval_generator.agent.tools import normalize_code

Source = Literal["previous", "model_final", "model_tested", "synthesizer"]
PREFERENCE: dict[str, int] = {"previous": 0, "model_final": 1, "model_tested": 2, "synthesizer": 3}
_LABELS = {
    "previous": "the saved version",
    "model_final": "the model's final function",
    "model_tested": "a function the model tested",
    "synthesizer": "the synthesizer's rule",
}


@dataclass
class Candidate:
    source: Source
    code: str
    version: int = 0
    """The saved version, for source ``previous``; the test's number for ``model_tested``."""
    train_accuracy: float = 0.0
    total: int = 0
    errors: int = 0
    code_error: str | None = None
    measured: bool = False
    chosen: bool = False
    note: str = ""

    @property
    def eligible(self) -> bool:
        return self.measured and self.code_error is None and self.errors == 0

    def describe(self) -> str:
        if self.source == "previous":
            return f"the saved version v{self.version}"
        if self.source == "model_tested":
            return f"the model's test #{self.version}"
        return _LABELS[self.source]

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "version": self.version,
            "train_accuracy": self.train_accuracy,
            "errors": self.errors,
            "code_error": self.code_error,
            "chosen": self.chosen,
            "note": self.note,
        }


def gather(
    *,
    previous: tuple[int, str] | None,
    synthesizer: str,
    tested: list[str],
    final: str | None,
) -> list[Candidate]:
    """The distinct candidates (same code, one candidate: the preferred source names it)."""
    found: list[Candidate] = []
    seen: set[str] = set()

    def add(candidate: Candidate) -> None:
        key = normalize_code(candidate.code)
        if key and key not in seen:
            seen.add(key)
            found.append(candidate)

    if previous is not None:
        add(Candidate("previous", previous[1], version=previous[0]))
    if final:
        add(Candidate("model_final", final))
    for number in range(len(tested), 0, -1):
        add(Candidate("model_tested", tested[number - 1], version=number))
    add(Candidate("synthesizer", synthesizer))
    return found


Measure = Callable[[str], Awaitable[dict[str, Any]]]


async def measure_all(
    candidates: list[Candidate], measure: Measure, emit: Callable[[Any], Awaitable[None]]
) -> None:
    """Measure each candidate on the training split (cached when the model already did)."""
    from agenteval.eval_generator.generation.request import Progress

    for c in candidates:
        report = await measure(c.code)
        c.measured = True
        c.train_accuracy = float(report.get("accuracy") or 0.0)
        c.total = int(report.get("total") or 0)
        c.errors = int(report.get("errors") or 0)
        c.code_error = report.get("code_error") or None
        if c.code_error:
            line = f"{c.describe()} cannot run: {c.code_error[:300]}"
        else:
            line = f"{c.describe()}: training accuracy {c.train_accuracy:.1%} on {c.total} traces"
            if c.errors:
                line += f", failed on {c.errors} of them (not eligible)"
        await emit(Progress("candidate", line, accuracy=None if c.code_error else c.train_accuracy))


def choose(candidates: list[Candidate]) -> Candidate | None:
    """The best eligible candidate (marked chosen, with notes on every one); None if none can run."""
    eligible = [c for c in candidates if c.eligible]
    if not eligible:
        for c in candidates:
            c.note = "cannot run" if c.code_error else f"failed on {c.errors} traces"
        return None
    best = max(eligible, key=lambda c: (c.train_accuracy, -PREFERENCE[c.source], c.version))
    best.chosen = True
    others = [c for c in candidates if c is not best]
    runner_up = max((c for c in others if c.eligible), key=lambda c: c.train_accuracy, default=None)
    best.note = f"training accuracy {best.train_accuracy:.1%}" + (
        f", {runner_up.describe()} had {runner_up.train_accuracy:.1%}" if runner_up else ""
    )
    for c in others:
        if c.code_error:
            c.note = "cannot run"
        elif c.errors:
            c.note = f"failed or timed out on {c.errors} traces"
        elif c.train_accuracy < best.train_accuracy:
            c.note = f"less accurate ({c.train_accuracy:.1%} < {best.train_accuracy:.1%})"
        else:
            c.note = f"as accurate, {best.describe()} preferred"
    return best
