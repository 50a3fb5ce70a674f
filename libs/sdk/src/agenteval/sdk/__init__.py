"""agenteval's public API: what agents, suites, graders and scripts are written against.

- Agents under test: :class:`AgentContext` (the trial's recorder: tool calls, LLM calls,
  state, a seeded RNG) and :class:`ToolError`.
- Suites in Python: :class:`Suite`, :class:`Case`, :class:`GraderSpec`, :func:`load_suite`,
  :func:`parse_suite`.
- Graders of your own: the :func:`grader` decorator, :class:`GradeContext`,
  :class:`GradeOutcome`.
- Talking to a running agenteval: :class:`Client`.
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
    from agenteval.contracts.suite import Case, GraderSpec, Suite
    from agenteval.contracts.summary import RunSummary
    from agenteval.grading import GradeContext, GradeOutcome, grader
    from agenteval.grading.mlflow_scorers import mlflow_scorer
    from agenteval.sdk._client import Client
    from agenteval.suites import SuiteError, load_suite, parse_suite

__all__ = [
    "AgentContext",
    "Case",
    "Client",
    "GradeContext",
    "GradeOutcome",
    "GraderSpec",
    "RunSummary",
    "Suite",
    "SuiteError",
    "ToolError",
    "grader",
    "load_suite",
    "mlflow_scorer",
    "parse_suite",
]

_LAZY = {
    "Case": "agenteval.contracts.suite",
    "GraderSpec": "agenteval.contracts.suite",
    "Suite": "agenteval.contracts.suite",
    "RunSummary": "agenteval.contracts.summary",
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
