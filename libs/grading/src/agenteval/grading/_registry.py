"""The grader registry: graders are plugins registered by a stable name.

A grader is a function ``(trace, params, ctx) -> Grade`` (sync or async) registered with
:func:`grader`, together with a pydantic model of its parameters. Suites name graders
with parameters; :func:`validate_spec` checks both at suite load, so a typo fails before
any trial runs. Every grade records ``{name, params}`` so it can be replayed.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from agenteval.contracts.events import GradeRecord
from agenteval.contracts.suite import Case, GraderSpec
from agenteval.contracts.trace import Trace


class Grade(GradeRecord):
    """The verdict of one grader on one transcript (the same fields that travel on trial.graded)."""


class NoParams(BaseModel):
    """Parameters of a grader that takes none."""

    model_config = ConfigDict(extra="forbid")


@dataclass
class GradeContext:
    """What a grader may know besides the trace: the case, and services it may use."""

    case: Case | None = None
    """The case the trace answers (expected tools, expected output, ...)."""
    services: dict[str, Any] = field(default_factory=dict)
    """Named helpers the grader service provides (llm judge client, sandbox pool, ...)."""
    allowed_imports: list[str] | None = None
    """Extra modules the trial's suite lets eval functions import. Per trial, not in the
    shared ``services``: one grader serves many suites (None: ``services["allowed_imports"]``)."""


@dataclass(frozen=True)
class GradeOutcome:
    """What a grader function returns; the registry turns it into a :class:`Grade`."""

    score: float
    passed: bool
    explanation: str


GraderResult = GradeOutcome | Grade
"""A grader function's result: an outcome the registry completes, or a finished :class:`Grade`."""
GraderFn = Callable[[Trace, Any, GradeContext], GraderResult | Awaitable[GraderResult]]
_F = TypeVar("_F", bound=GraderFn)


@dataclass(frozen=True)
class RegisteredGrader:
    name: str
    fn: GraderFn
    params_model: type[BaseModel]
    description: str
    is_async: bool


class UnknownGraderError(ValueError):
    """A suite names a grader that is not registered."""


_REGISTRY: dict[str, RegisteredGrader] = {}
_PREFIX_RESOLVERS: dict[str, Callable[[str], RegisteredGrader | None]] = {}


def grader(name: str, params: type[BaseModel] = NoParams) -> Callable[[_F], _F]:
    """Register ``fn`` as grader ``name`` taking parameters validated by ``params``."""

    def decorate(fn: _F) -> _F:
        if name in _REGISTRY:
            raise ValueError(f"grader {name!r} is registered twice")
        doc = inspect.getdoc(fn) or ""
        _REGISTRY[name] = RegisteredGrader(
            name=name,
            fn=fn,
            params_model=params,
            description=doc.splitlines()[0] if doc else "",
            is_async=inspect.iscoroutinefunction(fn),
        )
        return fn

    return decorate


def register_prefix(prefix: str, resolver: Callable[[str], RegisteredGrader | None]) -> None:
    """Resolve names like ``eval:NAME`` dynamically (``prefix`` is ``"eval"``)."""
    _PREFIX_RESOLVERS[prefix] = resolver


def get_grader(name: str) -> RegisteredGrader:
    """The grader registered as ``name``, or :class:`UnknownGraderError` listing the known ones."""
    found = _REGISTRY.get(name)
    if found is not None:
        return found
    prefix, sep, _ = name.partition(":")
    if sep and prefix in _PREFIX_RESOLVERS:
        resolved = _PREFIX_RESOLVERS[prefix](name)
        if resolved is not None:
            return resolved
    known = ", ".join(sorted(_REGISTRY))
    raise UnknownGraderError(f"unknown grader {name!r}; known graders: {known}")


def registered_graders() -> dict[str, RegisteredGrader]:
    """All graders registered by name."""
    return dict(_REGISTRY)


def validate_spec(spec: GraderSpec) -> BaseModel:
    """Check that ``spec`` names a grader and that its parameters fit; return the parsed params.

    Raises :class:`UnknownGraderError` or :class:`ValueError` with a one-line reason.
    """
    reg = get_grader(spec.name)
    try:
        return reg.params_model.model_validate(spec.params)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'params'}: {err['msg'].removeprefix('Value error, ')}"
            for err in exc.errors()
        )
        raise ValueError(f"bad parameters for grader {spec.name!r}: {problems}") from None


async def run_grader(spec: GraderSpec, trace: Trace, ctx: GradeContext) -> Grade:
    """Run one grader; any exception becomes a failed grade with the error, never a crash."""
    try:
        reg = get_grader(spec.name)
        params = reg.params_model.model_validate(spec.params)
        outcome = reg.fn(trace, params, ctx)
        if inspect.isawaitable(outcome):
            outcome = await outcome
        if isinstance(outcome, Grade):
            return outcome
        score = min(1.0, max(0.0, float(outcome.score)))
        return Grade(
            name=spec.name,
            params=spec.params,
            score=score,
            passed=bool(outcome.passed),
            explanation=outcome.explanation,
        )
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}"[:2000]
        return Grade(
            name=spec.name,
            params=spec.params,
            score=0.0,
            passed=False,
            explanation=f"grader could not run: {message}",
            error=message,
        )
