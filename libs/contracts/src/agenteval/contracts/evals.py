"""Generated eval functions and the jobs that generate them, as the eval generator reports them.

The typed client (``agenteval.sdk.Client``) returns these; the eval generator's servicer
builds them and ``agenteval.contracts.pb`` converts them to and from their protobuf messages.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

EvalStatus = Literal["current", "active", "candidate"]
"""current: what ``eval:NAME`` resolves to; active: promoted once, since replaced;
candidate: saved below its target, used only as ``eval:NAME@VERSION`` until promoted."""
GenerationMethod = Literal["auto", "llm", "synthesizer"]
"""auto: Claude when a key is configured, else the synthesizer."""
GenerationJobStatus = Literal["queued", "running", "done", "failed", "cancelled"]
GenerationOutcome = Literal["promoted", "candidate", "kept"]
"""How a job that is done ended: a new current version, a new candidate, or the current kept."""
GenerationEventType = Literal[
    "started",
    "thinking",
    "tool_called",
    "tool_result",
    "test_result",
    "candidate",
    "warning",
    "saved",
    "kept",
    "failed",
    "cancelled",
]
CandidateSource = Literal["synthesizer", "model_tested", "model_final", "previous"]

JOB_ENDED: frozenset[str] = frozenset({"done", "failed", "cancelled"})
"""Job statuses after which nothing changes any more."""


class EvalSplit(BaseModel):
    """How a dataset was split for generation: traces the generator saw, and traces held out."""

    seed: int = 0
    """Seed of the (stratified) split."""
    holdout_fraction: float = 0.0
    """Fraction of the dataset held out."""
    train: list[str] = Field(default_factory=list)
    """Ids of the traces the generator learned from."""
    holdout: list[str] = Field(default_factory=list)
    """Ids of the traces it never saw."""


class GenerationUsage(BaseModel):
    """What a generation spent and how its model loop ended."""

    model: str = ""
    """The model of the loop; empty when no model ran (the synthesizer only)."""
    input_tokens: int = 0
    """Input tokens of every model call."""
    output_tokens: int = 0
    """Output tokens of every model call."""
    cost_usd: float = 0.0
    """USD at list price; 0 for a model not in the price table (see ``price_known``)."""
    price_known: bool = False
    """Whether the model has a price in the table (else ``cost_usd`` is 0, not "free")."""
    attempts: int = 0
    """test_eval_code calls that reached the sandbox."""
    steps: int = 0
    """Model calls."""
    stop_reason: str = ""
    """How the loop ended: target_reached, attempts_exhausted, step_limit, model_finished,
    cut_off, error; "synthesizer" when no model ran."""


class EvalCandidate(BaseModel):
    """One function a generation considered, measured in the sandbox on the training split."""

    source: CandidateSource
    """Where it came from."""
    train_accuracy: float = 0.0
    """Accuracy on the training split (0 when it could not run)."""
    errors: int = 0
    """Traces it failed on (an exception or a timeout); any makes it ineligible."""
    code_error: str | None = None
    """Why the code could not run at all (or timed out on the first traces)."""
    chosen: bool = False
    """Whether the generation chose it."""
    note: str = ""
    """Why it was or was not chosen."""
    version: int = 0
    """For source "previous": that saved version; for "model_tested": the test's number."""


