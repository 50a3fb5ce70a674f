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
from agenteval.contracts.trace import Count, Millis, Trace, TrialError, TrialStatus


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
    project: str = "default"
    """The project the run belongs to (its caller's, when it was submitted)."""
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


def run_plan(ev: RunSubmitted) -> dict[str, int]:
    """Trials per case the run will have (what the runner expands it into, in case order)."""
    return {case.id: ev.suite.trials_for(case, ev.k) for case in ev.suite.cases}


class TrialRequested(Event):
    """One trial to run: carries everything a runner replica needs."""

    kind: Literal["trial.requested"] = "trial.requested"
    run_id: str
    project: str = "default"
    """The project the run belongs to (its caller's, when it was submitted)."""
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
    project: str = "default"
    """The project the run belongs to (its caller's, when it was submitted)."""
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
    project: str = "default"
    """The project the run belongs to (its caller's, when it was submitted)."""
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
    latency_ms: Millis
    input_tokens: Count = 0
    output_tokens: Count = 0
    models: dict[str, dict[str, Count]] = Field(default_factory=dict)
    """Tokens per model, so cost can be priced per model."""
    grading_cost_usd: float = 0.0
    error: TrialError | None = None
    """Why the agent did not finish (status error or timeout)."""


class TrialResult(BaseModel):
    """One trial's verdict as result streams carry it (WatchRun): enough to show and count it."""

    trial_id: str
    """Deterministic trial id (run/case/index)."""
    case_id: str
    """The case it ran."""
    trial_index: int
    """Which of the case's trials (0-based)."""
    status: TrialStatus
    """ok, error or timeout: whether the agent finished."""
    passed: bool
    """The agent finished and every grader passed."""
    score: float
    """Mean grader score."""
    grades: list[GradeRecord] = Field(default_factory=list)
    """Each grader's verdict, score and explanation."""
    input_tokens: int = 0
    """Tokens the agent spent."""
    output_tokens: int = 0
    """Tokens the agent produced."""
    cost_usd: float = 0.0
    """What the trial cost: the agent's models priced, plus grading."""
    cost_unknown: bool = False
    """Some of the agent's tokens could not be priced (no model named for them, or a model
    missing from the price table): ``cost_usd`` leaves them out."""
    latency_ms: float = 0.0
    """Wall time of the trial."""
    tags: list[str] = Field(default_factory=list)
    """The case's tags."""
    error: TrialError | None = None
    """Why the agent did not finish, when it did not."""


ReportKind = Literal["submitted", "trials", "completed", "cancelled", "failed"]


class RunReported(Event):
    """A step of a run's result stream: what WatchRun subscribers receive, in order.

    Published on ``<prefix>.run.reported.<project>.<suite>.<agent version>.<run>`` (tokens
    from :func:`agenteval.contracts.subjects.token`), so a subscriber can follow one run or
    every run of a suite, a version or a project, and resume after the stream sequence of
    the last message it saw. The runner reports submitted and cancelled runs; the metrics
    service reports graded trials (in batches, with the run's progress) and completion.
    A trial may be reported more than once after a redelivery: readers keep the first.
    """

    kind: ReportKind
    """What this step reports."""
    run_id: str
    project: str = ""
    """The run's project ("" before projects exist)."""
    suite: str = ""
    agent_version: str = ""
    trials: list[TrialResult] = Field(default_factory=list)
    """Graded trials (kind "trials")."""
    trials_total: int = 0
    """Trials in the whole run."""
    trials_graded: int = 0
    """Trials graded so far (after this step)."""
    passes: int = 0
    """Trials passed so far."""
    summary: RunSummary | None = None
    """The final summary (kind "completed")."""
    reason: str = ""
    """Why the run failed or was cancelled."""


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


class DeliveryFailed(Event):
    """A bus message that its handler could not process, after the delivery limit.

    Failures are data: the service that owned the message has recorded what it could (a
    trial as ``error`` with the reason, a run as failed), and the original message is kept
    here, on the stream, so an operator can list it and replay it after a fix
    (``agent-eval dead-letters``)."""

    kind: Literal["delivery.failed"] = "delivery.failed"
    handler: str
    """The durable consumer that gave up (``<service>-<handler>``)."""
    subject: str
    """Where the original message was published."""
    stream_seq: int
    """Its sequence number in the stream."""
    deliveries: int
    """How many times it was tried."""
    error: str
    """What the last try raised (type and message, cut to a few KB)."""
    error_id: str
    """The id under which the full error was logged."""
    data: str
    """The original payload (UTF-8; undecodable bytes replaced)."""
    recorded: bool = False
    """Whether the owning service recorded the failure as data (e.g. the trial as error)."""
