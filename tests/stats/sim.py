"""Seeded simulation helpers for the statistics' targets (plain Python, fast enough for CI)."""

from __future__ import annotations

import math
import random
from bisect import bisect_left
from functools import lru_cache
from itertools import accumulate

from agenteval.stats import compare_runs
from agenteval.stats.compare import Comparison

Counts = dict[str, tuple[int, int]]


@lru_cache(maxsize=4096)
def _binomial_cdf(n: int, p: float) -> list[float]:
    if p <= 0.0:
        return [1.0] * (n + 1)
    if p >= 1.0:
        return [0.0] * n + [1.0]
    lp, lq = math.log(p), math.log1p(-p)
    pmf = [
        math.exp(math.lgamma(n + 1) - math.lgamma(x + 1) - math.lgamma(n - x + 1) + x * lp + (n - x) * lq)
        for x in range(n + 1)
    ]
    return list(accumulate(pmf))


def binomial(rng: random.Random, n: int, p: float) -> int:
    """A Binomial(n, p) draw by inverting the cdf: one uniform per draw."""
    cdf = _binomial_cdf(n, round(min(1.0, max(0.0, p)), 12))
    return min(n, bisect_left(cdf, rng.random() * cdf[-1]))


def suite_pair(
    rng: random.Random, rates: list[float], k: int, candidate_rates: list[float] | None = None
) -> tuple[Counts, Counts]:
    """Baseline and candidate pass counts of a suite whose cases pass at `rates` (candidate: `candidate_rates`)."""
    cand_rates = rates if candidate_rates is None else candidate_rates
    base = {f"c{i:02d}": (binomial(rng, k, p), k) for i, p in enumerate(rates)}
    cand = {f"c{i:02d}": (binomial(rng, k, p), k) for i, p in enumerate(cand_rates)}
    return base, cand


def quick_compare(base: Counts, cand: Counts, seed: int, **kw: object) -> Comparison:
    """compare_runs with few bootstrap resamples: the CI does not decide, and it keeps simulations
    fast. (The permutation test stays exact: these suites' deltas sit on a coarse grid.)"""
    return compare_runs(base, cand, seed=seed, n_resamples=100, **kw)  # type: ignore[arg-type]
