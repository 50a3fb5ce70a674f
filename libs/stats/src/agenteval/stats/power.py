"""Planning: how many trials per case detect a given drop in pass rate.

Power is computed exactly for the test that `compare_runs` uses per case: a one-sided
Fisher exact test at level alpha with n trials in each run, summed over every outcome of
the two binomials. The answer is the smallest n whose exact power reaches the target.
Above `EXACT_MAX_TRIALS` the exact search is too slow and the normal approximation for
two proportions with continuity correction (Fleiss), which tracks Fisher closely at
large n, is returned instead.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from functools import lru_cache
from itertools import accumulate
from operator import mul
from typing import Literal

from agenteval.stats.normal import normal_ppf
from agenteval.stats.tests_exact import log_comb

EXACT_MAX_TRIALS = 400
Method = Literal["exact", "normal"]


def _binom_pmf(n: int, p: float) -> list[float]:
    if p <= 0.0:
        return [1.0] + [0.0] * n
    if p >= 1.0:
        return [0.0] * n + [1.0]
    lp, lq = math.log(p), math.log1p(-p)
    return [math.exp(log_comb(n, x) + x * lp + (n - x) * lq) for x in range(n + 1)]


def _critical_values(n: int, alpha: float) -> list[int]:
    """For each total number of passes t over both runs, the largest candidate pass
    count y that the one-sided Fisher test rejects (p < alpha), or below the support if none."""
    # Binomials as floats (C(2n, n) fits a float for n <= 510) let each t's hypergeometric
    # cdf be built with C-level map/accumulate/bisect; weights C(n, y) C(n, t-y) sum to
    # C(2n, t) (Vandermonde), the cdf's denominator.
    cn = [1.0] * (n + 1)
    for y in range(1, n + 1):
        cn[y] = cn[y - 1] * (n - y + 1) / y
    total = 1.0
    crit = []
    for t in range(2 * n + 1):
        lo, hi = max(0, t - n), min(t, n)
        # The weights are symmetric about t/2, so for alpha < 1/2 the rejected y lie
        # in the lower half: accumulate only that.
        top = hi if alpha >= 0.5 else (lo + hi) // 2
        weights = map(mul, cn[lo : top + 1], reversed(cn[t - top : t - lo + 1]))
        crit.append(lo + bisect_left(list(accumulate(weights)), alpha * total) - 1)
        total = total * (2 * n - t) / (t + 1)
    return crit


def detection_power(p_baseline: float, p_candidate: float, n: int, alpha: float = 0.05) -> float:
    """Exact probability that a one-sided Fisher test at level alpha, with n trials in
    each run, finds the candidate worse when the true pass rates are as given."""
    if not 1 <= n <= EXACT_MAX_TRIALS:
        raise ValueError(f"n must be in [1, {EXACT_MAX_TRIALS}], got {n}")
    _check_rate(p_baseline, "p_baseline")
    _check_rate(p_candidate, "p_candidate")
    base, cand = _binom_pmf(n, p_baseline), _binom_pmf(n, p_candidate)
    base_sf = [*reversed(list(accumulate(reversed(base)))), 0.0]  # P(X >= x)
    crit = _critical_values(n, alpha)
    # The Fisher p-value falls as the total t rises with y fixed, so crit is
    # nondecreasing and y is rejected exactly when t >= t0(y): one sweep finds t0.
    total, t = 0.0, 0
    for y in range(n + 1):
        while t <= 2 * n and crit[t] < y:
            t += 1
        if t > 2 * n:
            break
        total += cand[y] * base_sf[max(0, t - y)]
    return min(1.0, total)


def _check_rate(p: float, name: str) -> None:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {p}")


def _normal_trials(p1: float, p2: float, power: float, alpha: float, continuity: bool) -> float:
    za, zb = normal_ppf(1.0 - alpha), normal_ppf(power)
    d = p1 - p2
    pbar = (p1 + p2) / 2.0
    n = (
        za * math.sqrt(2.0 * pbar * (1.0 - pbar)) + zb * math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))
    ) ** 2 / d**2
    if continuity:
        n = n / 4.0 * (1.0 + math.sqrt(1.0 + 4.0 / (n * d))) ** 2
    return n


@lru_cache(maxsize=4096)
def _exact_trials(p1: float, p2: float, power: float, alpha: float) -> int | None:
    # Fisher is more conservative than the uncorrected normal approximation (over a grid
    # of rates, drops, alphas and powers it needed >= 0.85x as many trials), so half of
    # that is a safe place to start the upward scan.
    start = max(1, math.floor(0.5 * _normal_trials(p1, p2, power, alpha, continuity=False)))
    for n in range(start, EXACT_MAX_TRIALS + 1):
        if detection_power(p1, p2, n, alpha) >= power:
            return n
    return None


def trials_needed(
    p_baseline: float, drop: float, power: float = 0.8, alpha: float = 0.05, method: Method = "exact"
) -> int:
    """Trials per case, in each run, to detect a fall from p_baseline to p_baseline - drop
    with the given power by a one-sided test at level alpha.

    method="exact" (default): exact Fisher power (see module docstring), falling back to
    the continuity-corrected normal formula above EXACT_MAX_TRIALS. method="normal": the
    textbook normal approximation without continuity correction.
    Raises ValueError when the drop cannot happen (drop > p_baseline) or inputs are out of range.
    """
    _check_rate(p_baseline, "p_baseline")
    if not 0.0 < drop <= 1.0:
        raise ValueError(f"drop must be in (0, 1], got {drop}")
    if drop > p_baseline + 1e-12:
        raise ValueError(f"a pass rate of {p_baseline} cannot drop by {drop}")
    if not 0.0 < power < 1.0 or not 0.0 < alpha < 1.0:
        raise ValueError(f"power and alpha must be in (0, 1), got {power}, {alpha}")
    if method not in ("exact", "normal"):
        raise ValueError(f"unknown method {method!r}")
    p2 = max(0.0, p_baseline - drop)
    if method == "normal":
        return max(1, math.ceil(_normal_trials(p_baseline, p2, power, alpha, continuity=False)))
    corrected = math.ceil(_normal_trials(p_baseline, p2, power, alpha, continuity=True))
    n = None
    if corrected <= EXACT_MAX_TRIALS:
        n = _exact_trials(round(p_baseline, 12), round(p2, 12), power, alpha)
    # Past the exact range, never answer less than it covers: keeps the result
    # monotone in drop and power across the switch of method.
    return n if n is not None else max(corrected, EXACT_MAX_TRIALS + 1)
