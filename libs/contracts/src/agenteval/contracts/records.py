"""What the services report over gRPC, as models: runs, stored trials, imported traces, eval tests.

Saved evals and generation jobs are in :mod:`agenteval.contracts.evals`.

The typed client (``agenteval.sdk.Client``) returns these; the servicers build them and
``agenteval.contracts.pb`` converts them to and from their protobuf messages.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field
from pydantic.dataclasses import dataclass

from agenteval.contracts.events import GradeRecord
from agenteval.contracts.summary import RunSummary
from agenteval.contracts.trace import Trace, TrialStatus

RunStatus = Literal["pending", "running", "completed", "cancelled", "failed"]
Label = Literal["positive", "negative"]
"""A person's verdict on a trace: the agent did well (positive) or not (negative)."""

ENDED: frozenset[str] = frozenset({"completed", "cancelled", "failed"})
"""Run statuses after which nothing changes any more."""


class RunInfo(BaseModel):
    """A run as the runner reports it: where it is and, once it has ended, its summary."""

    run_id: str
    """Run id."""
    suite: str = ""
    """Name of the suite it runs."""
    agent: str = ""
    """Agent spec."""
    agent_version: str = ""
    """Label of the agent version, for comparisons."""
    k: int | None = None
    """Trials per case the run asked for; None means each case's or the suite's own."""
    status: RunStatus = "pending"
    """Where the run is in its lifecycle."""
    trials_total: int = 0
    """Trials in the whole run."""
    trials_graded: int = 0
    """Trials graded so far."""
    created_at: datetime | None = None
    """When it was submitted (UTC)."""
    completed_at: datetime | None = None
    """When it completed (UTC)."""
    summary: RunSummary | None = None
    """The statistics, once the run has ended."""
    error: str | None = None
    """Why the run failed."""
    suite_version: str = ""
    """Content address (sha256 hex) of the suite version it ran."""
    suite_version_number: int = 0
    """The version's number in the suite store (0: the suite was sent inline)."""
    tags: list[str] = Field(default_factory=list)
    """The tags the run was limited to (empty: every case ran)."""
    project: str = "default"
    """The project the run belongs to."""

    @property
    def ended(self) -> bool:
        """Whether the run is completed, cancelled or failed."""
        return self.status in ENDED


class TrialRecord(BaseModel):
    """One stored trial: its transcript and, once graded, its verdict and every grade."""

    trial_id: str
    """Trial id: run_id/case_id/trial_index."""
    run_id: str
    """The run it belongs to."""
    case_id: str
    """The case it ran."""
    trial_index: int
    """Index of the trial within the case (0-based)."""
    status: TrialStatus | None = None
    """How the agent finished (None while only its grades are stored)."""
    latency_ms: float = 0.0
    """Wall time of the trial."""
    created_at: datetime | None = None
    """When it was stored (UTC)."""
    passed: bool | None = None
    """Whether it passed (finished and every grader passed); None until graded."""
    score: float | None = None
    """Mean grader score; None until graded."""
    grades: list[GradeRecord] = Field(default_factory=list)
    """Each grader's verdict, with its parameters and explanation; empty until graded."""
    trace: Trace | None = None
    """The transcript; None when only summaries were asked for."""


class TraceInfo(BaseModel):
    """An imported trace of a dataset, with the label a person gave it."""

    trace_id: str
    """Trace id (from the source, or a hash of its content)."""
    dataset: str
    """The dataset it belongs to."""
    label: Label | None = None
    """positive, negative, or None when unlabeled."""
    summary: str = ""
    """First 200 characters of the final output."""
    step_count: int = 0
    """Steps in the trace."""
    has_tool_calls: bool = False
    """Whether the trace calls any tool."""
    comment: str | None = None
    """The rater's comment on the label."""
    rater: str | None = None
    """Who labeled it."""
    dataset_version: int = 0
    """The dataset's version (0 when not reported)."""
    trace: Trace | None = None
    """The trace in full, when it was asked for."""


@dataclass
class ImportProblem:
    """Something in an imported file that could not be read; the rest of the file still is."""

    line: int
    """1-based line (JSON Lines) or record index (a whole-file JSON document); 0 for the whole file."""
    reason: str
    """One line a person can act on."""
    unit: Literal["line", "record", "file"] = "line"
    """What ``line`` counts."""

    def __str__(self) -> str:
        return self.reason if self.unit == "file" else f"{self.unit} {self.line}: {self.reason}"


class ImportReport(BaseModel):
    """What an import of a trace file into a dataset did."""

    dataset: str
    """The dataset imported into."""
    dataset_version: int
    """Its version after the import."""
    imported: int
    """Traces added."""
    duplicates: int
    """Traces already there (not added again)."""
    problems: list[ImportProblem] = Field(default_factory=list)
    """What could not be read."""
    format: str = ""
    """The format the file was read as."""


class LabeledTrace(BaseModel):
    """A trace with the label a person gave it: what eval code is tested on."""

    trace_id: str
    """Trace id, named in mismatches."""
    trace: Trace
    """The trace."""
    label: Label
    """The label an eval function should predict."""


class EvalMismatch(BaseModel):
    """A trace an eval function got wrong, or failed on."""

    trace_id: str
    """The trace."""
    expected: Label
    """Its label."""
    predicted: Label | None = None
    """What the code predicted (score >= 0.5 is positive); None when it failed."""
    score: float | None = None
    """The code's score; None when it failed."""
    explanation: str = ""
    """The code's explanation."""
    error: str | None = None
    """Why the code failed on this trace."""


class EvalCodeReport(BaseModel):
    """How an eval function did on labeled traces (run in the sandbox)."""

    accuracy: float
    """Share of traces predicted right."""
    total: int
    """Traces tested."""
    correct: int
    """Predicted right."""
    incorrect: int
    """Predicted wrong."""
    errors: int
    """Traces the code failed on (counted as not correct)."""
    mismatches: list[EvalMismatch] = Field(default_factory=list)
    """The wrong and failed ones (the first 200)."""
    code_error: str | None = None
    """Set when the code could not run at all (syntax, forbidden import, ...)."""


class SuiteVersionInfo(BaseModel):
    """One version of a stored suite (immutable, content-addressed)."""

    name: str
    version: int
    """1, 2, ... in the order versions were first stored."""
    digest: str
    """sha256 (hex) of the canonical suite: what the version is."""
    created_at: str = ""
    """When this content was first stored (ISO 8601, UTC)."""
    case_count: int = 0
    tags: list[str] = Field(default_factory=list)
    current: bool = False
    """Whether NAME without @VERSION runs this version."""
    description: str = ""
    suite_yaml: str = ""
    """The content as a suite file (YAML); set when one version is asked for."""


class StoredSuiteInfo(BaseModel):
    """A stored suite with its current version."""

    name: str
    current: SuiteVersionInfo
    version_count: int = 0
    created_at: str = ""
    updated_at: str = ""


class SuitePush(BaseModel):
    """What storing a suite did."""

    version: SuiteVersionInfo
    """The version now current."""
    new_version: bool
    """False: the content was already that version (made current again)."""
    previous_version: int = 0
    """The version current before (0: the suite was created)."""
