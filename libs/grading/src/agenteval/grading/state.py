"""The state grader: what the agent's tools left behind (a refund recorded, no order deleted)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agenteval.contracts.trace import Trace
from agenteval.grading._match import MISSING, Expected, StatePath, mismatch, resolve, show, where_missing
from agenteval.grading._registry import GradeContext, GradeOutcome, grader


class StateCheckParams(BaseModel):
    """Parameters of ``state_check``."""

    model_config = ConfigDict(extra="forbid")

    expected: dict[StatePath, Expected] = Field(default_factory=dict)
    """Dotted paths into the final state and the value each must hold, e.g.
    ``{"orders.A1.status": "refunded"}``; values may be patterns as in tool_args."""
    absent: list[StatePath] = Field(default_factory=list)
    """Paths that must not exist (a record NOT created)."""

    @model_validator(mode="after")
    def _something(self) -> StateCheckParams:
        if not self.expected and not self.absent:
            raise ValueError("give 'expected' paths and/or 'absent' paths")
        return self


@grader("state_check", params=StateCheckParams)
def state_check(trace: Trace, params: StateCheckParams, ctx: GradeContext) -> GradeOutcome:
    """The final state holds the expected values and lacks the absent paths; score is the fraction that held."""
    state = trace.state if isinstance(trace.state, dict) else {}
    problems: list[str] = []
    for path, want in params.expected.items():
        got = resolve(state, path)
        if got is MISSING:
            problems.append(f"{path}: expected {show(want)}, but {where_missing(state, path)}")
            continue
        why = mismatch(want, got)
        if why is not None:
            problems.append(f"{path}: {why}")
    for path in params.absent:
        got = resolve(state, path)
        if got is not MISSING:
            problems.append(f"{path}: expected absent, but it holds {show(got)}")
    total = len(params.expected) + len(params.absent)
    if not problems:
        return GradeOutcome(1.0, True, f"all {total} state checks held")
    return GradeOutcome(
        (total - len(problems)) / total,
        False,
        f"{len(problems)} of {total} state checks failed: {'; '.join(problems)}",
    )
