"""compare_runs: the three checks (cases, suite, errors) and the notes a reader needs."""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import lru_cache

from agenteval.stats.compare._model import (
    CaseComparison,
    Comparison,
    Correction,
    GraderDelta,
    SuiteComparison,
    Verdict,
)
from agenteval.stats.compare._reasons import (
    cases_reason,
    comparison_notes,
    error_changes,
    errors_reason,
    suite_reason,
)
from agenteval.stats.multiple import (
    attained_level,
    benjamini_hochberg,
    bonferroni,
    discrete_holm,
    holm_bonferroni,
)
from agenteval.stats.paired import paired_bootstrap_ci, paired_permutation_test
from agenteval.stats.tests_exact import fisher_less_levels, log_comb

DEFAULT_CASE_SHARE = 0.75
"""The per-case family's share of alpha; the suite test gets the rest. A uniform drop moves
every case, so the suite test keeps its power on a quarter of alpha (a 20-point drop over
20 cases at k = 10 is still caught > 95% of the time), while a single broken case, which
only the per-case test can see, gets most of it."""

# Past this many trials per run, trials_to_flag gives up (the case is as good as unflaggable).
_MAX_TRIALS_TO_FLAG = 10_000

_CONTINUOUS: dict[str, Callable[[Sequence[float]], list[float]]] = {
    "holm": holm_bonferroni,
    "bh": benjamini_hochberg,
    "bonferroni": bonferroni,
    "none": lambda ps: list(ps),
}
_CORRECTIONS = ("discrete-holm", *_CONTINUOUS)


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


def _check_counts(case_id: str, passes: int, trials: int) -> None:
    if trials < 1 or not 0 <= passes <= trials:
        raise ValueError(
            f"case {case_id!r}: need 0 <= passes <= trials and trials >= 1, got {passes}/{trials}"
        )


def _levels(passes: int, trials: int, other_passes: int, other_trials: int) -> tuple[float, ...]:
    return fisher_less_levels(passes + other_passes, trials, other_trials)[1]


def _less(passes: int, trials: int, other_passes: int, other_trials: int) -> float:
    lo, levels = fisher_less_levels(passes + other_passes, trials, other_trials)
    return levels[passes - lo]


def _adjust(correction: str, pvalues: list[float], levels: list[tuple[float, ...]]) -> list[float]:
    if correction == "discrete-holm":
        return discrete_holm(pvalues, levels)
    return _CONTINUOUS[correction](pvalues)


def _first_step(correction: str, p: float, others: Sequence[tuple[float, ...]]) -> float:
    """The adjusted p-value of the smallest p-value of a family: what a case must clear first."""
    if correction == "none":
        return p
    if correction == "discrete-holm":
        return min(1.0, p + sum(attained_level(lv, p) for lv in others))
    return min(1.0, p * (len(others) + 1))


@lru_cache(maxsize=4096)
def trials_to_flag(rate: float, n_cases: int, level: float, threshold: float = 0.0) -> int | None:
    """Trials per run at which a case passing at `rate` that falls to 0 passes is flagged by
    a one-sided Fisher test at level / n_cases (Bonferroni: whatever the other cases do).

    None when no number of trials would do (a rate of 0, or one not above the threshold).
    """
    if rate <= max(0.0, threshold) or n_cases < 1 or not 0.0 < level < 1.0:
        return None
    bar = math.log(level / n_cases)
    for n in range(1, _MAX_TRIALS_TO_FLAG + 1):
        b = max(1, round(rate * n))
        # P(candidate 0 passes | b passes over 2n trials) = C(n, b) / C(2n, b).
        if log_comb(n, b) - log_comb(2 * n, b) < bar:
            return n
    return None


def _verdict(delta: float, adjusted: float, threshold: float, alpha: float) -> Verdict:
    if adjusted < alpha and delta < -threshold:
        return "regressed"
    if adjusted < alpha and delta > threshold:
        return "improved"
    return "unchanged"


