"""The comparison as dataclasses: the source of truth of the comparison document."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Verdict = Literal["regressed", "improved", "unchanged"]
Correction = Literal["discrete-holm", "holm", "bh", "bonferroni", "none"]
Check = Literal["cases", "suite", "errors"]


@dataclass(frozen=True)
class CaseComparison:
    """One case present in both runs."""

    case_id: str
    baseline_passes: int
    baseline_trials: int
    candidate_passes: int
    candidate_trials: int
    baseline_rate: float
    candidate_rate: float
    delta: float
    """candidate_rate - baseline_rate."""
    p_value: float
    """One-sided Fisher exact p-value in the direction of the change (1.0 when delta = 0)."""
    adjusted_p_value: float
    """p_value adjusted across cases by the correction, then for the alpha split (compare with alpha)."""
    verdict: Verdict
    baseline_errors: int = 0
    """Baseline trials whose agent raised."""
    baseline_timeouts: int = 0
    candidate_errors: int = 0
    candidate_timeouts: int = 0
    min_p_value: float = 1.0
    """The smallest one-sided p-value this case could reach: its candidate at 0 passes."""
    flaggable: bool = True
    """Whether a fall to 0 passes could be flagged at these trial counts, the other cases as observed."""
    trials_to_flag: int | None = None
    """When not flaggable: trials per run at which a fall from the baseline rate to 0
    would be flagged whatever the other cases do (None when no number would)."""
    definition_changed: bool = False
    """The case's definition (input, graders, mocks, ...) differs between the two runs."""


@dataclass(frozen=True)
class SuiteComparison:
    """The suite over the cases present in both runs."""

    n_cases: int
    mean_delta: float
    ci_low: float
    ci_high: float
    confidence: float
    p_value: float
    """One-sided paired sign-flip permutation p-value in the direction of mean_delta."""
    adjusted_p_value: float
    """p_value divided by the suite's share of alpha (equal to it without the split)."""
    verdict: Verdict
    test: str = "paired sign-flip permutation test on per-case pass-rate deltas"


@dataclass(frozen=True)
class ErrorChange:
    """A case whose trials newly error or time out in the candidate."""

    case_id: str
    baseline_trials: int
    baseline_errors: int
    baseline_timeouts: int
    candidate_trials: int
    candidate_errors: int
    candidate_timeouts: int
    kinds: list[str]
    """What is new: "errors", "timeouts" or both."""


@dataclass(frozen=True)
class Reason:
    """One check of the comparison and what it found: why it passed or failed."""

    check: Check
    """cases (per-case tests), suite (suite-level test) or errors (new errors and timeouts)."""
    failed: bool
    """True when this check fails the comparison."""
    message: str


@dataclass(frozen=True)
class Comparison:
    """The result of `compare_runs`; `passed` is False when any reason failed."""

    cases: list[CaseComparison]
    suite: SuiteComparison
    added: list[str]
    """Cases only in the candidate run."""
    removed: list[str]
    """Cases only in the baseline run."""
    regressions: list[str]
    improvements: list[str]
    threshold: float
    alpha: float
    correction: str
    split_alpha: bool
    passed: bool
    notes: list[str] = field(default_factory=list)
    case_alpha: float = 0.0
    """The level the per-case family is held to (alpha times the cases' share)."""
    suite_alpha: float = 0.0
    """The level the suite test is held to."""
    new_errors: list[ErrorChange] = field(default_factory=list)
    """Cases whose trials newly error or time out."""
    fail_on_new_errors: bool = True
    """New errors and timeouts fail the comparison."""
    unflaggable: list[str] = field(default_factory=list)
    """Cases the per-case test cannot flag at these trial counts, whatever the candidate does."""
    min_trials_to_flag: int | None = None
    """Trials per run at which a case going from every trial passing to none is flagged,
    whatever the other cases do (Bonferroni over the shared cases)."""
    baseline_suite: str = ""
    candidate_suite: str = ""
    suites_differ: bool = False
    """The two runs are of suites with different names: the comparison is of different things."""
    changed_cases: list[str] = field(default_factory=list)
    """Shared cases whose definition differs between the runs."""
    reasons: list[Reason] = field(default_factory=list)
    """Why it passed or failed: one entry per check (cases, suite, errors)."""


@dataclass(frozen=True)
class GraderDelta:
    """One grader's mean score on one case present in both runs."""

    case_id: str
    grader: str
    baseline_score: float | None
    """None when the grader did not run on the case in the baseline."""
    candidate_score: float | None
    delta: float | None
    """candidate_score - baseline_score; None unless the grader ran in both runs."""
