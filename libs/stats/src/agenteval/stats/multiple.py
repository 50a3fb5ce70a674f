"""Multiple-testing corrections; adjusted p-values come back in input order."""

from __future__ import annotations

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
