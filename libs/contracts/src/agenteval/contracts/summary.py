"""Run and case statistics as they cross the bus (run.completed) and reach clients."""

from __future__ import annotations

from pydantic import BaseModel, Field


class LatencySummary(BaseModel):
    """Latency percentiles of a set of trials, in milliseconds."""

    p50_ms: float = 0.0
    p95_ms: float = 0.0
    p99_ms: float = 0.0
    mean_ms: float = 0.0
    max_ms: float = 0.0


class CaseSummary(BaseModel):
    """Statistics of one case over its n trials."""

    case_id: str
    trials: int
    """n: trials graded."""
    passes: int
    """c: trials that passed every grader."""
    pass_rate: float
    pass_rate_low: float = 0.0
    """Lower end of the 95% Wilson interval of the pass rate."""
    pass_rate_high: float = 1.0
    """Upper end of the 95% Wilson interval."""
    pass_at_k: dict[int, float] = Field(default_factory=dict)
    """Unbiased pass@k for k = 1..n."""
    pass_pow_k: dict[int, float] = Field(default_factory=dict)
    """Unbiased pass^k for k = 1..n."""
    latency: LatencySummary = Field(default_factory=LatencySummary)
    errors: int = 0
    """Trials whose agent raised."""
    timeouts: int = 0
    """Trials that ran out of time."""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cost_unknown_trials: int = 0
    """Trials whose agent used tokens no price could be put on: ``cost_usd`` leaves them out."""
    tags: list[str] = Field(default_factory=list)
    grader_scores: dict[str, float] = Field(default_factory=dict)
    """Mean score per grader name."""
    flaky: bool = False
    """Some trials passed and some failed."""


class TagSummary(BaseModel):
    """Statistics of the cases carrying one tag."""

    tag: str
    cases: int
    trials: int
    passes: int
    pass_rate: float
    pass_rate_low: float = 0.0
    pass_rate_high: float = 1.0
    pass_at_k: dict[int, float] = Field(default_factory=dict)
    """Mean over the tag's cases of pass@k, for k up to the fewest trials of those cases."""
    pass_pow_k: dict[int, float] = Field(default_factory=dict)
    latency: LatencySummary = Field(default_factory=LatencySummary)
    """Latency percentiles over every trial of the tag's cases."""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cost_unknown_trials: int = 0
    """Trials whose agent used tokens no price could be put on: ``cost_usd`` leaves them out."""
    grader_scores: dict[str, float] = Field(default_factory=dict)
    """Mean score per grader, over the trials of the tag's cases that ran it."""


class RunSummary(BaseModel):
    """Statistics of a whole run: totals and the per-case figures."""

    run_id: str
    suite: str = ""
    agent: str = ""
    agent_version: str = ""
    k: int = 0
    trials: int = 0
    passes: int = 0
    pass_rate: float = 0.0
    pass_rate_low: float = 0.0
    pass_rate_high: float = 1.0
    pass_at_k: dict[int, float] = Field(default_factory=dict)
    """Mean over cases of each case's pass@k."""
    pass_pow_k: dict[int, float] = Field(default_factory=dict)
    """Mean over cases of each case's pass^k."""
    latency: LatencySummary = Field(default_factory=LatencySummary)
    errors: int = 0
    timeouts: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    """What the priced tokens and grading cost (trials counted in ``cost_unknown_trials`` only
    in part)."""
    cost_unknown_trials: int = 0
    """Trials whose agent used tokens no price could be put on (no model named for them, or a
    model missing from the price table): ``cost_usd`` leaves those tokens out."""
    grader_failures: dict[str, int] = Field(default_factory=dict)
    """Per grader, the trials it could not grade (a judge without an API key, an eval function
    that raised): those grades count as failed, and the run says so rather than "0 errors"."""
    grader_failure_reasons: dict[str, str] = Field(default_factory=dict)
    """Per grader, why it could not grade (the first reason seen)."""
    cases: list[CaseSummary] = Field(default_factory=list)
    tags: list[TagSummary] = Field(default_factory=list)
    """The same figures per case tag."""
