"""Paired, case-level tests on per-case differences d_i = candidate_i - baseline_i.

The sign-flip permutation test decides the suite verdict in `compare_runs`: under
"no change" each case's difference is as likely to be +d as -d, so the test is exact
without assuming normality, which small agent suites (10-50 cases, 3-10 trials) break.
The bootstrap CI only reports the size of the change.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction

from agenteval.stats.latency import percentile
from agenteval.stats.tests_exact import Alternative

# Sums are compared as integers so that ties are exact. Pass-rate diffs are rationals
# with small denominators (1/3 is inexact in binary): they are recovered exactly and put
# on their common denominator. Other floats go on a 1e-9 grid, compared with a
# tolerance of the accumulated rounding (half a unit per diff).
_SCALE = 10**9
_MAX_DENOMINATOR = 10**6
_MAX_COMMON_DENOMINATOR = 10**12
# Cost budget (dictionary updates) for the exact sign-flip distribution; any set of
# <= 16 non-zero diffs fits (2 * (2^16 - 1) updates), and so do much larger sets of
# pass-rate diffs, whose sums fall on a coarse grid.
_EXACT_BUDGET = 2**17
_CHUNK = 8


def _as_integers(diffs: Sequence[float]) -> tuple[list[int], int]:
    """The diffs as integers on one scale, and the tolerance to compare their sums with."""
    fracs = []
    for d in diffs:
        f = Fraction(d).limit_denominator(_MAX_DENOMINATOR)
        if abs(float(f) - d) > 1e-12:
            break
        fracs.append(f)
    else:
        common = math.lcm(*(f.denominator for f in fracs)) if fracs else 1
        if common <= _MAX_COMMON_DENOMINATOR:
            return [int(f * common) for f in fracs], 0
    return [round(d * _SCALE) for d in diffs], len(diffs)


def _extreme_count(
    keys_counts: dict[int, int] | list[int], observed: int, alternative: Alternative, tol: int
) -> int:
    items = keys_counts.items() if isinstance(keys_counts, dict) else ((k, 1) for k in keys_counts)
    if alternative == "greater":
        return sum(c for k, c in items if k >= observed - tol)
    if alternative == "less":
        return sum(c for k, c in items if k <= observed + tol)
    return sum(c for k, c in items if abs(k) >= abs(observed) - tol)


def _exact_distribution(steps: list[int]) -> dict[int, int] | None:
    """Counts of every sign-flip sum, or None when that would cost more than the budget."""
    dist: dict[int, int] = {0: 1}
    work = 0
    for s in steps:
        work += 2 * len(dist)
        if work > _EXACT_BUDGET:
            return None
        nxt: dict[int, int] = defaultdict(int)
        for k, c in dist.items():
            nxt[k + s] += c
            nxt[k - s] += c
        dist = nxt
    return dist


def _monte_carlo_sums(steps: list[int], n_resamples: int, rng: random.Random) -> list[int]:
    # Precomputed sums for every sign pattern of each chunk of 8 diffs turn one
    # resample into n/8 table lookups instead of n additions.
    tables: list[list[int]] = []
    for start in range(0, len(steps), _CHUNK):
        chunk = steps[start : start + _CHUNK]
        table = [0] * (1 << len(chunk))
        for mask in range(1 << len(chunk)):
            table[mask] = sum(s if mask >> j & 1 else -s for j, s in enumerate(chunk))
        tables.append(table)
    n = len(steps)
    sums = []
    for _ in range(n_resamples):
        bits = rng.getrandbits(n)
        total = 0
        for j, table in enumerate(tables):
            total += table[(bits >> (j * _CHUNK)) & ((1 << _CHUNK) - 1)]
        sums.append(total)
    return sums


def paired_permutation_test(
    diffs: Sequence[float],
    alternative: Alternative = "two-sided",
    n_resamples: int = 10_000,
    seed: int | None = 0,
) -> float:
    """Sign-flip permutation test of mean(diffs) = 0.

    "less": the candidate is worse (mean diff < 0); "greater": better. Zero diffs carry
    no sign and are dropped. The null distribution is enumerated exactly when that is
    cheap (always for <= 16 non-zero diffs, and for far more pass-rate diffs, which sit
    on a grid); otherwise `n_resamples` random sign flips give p = (1 + hits) / (1 + n).
    Returns 1.0 when every diff is zero.
    """
    if alternative not in ("two-sided", "less", "greater"):
        raise ValueError(f"unknown alternative {alternative!r}")
    signed, tol = _as_integers(diffs)
    nonzero = [abs(s) for s in signed if s != 0]
    if not nonzero:
        return 1.0
    observed = sum(signed)
    dist = _exact_distribution(nonzero)
    if dist is not None:
        return min(1.0, _extreme_count(dist, observed, alternative, tol) / 2 ** len(nonzero))
    if n_resamples < 1:
        raise ValueError("n_resamples must be >= 1")
    sums = _monte_carlo_sums(nonzero, n_resamples, random.Random(seed))
    return min(1.0, (1 + _extreme_count(sums, observed, alternative, tol)) / (1 + n_resamples))


def paired_bootstrap_ci(
    diffs: Sequence[float],
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | None = 0,
) -> tuple[float, float]:
    """Percentile bootstrap CI of mean(diffs), resampling whole cases (cluster bootstrap).

    Each case's diff already carries its own trial noise, so resampling cases covers
    both case-to-case and trial-to-trial variation. Raises ValueError on no diffs.
    """
    if not diffs:
        raise ValueError("bootstrap of no diffs")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if n_resamples < 1:
        raise ValueError("n_resamples must be >= 1")
    values = list(diffs)
    n = len(values)
    if min(values) == max(values):
        return (values[0], values[0])
    rng = random.Random(seed)
    means = [math.fsum(rng.choices(values, k=n)) / n for _ in range(n_resamples)]
    tail = (1.0 - confidence) / 2.0 * 100.0
    return (percentile(means, tail), percentile(means, 100.0 - tail))