class EvalInfo(BaseModel):
    """A saved eval function (one version of it)."""

    name: str
    """Eval name; a suite grades with it as ``eval:NAME``."""
    version: int
    """Version, from 1."""
    code: str
    """Python source defining ``eval_NAME(trace, ctx=None) -> (score, explanation)``."""
    generator: str = ""
    """Model or "synthesizer" that wrote it."""
    train_accuracy: float = 0.0
    """Accuracy on the traces it learned from."""
    holdout_accuracy: float = 0.0
    """Accuracy on the held-out traces it never saw."""
    dataset: str = ""
    """The dataset of labeled traces it was generated from."""
    dataset_version: int = 0
    """That dataset's version at the time."""
    split: EvalSplit | None = None
    """How the dataset was split; None when not recorded."""
    created_at: datetime | None = None
    """When it was saved (UTC)."""
    description: str = ""
    """What it checks, in words."""
    status: EvalStatus = "active"
    """Whether ``eval:NAME`` resolves to it (current), did once (active), or not (candidate)."""
    promoted_at: datetime | None = None
    """When it was last promoted (saved at the target counts); None for a candidate."""
    target_accuracy: float = 0.0
    """The accuracy it had to reach (training and held-out) to be promoted on save; 0 when
    not recorded (versions saved before generation jobs)."""
    job_id: str = ""
    """The generation job that saved it (empty for versions saved before jobs)."""
    usage: GenerationUsage = Field(default_factory=GenerationUsage)
    """What the generation that produced it spent."""
    candidates: list[EvalCandidate] = Field(default_factory=list)
    """Every candidate measured on the same training split, the chosen one marked."""


class GenerationRequest(BaseModel):
    """What to generate, from which dataset, and how (the eval generator checks the ranges)."""

    name: str
    """Eval name (a letter, then letters, digits or _)."""
    dataset: str
    """Dataset of labeled traces."""
    method: GenerationMethod = "auto"
    """auto (Claude when a key is configured, else the synthesizer), llm or synthesizer."""
    model: str = "claude-sonnet-4-5"
    """Model of the LLM loop."""
    target_accuracy: float = 0.8
    """Accuracy (training and held-out) a version needs to be promoted on save."""
    max_attempts: int = 5
    """test_eval_code calls the model may make."""
    max_steps: int = 50
    """Model calls, the wrap-up included."""
    holdout_fraction: float = 0.3
    """Fraction held out, never seen by the generator."""
    seed: int = 0
    """Seed of the split."""
    allow_fallback: bool = False
    """With method llm: when the model cannot be used (API errors, a cut-off reply), choose
    among the other candidates instead of failing. auto always may."""


class GenerationJob(BaseModel):
    """A generation job: what was asked, where it stands, what it spent and how it ended."""

    job_id: str
    """Job id."""
    status: GenerationJobStatus
    """Where the job is in its lifecycle."""
    request: GenerationRequest
    """What was asked, defaults filled in."""
    created_at: datetime | None = None
    """When it was queued (UTC)."""
    started_at: datetime | None = None
    """When its current (or last) run started; None while first queued."""
    finished_at: datetime | None = None
    """When it ended."""
    outcome: GenerationOutcome | None = None
    """How it ended, once done."""
    eval_version: int = 0
    """The version saved (promoted, candidate) or kept; 0 when none."""
    error: str | None = None
    """Why it failed (or was cancelled)."""
    error_code: str | None = None
    """The status code name of a failure (INVALID_ARGUMENT, NOT_FOUND, UNAVAILABLE, INTERNAL...)."""
    usage: GenerationUsage = Field(default_factory=GenerationUsage)
    """Totals over every run of the job."""
    runs: int = 0
    """Runs started: more than 1 when a service restart re-ran it."""
    last_sequence: int = 0
    """Sequence number of its last event (watch after it to see only what comes next)."""
    train_accuracy: float = 0.0
    """Training accuracy of the chosen function, once done."""
    holdout_accuracy: float = 0.0
    """Held-out accuracy of the chosen function, once done."""

    @property
    def ended(self) -> bool:
        """Whether the job is done, failed or cancelled."""
        return self.status in JOB_ENDED


class GenerationEvent(BaseModel):
    """One event of a generation (of a job, numbered so a watch can resume after it)."""

    type: GenerationEventType
    """What happened."""
    message: str = ""
    """What happened, in words."""
    sequence: int = 0
    """1, 2, ... per job, never reused; 0 outside a job."""
    accuracy: float = 0.0
    """The accuracy the event reports (test results, candidates, the end); 0 when none."""
    step: int = 0
    """The model's step, for the loop's events."""
    created_at: datetime | None = None
    """When it happened (UTC)."""
    eval: EvalInfo | None = None
    """The version saved (saved) or kept (kept)."""
