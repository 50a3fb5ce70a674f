"""Multiple-testing corrections; adjusted p-values come back in input order."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence


def _check(pvalues: Sequence[float]) -> None:
    for p in pvalues:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p-values must be in [0, 1], got {p}")


def bonferroni(pvalues: Sequence[float]) -> list[float]:
    """Bonferroni: p * m, capped at 1 (controls the family-wise error rate)."""
    _check(pvalues)
    m = len(pvalues)
    return [min(1.0, p * m) for p in pvalues]


def holm_bonferroni(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: controls the family-wise error rate, never less
    powerful than Bonferroni."""
    _check(pvalues)
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def benjamini_hochberg(pvalues: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg step-up adjustment: controls the false discovery rate."""
    _check(pvalues)
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i], reverse=True)
    adjusted = [0.0] * m
    running = 1.0
    for pos, i in enumerate(order):
        rank = m - pos  # 1-based rank from the smallest p
        running = min(running, pvalues[i] * m / rank)
        adjusted[i] = min(1.0, running)
    return adjusted


# A p-value and the attainable level it equals are computed by the same code, but a
# relative slack keeps float noise from dropping a level that equals the threshold.
_LEVEL_TOL = 1e-9


def attained_level(levels: Sequence[float] | None, c: float) -> float:
    """P(p <= c) under the null for a test whose attainable p-values are `levels` (sorted).

    That is the largest level not above c (0.0 when there is none); a test without a
    list of levels is taken as continuous: P(p <= c) = c.
    """
    if levels is None:
        return min(1.0, c)
    i = bisect_right(levels, c * (1.0 + _LEVEL_TOL))
    return levels[i - 1] if i else 0.0


def discrete_holm(pvalues: Sequence[float], levels: Sequence[Sequence[float] | None]) -> list[float]:
    """Holm's step-down adjustment for discrete tests, which spends alpha only where a
    test can reach it (Tarone 1990; Westfall & Wolfinger 1997; Hommel & Krummenauer 1998).

    `levels[i]` lists the p-values test i can attain (sorted; None for a continuous test).
    At step r the smallest remaining p-value p is adjusted to the sum, over the tests
    still in play, of P(p_j <= p): a test that cannot reach p adds nothing, and one
    that can adds no more than p. So this is never above Holm's (m - r) * p, and equal
    to it for continuous tests. Controls the family-wise error rate like Holm.
    """
    _check(pvalues)
    if len(levels) != len(pvalues):
        raise ValueError("need one list of attainable levels per p-value")
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        p = pvalues[i]
        # The test's own term is its p-value (it attains it), whatever its level list says.
        total = p + sum(attained_level(levels[j], p) for j in order[rank + 1 :])
        running = max(running, min(1.0, total))
        adjusted[i] = running
    return adjusted
