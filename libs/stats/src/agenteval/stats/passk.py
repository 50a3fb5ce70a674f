"""Unbiased pass@k and pass^k estimators from n trials with c passes (Chen et al. 2021)."""

from __future__ import annotations

import math


def _check(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got n={n} c={c}")
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n, got n={n} k={k}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """P(at least one of k trials passes), unbiased: 1 - C(n-c, k) / C(n, k).

    Computed as a product of ratios, so it never forms the (huge) binomials.
    Raises ValueError unless 1 <= k <= n and 0 <= c <= n.
    """
    _check(n, c, k)
    if n - c < k:  # every k-subset holds a pass
        return 1.0
    # C(n-c, k)/C(n, k) = prod_{i=n-c+1}^{n} (1 - k/i)
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def pass_pow_k(n: int, c: int, k: int) -> float:
    """P(all k trials pass), unbiased estimator of p^k: C(c, k) / C(n, k).

    Raises ValueError unless 1 <= k <= n and 0 <= c <= n.
    """
    _check(n, c, k)
    if c < k:
        return 0.0
    return math.prod((c - i) / (n - i) for i in range(k))


def pass_at_k_table(n: int, c: int) -> dict[int, float]:
    """pass@k for k = 1..n (empty when n = 0)."""
    return {k: pass_at_k(n, c, k) for k in range(1, n + 1)}


def pass_pow_k_table(n: int, c: int) -> dict[int, float]:
    """pass^k for k = 1..n (empty when n = 0)."""
    return {k: pass_pow_k(n, c, k) for k in range(1, n + 1)}