def compare_runs(
    baseline: Mapping[str, tuple[int, int]],
    candidate: Mapping[str, tuple[int, int]],
    threshold: float = 0.05,
    alpha: float = 0.05,
    correction: Correction = "discrete-holm",
    seed: int | None = 0,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    split_alpha: bool = True,
    case_share: float = DEFAULT_CASE_SHARE,
    baseline_errors: Mapping[str, tuple[int, int]] | None = None,
    candidate_errors: Mapping[str, tuple[int, int]] | None = None,
    fail_on_new_errors: bool = True,
    baseline_suite: str = "",
    candidate_suite: str = "",
    changed_cases: Collection[str] = (),
) -> Comparison:
    """Compare per-case (passes, trials) of a candidate run against a baseline run.

    See the package docstring for the checks. `*_errors` map a case to its (errors,
    timeouts) trial counts. `n_resamples` drives the bootstrap CI and, only when exact
    enumeration is too costly, the permutation test.
    """
    if correction not in _CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; use one of {sorted(_CORRECTIONS)}")
    if not 0.0 <= threshold < 1.0:
        raise ValueError(f"threshold must be in [0, 1), got {threshold}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if not 0.0 < case_share < 1.0:
        raise ValueError(f"case_share must be in (0, 1), got {case_share}")
    for source in (baseline, candidate):
        for case_id, (passes, trials) in source.items():
            _check_counts(case_id, passes, trials)

    shared = [c for c in baseline if c in candidate]
    added = [c for c in candidate if c not in baseline]
    removed = [c for c in baseline if c not in candidate]
    case_part, suite_part = (case_share, 1.0 - case_share) if split_alpha else (1.0, 1.0)
    case_alpha, suite_alpha = alpha * case_part, alpha * suite_part

    # Two families of one-sided tests: "less" (regressions) and "greater" (improvements,
    # the same test on fail counts). Each case's attainable levels feed the discrete correction.
    less_p, less_lv, more_p, more_lv = [], [], [], []
    for case_id in shared:
        (bp, bn), (cp, cn) = baseline[case_id], candidate[case_id]
        less_p.append(_less(cp, cn, bp, bn))
        less_lv.append(_levels(cp, cn, bp, bn))
        more_p.append(_less(cn - cp, cn, bn - bp, bn))
        more_lv.append(_levels(cn - cp, cn, bn - bp, bn))
    less_adj = _adjust(correction, less_p, less_lv)
    more_adj = _adjust(correction, more_p, more_lv)

    b_err = baseline_errors or {}
    c_err = candidate_errors or {}
    changed = set(changed_cases)
    cases = []
    for i, case_id in enumerate(shared):
        (bp, bn), (cp, cn) = baseline[case_id], candidate[case_id]
        delta = cp / cn - bp / bn
        if delta < 0:
            p, adj = less_p[i], min(1.0, less_adj[i] / case_part)
        elif delta > 0:
            p, adj = more_p[i], min(1.0, more_adj[i] / case_part)
        else:
            p, adj = 1.0, 1.0
        # The best evidence this case could give: its candidate at 0 passes.
        min_p = _less(0, cn, bp, bn)
        others = [lv for j, lv in enumerate(less_lv) if j != i]
        flaggable = bp / bn > threshold and _first_step(correction, min_p, others) < case_alpha
        cases.append(
            CaseComparison(
                case_id=case_id,
                baseline_passes=bp,
                baseline_trials=bn,
                candidate_passes=cp,
                candidate_trials=cn,
                baseline_rate=bp / bn,
                candidate_rate=cp / cn,
                delta=delta,
                p_value=p,
                adjusted_p_value=adj,
                verdict=_verdict(delta, adj, threshold, alpha),
                baseline_errors=b_err.get(case_id, (0, 0))[0],
                baseline_timeouts=b_err.get(case_id, (0, 0))[1],
                candidate_errors=c_err.get(case_id, (0, 0))[0],
                candidate_timeouts=c_err.get(case_id, (0, 0))[1],
                min_p_value=min_p,
                flaggable=flaggable,
                trials_to_flag=None
                if flaggable
                else trials_to_flag(bp / bn, len(shared), case_alpha, threshold),
                definition_changed=case_id in changed,
            )
        )

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
    suite_adj = min(1.0, suite_p / suite_part)
    suite = SuiteComparison(
        n_cases=len(diffs),
        mean_delta=mean_delta,
        ci_low=ci_low,
        ci_high=ci_high,
        confidence=confidence,
        p_value=suite_p,
        adjusted_p_value=suite_adj,
        verdict=_verdict(mean_delta, suite_adj, threshold, alpha),
    )
    new_errors = error_changes(shared, baseline, candidate, b_err, c_err)
    reasons = [
        cases_reason(cases, alpha, case_alpha, correction),
        suite_reason(suite, threshold, alpha, suite_alpha),
        errors_reason(new_errors, fail_on_new_errors),
    ]
    unflaggable = [c.case_id for c in cases if not c.flaggable]
    min_trials = trials_to_flag(1.0, len(shared), case_alpha) if shared else None
    suites_differ = bool(baseline_suite and candidate_suite and baseline_suite != candidate_suite)
    notes.extend(
        comparison_notes(
            cases, unflaggable, min_trials, added, removed, baseline_suite, candidate_suite, suites_differ
        )
    )
    return Comparison(
        cases=cases,
        suite=suite,
        added=added,
        removed=removed,
        regressions=[c.case_id for c in cases if c.verdict == "regressed"],
        improvements=[c.case_id for c in cases if c.verdict == "improved"],
        threshold=threshold,
        alpha=alpha,
        correction=correction,
        split_alpha=split_alpha,
        passed=not any(r.failed for r in reasons),
        notes=notes,
        case_alpha=case_alpha,
        suite_alpha=suite_alpha,
        new_errors=new_errors,
        fail_on_new_errors=fail_on_new_errors,
        unflaggable=unflaggable,
        min_trials_to_flag=min_trials,
        baseline_suite=baseline_suite,
        candidate_suite=candidate_suite,
        suites_differ=suites_differ,
        changed_cases=[c for c in shared if c in changed],
        reasons=reasons,
    )
