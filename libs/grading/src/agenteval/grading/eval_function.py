"""The ``eval_function`` grader: a Python eval function run in the grader's sandbox.

``def eval_NAME(trace: dict, ctx=None) -> tuple[float, str]``: the score is the grade's
score, and it passes at ``threshold`` (default 0.5). In a suite file the code is given
inline (``code``) or by ``path`` (relative to the suite file; the loader inlines it so a
submitted suite is self-contained). The grader service provides the sandbox pool as
``ctx.services["sandbox"]``; eval functions reach an LLM only through ``ctx.call_llm``,
brokered by the grader and counted in the grade's cost.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agenteval.contracts.trace import Trace
from agenteval.grading._registry import Grade, GradeContext, RegisteredGrader, grader, register_prefix


class EvalFunctionParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str | None = None
    """Python source defining the eval function."""
    path: str | None = None
    """File with the source, relative to the suite file (inlined at suite load)."""
    function: str | None = None
    """Function name, when the code defines several eval_* functions."""
    threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    """Score at or above which the grade passes."""
    allowed_imports: list[str] = Field(default_factory=list)
    """Extra modules this code may import (besides the suite's)."""
    timeout_s: float | None = Field(default=None, gt=0, le=60)
    """Wall-clock limit per call (default: the grader's)."""

    @model_validator(mode="after")
    def _one_source(self) -> EvalFunctionParams:
        if bool(self.code) == bool(self.path):
            raise ValueError("give exactly one of 'code' or 'path'")
        if self.code is not None:
            problem = _static_problems(self.code, tuple(self.allowed_imports), self.function)
            if problem:
                raise ValueError(problem)
        return self


@functools.lru_cache(maxsize=256)
def _static_problems(code: str, allowed_imports: tuple[str, ...], function: str | None) -> str:
    """The sandbox's static check, once per distinct code (params are validated on every grade)."""
    from agenteval.sandbox import check_code

    problems = check_code(code, allowed_imports=allowed_imports, function=function)
    # Imports the suite allows are only known at run time: leave those to the sandbox.
    return "; ".join(f"{p.rule}: {p.message}" for p in problems if p.rule != "import_not_allowed")


@grader("eval_function", params=EvalFunctionParams)
async def eval_function(trace: Trace, params: EvalFunctionParams, ctx: GradeContext) -> Grade:
    """Run a Python eval function on the trace in the sandbox."""
    if params.code is None:
        raise ValueError(f"eval function file {params.path!r} was not inlined: load the suite from its file")
    pool: Any = ctx.services.get("sandbox")
    if pool is None:
        raise RuntimeError("no sandbox pool is available to run eval functions")
    suite_allowed = ctx.allowed_imports
    if suite_allowed is None:  # graders wired before GradeContext carried it
        suite_allowed = ctx.services.get("allowed_imports", [])
    allowed = [*suite_allowed, *params.allowed_imports]
    res = await pool.run(
        params.code,
        trace.to_eval_dict(),
        function=params.function,
        allowed_imports=allowed,
        timeout_s=params.timeout_s,
    )
    cost = res.llm_cost_usd
    spec_params = params.model_dump(exclude_none=True, exclude={"code"})
    if res.error is not None:
        message = f"{res.error.rule}: {res.error.message}"
        return Grade(
            name="eval_function",
            params=spec_params,
            score=0.0,
            passed=False,
            explanation=f"eval function failed: {message}",
            error=message,
            cost_usd=cost,
        )
    score = float(res.score or 0.0)
    return Grade(
        name="eval_function",
        params=spec_params,
        score=score,
        passed=score >= params.threshold,
        explanation=res.explanation,
        cost_usd=cost,
    )


# -- saved evals as graders: eval:NAME or eval:NAME@VERSION ------------------------------
SAVED_EVAL = re.compile(r"^eval:([A-Za-z][A-Za-z0-9_]{0,99})(?:@([1-9][0-9]*))?$")


class SavedEvalParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    """Score at or above which the grade passes."""


def _saved_eval(name: str) -> RegisteredGrader | None:
    match = SAVED_EVAL.match(name)
    if match is None:
        return None
    eval_name, version = match.group(1), int(match.group(2) or 0)

    async def run(trace: Trace, params: SavedEvalParams, ctx: GradeContext) -> Grade:
        source = ctx.services.get("eval_source")
        if source is None:
            raise RuntimeError("saved evals are not reachable from this grader")
        try:
            code = await source(eval_name, version)
        except Exception as exc:
            # A gRPC error's details ("no saved eval 'x'") say it; its repr buries it in debug text.
            details = getattr(exc, "details", None)
            reason = details() if callable(details) else None
            raise LookupError(reason or f"saved eval {name[5:]} cannot be fetched: {exc}") from None
        inline = EvalFunctionParams.model_construct(
            code=code,
            path=None,
            function=None,
            threshold=params.threshold,
            allowed_imports=[],
            timeout_s=None,
        )
        grade = await eval_function(trace, inline, ctx)
        return grade.model_copy(update={"name": name, "params": params.model_dump()})

    return RegisteredGrader(
        name=name, fn=run, params_model=SavedEvalParams, description=f"saved eval {eval_name}", is_async=True
    )


register_prefix("eval", _saved_eval)
