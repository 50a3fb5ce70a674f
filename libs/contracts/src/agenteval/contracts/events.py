"""Event contracts: one pydantic model per bus subject, named after it.

Every event carries ``event_id`` (also its JetStream dedupe id), ``occurred_at`` (UTC)
and ``schema_version``. Fields are only ever added; a breaking change is a new subject.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from agenteval.contracts.suite import Case, GraderSpec, Suite
from agenteval.contracts.summary import RunSummary
from agenteval.contracts.trace import Trace, TrialStatus


def _now() -> datetime:
    return datetime.now(UTC)


def trial_id_for(run_id: str, case_id: str, trial_index: int) -> str:
    """Deterministic trial id: the same (run, case, index) is always the same trial."""
    return f"{run_id}/{case_id}/{trial_index}"


class Event(BaseModel):
    """Fields every event has."""

    event_id: str
    """Unique and deterministic per fact; used as the JetStream dedupe id."""
    occurred_at: datetime = Field(default_factory=_now)
    """When it happened (UTC)."""
    schema_version: int = 1
    """Version of this event's schema."""
    trace_context: dict[str, str] = Field(default_factory=dict)
    """W3C trace context (traceparent) of the span that caused it: one run is one trace.
    Also sent as NATS headers; carried in the payload so batch handlers see it per event."""


class RunSubmitted(Event):
    """A client submitted a run; the runner expands it into trials."""

    kind: Literal["run.submitted"] = "run.submitted"
    run_id: str
    suite: Suite
    """The suite as submitted (cases already filtered by tags)."""
    agent: str
    """Agent spec."""
    agent_version: str = ""
    k: int | None = None
    """Trials per case from the run; None means each case's or the suite's own."""
    seed: int = 0
    timeout_s: float | None = None
    concurrency: int = 0
    trials_total: int


class TrialRequested(Event):
    """One trial to run: carries everything a runner replica needs."""

    kind: Literal["trial.requested"] = "trial.requested"
    run_id: str
    trial_id: str
    case: Case
    graders: list[GraderSpec]
    """The graders that will judge it (suite defaults + the case's)."""
    trial_index: int
    trials_total: int
    """Trials in the whole run (so downstream services know when it is complete)."""
    agent: str
    agent_version: str = ""
    suite: str = ""
    seed: int = 0
    """Seed of this trial's random generator."""
    timeout_s: float
    allowed_imports: list[str] = Field(default_factory=list)
    concurrency: int = 0
    """The run's own limit on trials at once (0: the replica's limit)."""


class TraceRef(BaseModel):
    """Where the full trace of a trial lies when it is too large to travel in its event."""

    bucket: str
    """The JetStream object store bucket."""
    key: str
    """The object's name in the bucket (the trial id)."""
    size_bytes: int
    """Size of the full trace as JSON."""


class TrialCompleted(Event):
    """The agent finished one trial (ok, error or timeout); the trace is attached."""

    kind: Literal["trial.completed"] = "trial.completed"
    run_id: str
    trial_id: str
    case: Case
    graders: list[GraderSpec]
    trial_index: int
    trials_total: int
    agent_version: str = ""
    suite: str = ""
    agent: str = ""
    """Agent spec the trial ran (so downstream services can name it without the runner's tables)."""
    trace: Trace
    """The trace; cut to fit the bus (``metadata.truncated``) when ``full_trace`` is set."""
    allowed_imports: list[str] = Field(default_factory=list)
    full_trace: TraceRef | None = None
    """Set when the trace was too large for the bus: the full trace is in this object store
    object (see ``agenteval.runtime.transcript_bucket``), ``trace`` is a cut copy of it."""


class GradeRecord(BaseModel):
    """One grader's verdict, as carried on trial.graded."""

    name: str
    """Grader name."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Parameters it ran with (for replay)."""
    score: float
    """Score in [0, 1]."""
    passed: bool
    """Whether the check passed."""
    explanation: str
    """Why, in words a person can act on."""
    error: str | None = None
    """Set when the grader itself could not run (bad trace, sandbox error, ...)."""
    input_tokens: int = 0
    """Tokens an LLM grader spent."""
    output_tokens: int = 0
    """Tokens an LLM grader produced."""
    cost_usd: float = 0.0
    """What grading cost."""


class TrialGraded(Event):
    """Every grader has judged one trial."""

    kind: Literal["trial.graded"] = "trial.graded"
    run_id: str
    trial_id: str
    case_id: str
    trial_index: int
    trials_total: int
    suite: str = ""
    agent_version: str = ""
    agent: str = ""
    """Agent spec the trial ran."""
    tags: list[str] = Field(default_factory=list)
    status: TrialStatus
    passed: bool
    """True when the agent finished and every grader passed."""
    score: float
    """Mean grader score (0 when the trial did not finish)."""
    grades: list[GradeRecord]
    latency_ms: float
    input_tokens: int = 0
    output_tokens: int = 0
    models: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Tokens per model, so cost can be priced per model."""
    grading_cost_usd: float = 0.0


class RunProgressed(Event):
    """Progress of a run (published at most a few times a second per run)."""

    kind: Literal["run.progressed"] = "run.progressed"
    run_id: str
    trials_total: int
    trials_graded: int
    passes: int


class RunCompleted(Event):
    """Every trial of a run is graded; its summary is final. Published once per run."""

    kind: Literal["run.completed"] = "run.completed"
    run_id: str
    summary: RunSummary


class RunCancelled(Event):
    """A client cancelled a run; trials not yet started are skipped."""

    kind: Literal["run.cancelled"] = "run.cancelled"
    run_id: str


class EvalGenerated(Event):
    """An eval function was generated and saved."""

    kind: Literal["eval.generated"] = "eval.generated"
    name: str
    version: int
    holdout_accuracy: float | None = None
