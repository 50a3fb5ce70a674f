"""Contracts between services: events, the trace and suite schemas, summaries, errors."""

from agenteval.contracts.errors import (
    AgentEvalError,
    AlreadyExists,
    Conflict,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unavailable,
)
from agenteval.contracts.events import (
    EvalGenerated,
    Event,
    GradeRecord,
    RunCancelled,
    RunCompleted,
    RunProgressed,
    RunSubmitted,
    TraceRef,
    TrialCompleted,
    TrialGraded,
    TrialRequested,
    trial_id_for,
)
from agenteval.contracts.subjects import Subjects
from agenteval.contracts.suite import Case, GraderSpec, Suite
from agenteval.contracts.summary import CaseSummary, LatencySummary, RunSummary
from agenteval.contracts.trace import Message, Step, Trace, TrialError, Usage

__all__ = [
    "AgentEvalError",
    "AlreadyExists",
    "Case",
    "CaseSummary",
    "Conflict",
    "EvalGenerated",
    "Event",
    "GradeRecord",
    "GraderSpec",
    "InvalidArgument",
    "LatencySummary",
    "Message",
    "NotFound",
    "PermissionDenied",
    "RunCancelled",
    "RunCompleted",
    "RunProgressed",
    "RunSubmitted",
    "RunSummary",
    "Step",
    "Subjects",
    "Suite",
    "Trace",
    "TraceRef",
    "TrialCompleted",
    "TrialError",
    "TrialGraded",
    "TrialRequested",
    "Unavailable",
    "Usage",
    "trial_id_for",
]
