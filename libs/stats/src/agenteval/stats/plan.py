"""Planning: how many trials per case the tests of `compare_runs` need to catch a drop.

Two tests can fail a comparison, and the plan sizes both at the levels compare holds them to:
- one case falling by `drop`: the one-sided Fisher test at the level the first step of the
  discrete Holm correction holds it to. That is the per-case level divided by the number
  of cases at most (Bonferroni), and more when other cases cannot reach small p-values:
  the plan takes the level c where c plus the expected chance that each other unchanged
  case reaches c equals the per-case level, and sizes the case by Fisher's exact power
  at c (see agenteval.stats.power);
- every case falling by `drop`: the paired sign-flip test at the suite level, sized by the
  normal approximation of its randomization distribution (checked against simulations
  of compare_runs in tests/stats).
From a run, each case's rate is estimated from few trials, and a noisy 1/10 must not
decide the plan: `planning_rates` gives the observed rate, a shrunk one (empirical-Bayes
beta-binomial) or a bounded one (the rate in the 95% Wilson interval that needs the most
trials), and the plan says which it used.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, Literal

from agenteval.stats.compare import DEFAULT_CASE_SHARE
from agenteval.stats.intervals import wilson_interval
from agenteval.stats.normal import normal_cdf, normal_ppf
from agenteval.stats.power import EXACT_MAX_TRIALS, detection_power, trials_needed
from agenteval.stats.tests_exact import fisher_less_levels, log_comb

Estimate = Literal["observed", "shrunk", "bounded"]
ESTIMATES: tuple[Estimate, ...] = ("bounded", "shrunk", "observed")
_MAX_SUITE_TRIALS = 100_000


def _check_unit(name: str, value: float) -> None:
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must be in (0, 1), got {value}")


def shrunk_rates(counts: Mapping[str, tuple[int, int]]) -> dict[str, float]:
    """Each case's pass rate pulled toward the suite's, by how noisy it is (empirical Bayes).

    A beta prior is fitted to the cases by the method of moments (the spread of their
    rates beyond binomial noise); each case's estimate is its posterior mean
    (passes + a) / (trials + a + b). Cases that all look alike are pulled together;
    a suite of very different cases is left almost as observed.
    """
    for case_id, (x, n) in counts.items():
        if n < 1 or not 0 <= x <= n:
            raise ValueError(f"case {case_id!r}: need 0 <= passes <= trials and trials >= 1, got {x}/{n}")
    if len(counts) < 2:
        return {c: x / n for c, (x, n) in counts.items()}
    mean = sum(x for x, _ in counts.values()) / sum(n for _, n in counts.values())
    rates = [x / n for x, n in counts.values()]
    m = len(rates)
    var = sum((r - sum(rates) / m) ** 2 for r in rates) / (m - 1)
    noise = sum(mean * (1 - mean) / n for _, n in counts.values()) / m
    between = var - noise
    if mean in (0.0, 1.0):
        return {c: mean for c in counts}
    # Prior strength a + b: large when cases differ no more than noise says, small when they do.
    strength = 1e6 if between <= 0 else max(0.0, mean * (1 - mean) / between - 1.0)
    return {c: (x + mean * strength) / (n + strength) for c, (x, n) in counts.items()}


def planning_rates(
    counts: Mapping[str, tuple[int, int]], drop: float, estimate: Estimate = "bounded"
) -> tuple[dict[str, float], dict[str, float]]:
    """(rates to plan at, upper bounds) per case from a run's (passes, trials).

    observed: passes / trials. shrunk: `shrunk_rates`. bounded: the rate within the case's
    95% Wilson interval that needs the most trials to detect `drop` (the one nearest
    (1 + drop) / 2, where the variance of the two runs' difference peaks), so the plan
    holds for every rate the run is consistent with. The upper bounds say whether a case
    could drop that far at all.
    """
    if estimate not in ESTIMATES:
        raise ValueError(f"unknown estimate {estimate!r}; use one of {', '.join(ESTIMATES)}")
    highs = {c: wilson_interval(x, n)[1] for c, (x, n) in counts.items()}
    if estimate == "observed":
        return {c: x / n for c, (x, n) in counts.items()}, highs
    if estimate == "shrunk":
        return shrunk_rates(counts), highs
    worst = (1.0 + drop) / 2.0
    rates = {}
    for c, (x, n) in counts.items():
        low, high = wilson_interval(x, n)
        rates[c] = min(max(worst, low), high)
    return rates, highs


def suite_detection_power(
    rates: Sequence[float], drop: float, n: int, alpha: float, threshold: float = 0.05
) -> float:
    """Approximate power of the suite test of `compare_runs` when every case falls by `drop`
    (to 0 when its rate is lower) with n trials per case in each run.

    The sign-flip test rejects when the sum of per-case deltas passes z * sqrt(sum of
    squared deltas); with independent cases that sum is close to normal. The mean fall
    must also pass `threshold`. 0 when the exact test cannot reach alpha with this many cases.
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    falls = [min(drop, p) for p in rates]
    moving = [f for f in falls if f > 0]
    if not moving or 0.5 ** len(moving) >= alpha:
        return 0.0
    variances = [(p * (1 - p) + (p - f) * (1 - p + f)) / n for p, f in zip(rates, falls, strict=True)]
    if sum(variances) <= 0:
        return 1.0 if sum(falls) / len(falls) > threshold else 0.0
    z = normal_ppf(1.0 - alpha)
    # Reject when S = sum(d_i) >= z * sqrt(Q), Q = sum(d_i^2), d_i = f_i + e_i. Q moves with
    # S (Q ~ A + 2 sum f_i e_i), which damps the noise of S - z sqrt(Q): linearized, each
    # e_i counts (1 - z f_i / sqrt(A)) times. Without it the power came out ~0.1 low.
    square = sum(v + f * f for v, f in zip(variances, falls, strict=True))
    root = math.sqrt(square)
    if z * root >= threshold * len(falls):
        centre = sum(falls) - z * root
        spread = sum(v * (1.0 - z * f / root) ** 2 for v, f in zip(variances, falls, strict=True))
    else:  # the threshold is the binding bar: S >= m * threshold
        centre = sum(falls) - threshold * len(falls)
        spread = sum(variances)
    return normal_cdf(centre / math.sqrt(spread)) if spread > 0 else float(centre > 0)


def suite_trials_needed(
    rates: Sequence[float], drop: float, power: float, alpha: float, threshold: float = 0.05
) -> int | None:
    """Trials per case, in each run, for the suite test to catch every case falling by `drop`
    with the given power; None when it cannot (too few cases, or a fall within the threshold)."""
    falls = [min(drop, p) for p in rates]
    if not rates or sum(falls) / len(falls) <= threshold or 0.5 ** sum(1 for f in falls if f > 0) >= alpha:
        return None
    hi = 1
    while suite_detection_power(rates, drop, hi, alpha, threshold) < power:
        hi *= 2
        if hi > _MAX_SUITE_TRIALS:
            return None
    lo = hi // 2
    while lo + 1 < hi:  # power rises with n: smallest n reaching it
        mid = (lo + hi) // 2
        if suite_detection_power(rates, drop, mid, alpha, threshold) >= power:
            hi = mid
        else:
            lo = mid
    return hi


# Binomial tails this small do not move the expected levels.
_MASS = 1e-12


def _total_pass_pmf(p: float, n: int) -> list[tuple[int, float]]:
    """P(T = t) for the total passes of an unchanged case over two runs of n trials, t with mass."""
    if p <= 0.0:
        return [(0, 1.0)]
    if p >= 1.0:
        return [(2 * n, 1.0)]
    lp, lq = math.log(p), math.log1p(-p)
    out = []
    for t in range(2 * n + 1):
        w = math.exp(log_comb(2 * n, t) + t * lp + (2 * n - t) * lq)
        if w > _MASS:
            out.append((t, w))
    return out


@lru_cache(maxsize=256)
def _level_steps(rates: tuple[float, ...], n: int, cap: float) -> tuple[list[float], list[float]]:
    """Sum over unchanged cases at `rates` of E[P(p_j <= c | T_j)], T_j ~ Bin(2n, rate_j), as a
    step function of c up to `cap`: (the levels where it steps, its value from each on)."""
    weights: dict[int, float] = {}
    for rate in rates:
        for t, w in _total_pass_pmf(rate, n):
            weights[t] = weights.get(t, 0.0) + w
    steps: list[tuple[float, float]] = []
    for t, w in weights.items():
        previous = 0.0
        for level in fisher_less_levels(t, n, n)[1]:
            if level > cap:
                break
            steps.append((level, w * (level - previous)))
            previous = level
    steps.sort()
    at, values, running = [], [], 0.0
    for level, rise in steps:
        running += rise
        at.append(level)
        values.append(running)
    return at, values


def first_step_level(rates: Sequence[float], n: int, case_alpha: float) -> float:
    """The level c a case's one-sided p-value must reach to clear the first step of the
    discrete Holm correction, in expectation, with n trials per run and the suite's cases
    at `rates` unchanged: the largest c with c + (m - 1)/m * sum_j E[P(p_j <= c)] <= case_alpha.

    Between case_alpha / m (Bonferroni: every case can reach c) and case_alpha.
    """
    m = len(rates)
    if m <= 1:
        return case_alpha
    at, values = _level_steps(tuple(sorted(round(r, 6) for r in rates)), n, case_alpha)
    share = (m - 1) / m

    def total(c: float) -> float:
        i = bisect_right(at, c * (1.0 + 1e-9))
        return c + share * (values[i - 1] if i else 0.0)

    lo, hi = case_alpha / m, case_alpha
    if total(hi) <= case_alpha:
        return hi
    for _ in range(40):  # bisection in log space: total() is nondecreasing
        mid = math.sqrt(lo * hi)
        if total(mid) <= case_alpha:
            lo = mid
        else:
            hi = mid
    return lo


def case_trials_needed(p: float, drop: float, power: float, case_alpha: float, rates: Sequence[float]) -> int:
    """Trials per run for a case at rate p falling by `drop` to be flagged with the given power
    by the per-case family of `compare_runs`, in a suite whose cases pass at `rates`."""
    m = max(1, len(rates))
    bound = trials_needed(p, drop, power, case_alpha / m)  # Bonferroni: enough, maybe more
    if bound > EXACT_MAX_TRIALS or m == 1:
        return bound

    def power_at(n: int) -> float:
        level = first_step_level(rates, n, case_alpha)
        return detection_power(p, max(0.0, p - drop), n, level * (1.0 + 1e-9))

    lo, hi = 0, bound
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if power_at(mid) >= power:
            hi = mid
        else:
            lo = mid
    return hi


def plan_trials(
    baseline_rates: Mapping[str, float],
    drop: float,
    power: float = 0.8,
    alpha: float = 0.05,
    adjust_for_cases: bool = True,
    *,
    split_alpha: bool = True,
    case_share: float = DEFAULT_CASE_SHARE,
    threshold: float = 0.05,
    upper_bounds: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """Trials per case for the two tests `compare_runs` runs, at the levels it runs them.

    Returns {"drop", "power", "alpha", "case_alpha", "alpha_per_case", "suite_alpha",
    "cases": {case: {"p_baseline", "trials", "note"}}, "recommended_trials",
    "infeasible", "suite_trials", "suite_note"}: per case, the trials to catch that case
    alone falling by `drop` at case_alpha / (number of cases) (trials None and a note when
    its rate cannot fall that far: judged on `upper_bounds` when given); recommended_trials
    is the largest per-case need; suite_trials the trials per case for the suite test to
    catch every case falling by `drop`.
    """
    _check_unit("power", power)
    _check_unit("alpha", alpha)
    if not 0.0 < drop <= 1.0:
        raise ValueError(f"drop must be in (0, 1], got {drop}")
    m = len(baseline_rates)
    case_part, suite_part = (case_share, 1.0 - case_share) if split_alpha else (1.0, 1.0)
    case_alpha, suite_alpha = alpha * case_part, alpha * suite_part
    per_case_alpha = case_alpha / m if adjust_for_cases and m else case_alpha
    cases: dict[str, dict[str, Any]] = {}
    infeasible: list[str] = []
    all_rates = list(baseline_rates.values())
    for case_id, p in baseline_rates.items():
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"baseline rate of {case_id!r} must be in [0, 1], got {p}")
        high = p if upper_bounds is None else max(p, upper_bounds.get(case_id, p))
        if drop > high + 1e-12:
            infeasible.append(case_id)
            bound = "" if upper_bounds is None else f" (upper bound {high:.2f})"
            cases[case_id] = {
                "p_baseline": p,
                "trials": None,
                "note": f"pass rate {p:.2f}{bound} cannot drop by {drop:.2f}; no number of trials detects it",
            }
            continue
        rate = max(p, drop)
        if adjust_for_cases:
            n = case_trials_needed(rate, drop, power, case_alpha, all_rates)
        else:
            n = trials_needed(rate, drop, power, case_alpha)
        note = "" if drop > threshold else f"a drop of {drop:.2f} is within the {threshold:.2f} threshold"
        cases[case_id] = {"p_baseline": p, "trials": n, "note": note}
    needs = [c["trials"] for c in cases.values() if c["trials"] is not None]
    suite_trials = suite_trials_needed(list(baseline_rates.values()), drop, power, suite_alpha, threshold)
    suite_note = ""
    if suite_trials is None and m:
        falls = [min(drop, p) for p in baseline_rates.values()]
        if sum(falls) / m <= threshold:
            suite_note = (
                f"the suite's mean fall ({sum(falls) / m:.2f}) is within the {threshold:.2f} threshold"
            )
        else:
            need = math.ceil(math.log(suite_alpha) / math.log(0.5))
            suite_note = f"the suite test needs at least {need} cases whose rate can fall to reach level {suite_alpha:.3g}"
    return {
        "drop": drop,
        "power": power,
        "alpha": alpha,
        "case_alpha": case_alpha,
        "alpha_per_case": per_case_alpha,
        "suite_alpha": suite_alpha,
        "cases": cases,
        "recommended_trials": max(needs) if needs else None,
        "infeasible": infeasible,
        "suite_trials": suite_trials,
        "suite_note": suite_note,
    }
