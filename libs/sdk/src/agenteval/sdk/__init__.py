"""agenteval's public API: what agents, suites, graders and scripts are written against.

- Agents under test: :class:`AgentContext` (the trial's recorder: tool calls, LLM calls,
  state, a seeded RNG) and :class:`ToolError`.
- Suites in Python: :class:`Suite`, :class:`Case`, :class:`GraderSpec`, :func:`load_suite`,
  :func:`parse_suite`.
- Graders of your own: the :func:`grader` decorator, :class:`GradeContext`,
  :class:`GradeOutcome`.
- Talking to a running agenteval: :class:`Client`, whose methods return the models
  :class:`RunInfo`, :class:`RunSummary`, :class:`TrialRecord` (with :class:`GradeRecord`
  and :class:`Trace`), :class:`TraceInfo`, :class:`ImportReport`, :class:`EvalInfo`,
  :class:`EvalCodeReport`, :class:`GenerationJob` (started from a :class:`GenerationRequest`,
  watched as :class:`GenerationEvent`), and raise :class:`NotFound`, :class:`InvalidArgument`,
  :class:`Conflict`, :class:`Unavailable`, :class:`PermissionDenied` (all
  :class:`AgentEvalError`).
- MLflow: :func:`mlflow_scorer` makes any grader an MLflow GenAI scorer for
  ``mlflow.genai.evaluate`` (install ``agenteval-sdk[mlflow]``).

Everything else under ``agenteval.*`` is internal and may change between versions.
Names other than the agent context load on first use, so an agent module that imports
``ToolError`` does not pay for the gRPC client or the graders.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from agenteval.sdk._context import AgentContext, ToolError

if TYPE_CHECKING:
    from agenteval.contracts.errors import (
        AgentEvalError,
        Conflict,
        InvalidArgument,
        NotFound,
        PermissionDenied,
        Unauthenticated,
        Unavailable,
    )
    from agenteval.contracts.evals import (
        EvalCandidate,
        EvalInfo,
        EvalSplit,
        GenerationEvent,
        GenerationJob,
        GenerationRequest,
        GenerationUsage,
    )
    from agenteval.contracts.events import GradeRecord
    from agenteval.contracts.records import (
        EvalCodeReport,
        EvalMismatch,
        ImportProblem,
        ImportReport,
        LabeledTrace,
        RunInfo,
        StoredSuiteInfo,
        SuitePush,
        SuiteVersionInfo,
        TraceInfo,
        TrialRecord,
    )
    from agenteval.contracts.suite import Case, GraderSpec, Suite
    from agenteval.contracts.summary import CaseSummary, LatencySummary, RunSummary, TagSummary
    from agenteval.contracts.trace import Message, Step, Trace, TrialError, Usage
    from agenteval.grading import GradeContext, GradeOutcome, grader
    from agenteval.grading.mlflow_scorers import mlflow_scorer
    from agenteval.sdk._client import Client
    from agenteval.suites import SuiteError, load_suite, parse_suite

__all__ = [
    "AgentContext",
    "AgentEvalError",
    "Case",
    "CaseSummary",
    "Client",
    "Conflict",
    "EvalCandidate",
    "EvalCodeReport",
    "EvalInfo",
    "EvalMismatch",
    "EvalSplit",
    "GenerationEvent",
    "GenerationJob",
    "GenerationRequest",
    "GenerationUsage",
    "GradeContext",
    "GradeOutcome",
    "GradeRecord",
    "GraderSpec",
    "ImportProblem",
    "ImportReport",
    "InvalidArgument",
    "LabeledTrace",
    "LatencySummary",
    "Message",
    "NotFound",
    "PermissionDenied",
    "RunInfo",
    "RunSummary",
    "Step",
    "StoredSuiteInfo",
    "Suite",
    "SuiteError",
    "SuitePush",
    "SuiteVersionInfo",
    "TagSummary",
    "ToolError",
    "Trace",
    "TraceInfo",
    "TrialError",
    "TrialRecord",
    "Unauthenticated",
    "Unavailable",
    "Usage",
    "grader",
    "load_suite",
    "mlflow_scorer",
    "parse_suite",
]

_LAZY = {
    "Case": "agenteval.contracts.suite",
    "GraderSpec": "agenteval.contracts.suite",
    "Suite": "agenteval.contracts.suite",
    "Message": "agenteval.contracts.trace",
    "Step": "agenteval.contracts.trace",
    "Trace": "agenteval.contracts.trace",
    "TrialError": "agenteval.contracts.trace",
    "Usage": "agenteval.contracts.trace",
    "RunSummary": "agenteval.contracts.summary",
    "CaseSummary": "agenteval.contracts.summary",
    "TagSummary": "agenteval.contracts.summary",
    "LatencySummary": "agenteval.contracts.summary",
    "GradeRecord": "agenteval.contracts.events",
    "RunInfo": "agenteval.contracts.records",
    "TrialRecord": "agenteval.contracts.records",
    "TraceInfo": "agenteval.contracts.records",
    "ImportReport": "agenteval.contracts.records",
    "ImportProblem": "agenteval.contracts.records",
    "LabeledTrace": "agenteval.contracts.records",
    "SuiteVersionInfo": "agenteval.contracts.records",
    "StoredSuiteInfo": "agenteval.contracts.records",
    "SuitePush": "agenteval.contracts.records",
    "EvalInfo": "agenteval.contracts.evals",
    "EvalSplit": "agenteval.contracts.evals",
    "EvalCandidate": "agenteval.contracts.evals",
    "GenerationUsage": "agenteval.contracts.evals",
    "GenerationRequest": "agenteval.contracts.evals",
    "GenerationJob": "agenteval.contracts.evals",
    "GenerationEvent": "agenteval.contracts.evals",
    "EvalCodeReport": "agenteval.contracts.records",
    "EvalMismatch": "agenteval.contracts.records",
    "AgentEvalError": "agenteval.contracts.errors",
    "NotFound": "agenteval.contracts.errors",
    "InvalidArgument": "agenteval.contracts.errors",
    "Conflict": "agenteval.contracts.errors",
    "Unavailable": "agenteval.contracts.errors",
    "PermissionDenied": "agenteval.contracts.errors",
    "Unauthenticated": "agenteval.contracts.errors",
    "GradeContext": "agenteval.grading",
    "GradeOutcome": "agenteval.grading",
    "grader": "agenteval.grading",
    "Client": "agenteval.sdk._client",
    "SuiteError": "agenteval.suites",
    "load_suite": "agenteval.suites",
    "mlflow_scorer": "agenteval.grading.mlflow_scorers",
    "parse_suite": "agenteval.suites",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agenteval.sdk' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
