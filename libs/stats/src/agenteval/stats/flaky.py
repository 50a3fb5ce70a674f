"""Flakiness: cases whose trials disagree within a run, and cases whose pass rate moves
across repeated runs of one version by more than binomial noise explains.

Within a run, a case with 0 < passes < n is non-deterministic: that is a description,
not a warning (a case that passes 70% of the time is flaky by nature).
Across runs, the question is whether the case's pass probability itself changed from
run to run (a flaky environment, a dependency that sometimes breaks). Each case gets an
exact conditional test of homogeneity of its per-run pass rates: given its total passes,
the per-run passes are multivariate hypergeometric under "same rate in every run", and
the p-value is the chance of a Pearson chi-square at least as large as observed
(enumerated exactly; for tables too large to enumerate, whose counts are large, the
chi-square distribution with runs - 1 degrees of freedom). Across cases the
discrete Holm correction holds the chance of any false warning to alpha.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agenteval.stats.multiple import discrete_holm

# Rates like 0.9 - 0.7 come out as 0.20000000000000007; a spread of exactly the
# threshold must not warn.
_EPS = 1e-9
# Steps of the exact enumeration (states x outcomes of the next run) before it hands over to
# the chi-square approximation; 5 runs of 10 trials take a few thousand, 10 runs of 20 ~1e6.
_EXACT_BUDGET = 2_000_000


def flaky_cases(case_results: Mapping[str, Sequence[bool]]) -> dict[str, float]:
    """Cases where some trials passed and some failed, with their pass rate."""
    out: dict[str, float] = {}
    for case_id, trials in case_results.items():
        passes = sum(1 for t in trials if t)
        if 0 < passes < len(trials):
            out[case_id] = passes / len(trials)
    return out


@dataclass(frozen=True)
class RunSpread:
    """A case's pass rate across repeated runs of the same version."""

    runs: int
    min: float
    max: float
    spread: float
    warn: bool
    """True when the spread exceeds the threshold (descriptive: no test; see flakiness_across_runs)."""


def flake_rate_across_runs(
    rates_by_run: Mapping[str, Sequence[float]], spread: float = 0.20
) -> dict[str, RunSpread]:
    """Per case, min/max/spread of its pass rate over runs; warn when spread > `spread`.

    Descriptive only: at small k a stationary case swings by more than 20 points most of
    the time. `flakiness_across_runs` tests the swing against binomial noise.
    Cases with no rates are skipped; a single run has spread 0.
    """
    out: dict[str, RunSpread] = {}
    for case_id, rates in rates_by_run.items():
        if not rates:
            continue
        for r in rates:
            if not 0.0 <= r <= 1.0:
                raise ValueError(f"case {case_id!r}: pass rate {r} outside [0, 1]")
        lo, hi = min(rates), max(rates)
        out[case_id] = RunSpread(len(rates), lo, hi, hi - lo, hi - lo > spread + _EPS)
    return out


@dataclass(frozen=True)
class Homogeneity:
    """The exact test that a case passes at the same rate in every run."""

    statistic: float
    """Pearson's chi-square of the runs x (pass, fail) table (0 when every trial agrees)."""
    p_value: float
    """P(chi-square >= observed | total passes) when the rate is the same in every run."""
    exact: bool
    """True when enumerated exactly, False for the chi-square approximation."""
    levels: tuple[float, ...] | None
    """Every p-value the test can attain with these margins (None for the approximation)."""


def _check_runs(counts: Sequence[tuple[int, int]]) -> None:
    for passes, trials in counts:
        if trials < 1 or not 0 <= passes <= trials:
            raise ValueError(f"need 0 <= passes <= trials and trials >= 1, got {passes}/{trials}")


def _chi_square(q: int, scale: int, total: int, passes: int) -> float:
    # sum_r x_r^2 / n_r = q / scale; X^2 = N^2 / (T (N - T)) * (sum_r x_r^2 / n_r - T^2 / N).
    return max(0.0, total * total / (passes * (total - passes)) * (q / scale - passes * passes / total))


def _exact(counts: Sequence[tuple[int, int]], scale: int, total: int, passes: int) -> dict[int, float] | None:
    """Distribution of q = sum_r x_r^2 * scale / n_r given the total passes, or None past the budget."""
    rate = passes / total
    dist: dict[tuple[int, int], float] = {(0, 0): 1.0}
    left = total
    work = 0
    for _, n in counts:
        work += len(dist) * (n + 1)
        if work > _EXACT_BUDGET:
            return None
        left -= n
        weight = scale // n
        pmf = [math.comb(n, x) * rate**x * (1 - rate) ** (n - x) for x in range(n + 1)]
        nxt: dict[tuple[int, int], float] = defaultdict(float)
        for (s, q), pr in dist.items():
            for x in range(max(0, passes - s - left), min(n, passes - s) + 1):
                nxt[(s + x, q + x * x * weight)] += pr * pmf[x]
        dist = nxt
    mass = math.fsum(dist.values())
    return {q: pr / mass for (_, q), pr in dist.items()}


