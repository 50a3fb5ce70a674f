"""Fisher's exact test on two pass counts (hypergeometric, in log space)."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Literal

Alternative = Literal["two-sided", "less", "greater"]

# Tables whose probability is within this relative margin of the observed one count
# as "as extreme" in the two-sided test, so float noise cannot drop a tied table.
_TIE = 1e-7


def log_comb(n: int, k: int) -> float:
    """log C(n, k), for 0 <= k <= n."""
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def _logsumexp(xs: list[float]) -> float:
    if not xs:
        return -math.inf
    m = max(xs)
    return m + math.log(math.fsum(math.exp(x - m) for x in xs))


def fisher_exact(
    a_pass: int, a_n: int, b_pass: int, b_n: int, alternative: Alternative = "two-sided"
) -> float:
    """p-value of Fisher's exact test on the table [[a_pass, a_fail], [b_pass, b_fail]].

    `alternative` speaks of a's pass probability against b's: "less" tests whether a
    passes less often than b (with a = candidate, b = baseline: a regression),
    "greater" whether it passes more often, "two-sided" either (scipy's convention:
    the sum over tables no more probable than the observed one).
    """
    if not (0 <= a_pass <= a_n and 0 <= b_pass <= b_n):
        raise ValueError(f"need 0 <= passes <= n, got {a_pass}/{a_n} and {b_pass}/{b_n}")
    if alternative not in ("two-sided", "less", "greater"):
        raise ValueError(f"unknown alternative {alternative!r}")
    total_n, total_pass = a_n + b_n, a_pass + b_pass
    lo, hi = max(0, total_pass - b_n), min(total_pass, a_n)
    log_denom = log_comb(total_n, total_pass)
    # Conditional on the margins, a's passes are hypergeometric on [lo, hi].
    logp = {x: log_comb(a_n, x) + log_comb(b_n, total_pass - x) - log_denom for x in range(lo, hi + 1)}
    if alternative == "less":
        terms = [logp[x] for x in range(lo, a_pass + 1)]
    elif alternative == "greater":
        terms = [logp[x] for x in range(a_pass, hi + 1)]
    else:
        cutoff = logp[a_pass] + math.log1p(_TIE)
        terms = [v for v in logp.values() if v <= cutoff]
    return min(1.0, max(0.0, math.exp(_logsumexp(terms))))


@lru_cache(maxsize=65_536)
def fisher_less_levels(total_pass: int, a_n: int, b_n: int) -> tuple[int, tuple[float, ...]]:
    """The one-sided ("less") Fisher p-values attainable with these margins.

    Conditional on `total_pass` passes over the a_n + b_n trials, a's passes x run over
    [lo, hi]; returns (lo, levels) with levels[x - lo] = P(X <= x), the p-value of x.
    These are the only values the p-value can take, and P(p <= levels[i]) = levels[i]:
    what a discrete multiple-testing correction needs (Tarone 1990; Westfall & Wolfinger 1997).
    """
    total_n = a_n + b_n
    if not (0 <= total_pass <= total_n and a_n >= 0 and b_n >= 0):
        raise ValueError(f"need 0 <= total_pass <= a_n + b_n, got {total_pass}, {a_n}, {b_n}")
    lo, hi = max(0, total_pass - b_n), min(total_pass, a_n)
    log_denom = log_comb(total_n, total_pass)
    logs = [log_comb(a_n, x) + log_comb(b_n, total_pass - x) - log_denom for x in range(lo, hi + 1)]
    top = max(logs)
    scale = math.exp(top)
    levels, running = [], 0.0
    for v in logs:  # prefix sums in linear space, scaled by the largest term
        running += math.exp(v - top)
        levels.append(min(1.0, running * scale))
    return lo, tuple(levels)


def fisher_less(a_pass: int, a_n: int, b_pass: int, b_n: int) -> float:
    """One-sided Fisher p-value (a passes less often than b), from the cached levels."""
    if not (0 <= a_pass <= a_n and 0 <= b_pass <= b_n):
        raise ValueError(f"need 0 <= passes <= n, got {a_pass}/{a_n} and {b_pass}/{b_n}")
    lo, levels = fisher_less_levels(a_pass + b_pass, a_n, b_n)
    return levels[a_pass - lo]


def fisher_greater(a_pass: int, a_n: int, b_pass: int, b_n: int) -> float:
    """One-sided Fisher p-value (a passes more often than b): 'less' with the roles of pass and fail swapped."""
    return fisher_less(a_n - a_pass, a_n, b_n - b_pass, b_n)
