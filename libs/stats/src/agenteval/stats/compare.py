"""Regression detection between a baseline run and a candidate run of the same suite.

Decision rules (both a practical and a statistical bar, so noise alone rarely fails CI):
- a case regressed when its pass rate fell by more than `threshold` AND the one-sided
  Fisher exact p-value (candidate < baseline), adjusted across cases by `correction`,
  is below `alpha`; "improved" mirrors it.
- the suite regressed when the mean per-case delta fell by more than `threshold` AND the
  one-sided paired sign-flip permutation test over the shared cases is below `alpha`;
  the bootstrap CI of the mean delta is reported, it does not decide.
- `passed` is False when the suite or any case regressed. The suite test and the
  per-case family are two chances to fail, so by default they share alpha (each gets
  alpha/2, Bonferroni: both adjusted p-values are doubled); then the chance that pure
  noise fails the comparison stays below alpha. `split_alpha=False` tests each at alpha.
Cases in only one run are listed as added/removed and left out of every test.

`compare_grader_scores` puts each grader's mean score per case side by side; scores are
shown with their deltas, they do not decide (the verdicts come from pass counts).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from agenteval.stats.multiple import benjamini_hochberg, bonferroni, holm_bonferroni
from agenteval.stats.paired import paired_bootstrap_ci, paired_permutation_test
from agenteval.stats.tests_exact import fisher_exact

Verdict = Literal["regressed", "improved", "unchanged"]
Correction = Literal["holm", "bh", "bonferroni", "none"]

_CORRECTIONS = {
    "holm": holm_bonferroni,
    "bh": benjamini_hochberg,
    "bonferroni": bonferroni,
    "none": lambda ps: list(ps),
}


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
    """p_value adjusted across cases by the correction, then for the alpha split."""
    verdict: Verdict


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
    """p_value after the alpha split with the per-case family (equal to it without)."""
    verdict: Verdict
    test: str = "paired sign-flip permutation test on per-case pass-rate deltas"


@dataclass(frozen=True)
class Comparison:
    """The result of `compare_runs`; `passed` is False when anything regressed."""

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


def compare_grader_scores(
    baseline: Mapping[str, Mapping[str, float]], candidate: Mapping[str, Mapping[str, float]]
) -> list[GraderDelta]:
    """Per case in both runs and per grader in either, the two mean scores and the delta.

    Arguments map case id to {grader: mean score}; rows come in the baseline's case
    order, graders sorted by name.
    """
    out: list[GraderDelta] = []
    for case_id in (c for c in baseline if c in candidate):
        b, c = baseline[case_id], candidate[case_id]
        for grader in sorted(set(b) | set(c)):
            bs, cs = b.get(grader), c.get(grader)
            delta = cs - bs if bs is not None and cs is not None else None
            out.append(GraderDelta(case_id, grader, bs, cs, delta))
    return out


def _verdict(delta: float, p: float, threshold: float, alpha: float) -> Verdict:
    if p < alpha and delta < -threshold:
        return "regressed"
    if p < alpha and delta > threshold:
        return "improved"
    return "unchanged"


def _check_counts(case_id: str, passes: int, trials: int) -> None:
    if trials < 1 or not 0 <= passes <= trials:
        raise ValueError(
            f"case {case_id!r}: need 0 <= passes <= trials and trials >= 1, got {passes}/{trials}"
        )


def compare_runs(
    baseline: Mapping[str, tuple[int, int]],
    candidate: Mapping[str, tuple[int, int]],
    threshold: float = 0.05,
    alpha: float = 0.05,
    correction: Correction = "holm",
    seed: int | None = 0,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    split_alpha: bool = True,
) -> Comparison:
    """Compare per-case (passes, trials) of a candidate run against a baseline run.

    See the module docstring for the decision rules. `n_resamples` drives the bootstrap
    CI and, only when exact enumeration is too costly, the permutation test.
    """
    if correction not in _CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; use one of {sorted(_CORRECTIONS)}")
    if not 0.0 <= threshold < 1.0:
        raise ValueError(f"threshold must be in [0, 1), got {threshold}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    for source in (baseline, candidate):
        for case_id, (passes, trials) in source.items():
            _check_counts(case_id, passes, trials)

    shared = [c for c in baseline if c in candidate]
    added = [c for c in candidate if c not in baseline]
    removed = [c for c in baseline if c not in candidate]

    raw: list[tuple[str, float, float, float, float]] = []
    for case_id in shared:
        bp, bn = baseline[case_id]
        cp, cn = candidate[case_id]
        b_rate, c_rate = bp / bn, cp / cn
        delta = c_rate - b_rate
        if delta < 0:
            p = fisher_exact(cp, cn, bp, bn, "less")
        elif delta > 0:
            p = fisher_exact(cp, cn, bp, bn, "greater")
        else:
            p = 1.0
        raw.append((case_id, b_rate, c_rate, delta, p))
    split = 2.0 if split_alpha else 1.0
    adjusted = [min(1.0, split * p) for p in _CORRECTIONS[correction]([r[4] for r in raw])]

    cases = [
        CaseComparison(
            case_id=case_id,
            baseline_passes=baseline[case_id][0],
            baseline_trials=baseline[case_id][1],
            candidate_passes=candidate[case_id][0],
            candidate_trials=candidate[case_id][1],
            baseline_rate=b_rate,
            candidate_rate=c_rate,
            delta=delta,
            p_value=p,
            adjusted_p_value=adj,
            verdict=_verdict(delta, adj, threshold, alpha),
        )
        for (case_id, b_rate, c_rate, delta, p), adj in zip(raw, adjusted, strict=True)
    ]

    notes: list[str] = []
    diffs = [c.delta for c in cases]
    if diffs:
        mean_delta = sum(diffs) / len(diffs)
        ci_low, ci_high = paired_bootstrap_ci(diffs, confidence, n_resamples, seed)
        if mean_delta < 0:
            suite_p = paired_permutation_test(diffs, "less", n_resamples, seed)
        elif mean_delta > 0:
            suite_p = paired_permutation_test(diffs, "greater", n_resamples, seed)
        else:
            suite_p = 1.0
    else:
        mean_delta, ci_low, ci_high, suite_p = 0.0, 0.0, 0.0, 1.0
        notes.append("no case is in both runs: nothing was tested")
    suite = SuiteComparison(
        n_cases=len(diffs),
        mean_delta=mean_delta,
        ci_low=ci_low,
        ci_high=ci_high,
        confidence=confidence,
        p_value=suite_p,
        adjusted_p_value=min(1.0, split * suite_p),
        verdict=_verdict(mean_delta, min(1.0, split * suite_p), threshold, alpha),
    )
    regressions = [c.case_id for c in cases if c.verdict == "regressed"]
    improvements = [c.case_id for c in cases if c.verdict == "improved"]
    return Comparison(
        cases=cases,
        suite=suite,
        added=added,
        removed=removed,
        regressions=regressions,
        improvements=improvements,
        threshold=threshold,
        alpha=alpha,
        correction=correction,
        split_alpha=split_alpha,
        passed=not regressions and suite.verdict != "regressed",
        notes=notes,
    )