def homogeneity_test(counts: Sequence[tuple[int, int]]) -> Homogeneity:
    """Exact conditional test that one case's pass rate is the same in every run.

    `counts` holds (passes, trials) per run. With fewer than two runs, or when every
    trial agrees, there is nothing to test: p = 1.
    """
    _check_runs(counts)
    total = sum(n for _, n in counts)
    passes = sum(x for x, _ in counts)
    if len(counts) < 2 or passes in (0, total):
        return Homogeneity(0.0, 1.0, True, (1.0,))
    scale = math.lcm(*(n for _, n in counts))
    observed = sum(x * x * (scale // n) for x, n in counts)
    statistic = _chi_square(observed, scale, total, passes)
    dist = _exact(counts, scale, total, passes)
    if dist is not None:
        tail, levels = 0.0, []
        for q in sorted(dist, reverse=True):
            tail += dist[q]
            levels.append(min(1.0, tail))
        p = min(1.0, math.fsum(pr for q, pr in dist.items() if q >= observed))
        # The largest statistic has the smallest tail: levels ascend as built.
        return Homogeneity(statistic, p, True, tuple(levels))
    return Homogeneity(statistic, chi_square_sf(statistic, len(counts) - 1), False, None)


def _gamma_q(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) (series below a + 1, continued fraction above)."""
    if x <= 0.0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1.0
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    # Lentz's continued fraction.
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        step = d * c
        h *= step
        if abs(step - 1.0) < 1e-16:
            break
    return min(1.0, h * math.exp(log_front))


def chi_square_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with df degrees of freedom."""
    if df < 1:
        raise ValueError(f"df must be >= 1, got {df}")
    return _gamma_q(df / 2.0, x / 2.0)


@dataclass(frozen=True)
class RunFlakiness:
    """A case over repeated runs of one version: within-run and across-run flakiness."""

    runs: int
    passes: list[int]
    """Passes per run, in the order given."""
    trials: list[int]
    """Trials per run."""
    pooled_rate: float
    """All passes over all trials."""
    min: float
    """Lowest per-run pass rate."""
    max: float
    spread: float
    """max - min."""
    mixed_runs: int
    """Runs in which some trials passed and some failed (within-run flakiness)."""
    statistic: float
    """Pearson's chi-square of the homogeneity test."""
    p_value: float
    """Exact conditional p-value of "the same pass rate in every run"."""
    adjusted_p_value: float
    """p_value after the correction across cases."""
    exact: bool
    across_runs: bool
    """The pass rate moved across runs beyond binomial noise (adjusted p < alpha) by more than the spread bar."""

    @property
    def within_run(self) -> bool:
        """Some run had trials that disagree."""
        return self.mixed_runs > 0


def flakiness_across_runs(
    counts_by_case: Mapping[str, Sequence[tuple[int, int]]],
    alpha: float = 0.05,
    spread: float = 0.0,
) -> dict[str, RunFlakiness]:
    """Per case, its (passes, trials) in each run tested for a pass rate that moves across runs.

    A case is flaky across runs when the exact homogeneity test, adjusted across cases by
    the discrete Holm step-down, is below alpha and its per-run rates spread by more than
    `spread` (a practical bar; 0 for none). Cases with no runs are skipped.
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if not 0.0 <= spread < 1.0:
        raise ValueError(f"spread must be in [0, 1), got {spread}")
    ids = [c for c, runs in counts_by_case.items() if runs]
    tests = [homogeneity_test(counts_by_case[c]) for c in ids]
    adjusted = discrete_holm([t.p_value for t in tests], [t.levels for t in tests])
    out: dict[str, RunFlakiness] = {}
    for case_id, test, adj in zip(ids, tests, adjusted, strict=True):
        runs = counts_by_case[case_id]
        rates = [x / n for x, n in runs]
        lo, hi = min(rates), max(rates)
        out[case_id] = RunFlakiness(
            runs=len(runs),
            passes=[x for x, _ in runs],
            trials=[n for _, n in runs],
            pooled_rate=sum(x for x, _ in runs) / sum(n for _, n in runs),
            min=lo,
            max=hi,
            spread=hi - lo,
            mixed_runs=sum(1 for x, n in runs if 0 < x < n),
            statistic=test.statistic,
            p_value=test.p_value,
            adjusted_p_value=adj,
            exact=test.exact,
            across_runs=adj < alpha and hi - lo > spread + _EPS,
        )
    return out
