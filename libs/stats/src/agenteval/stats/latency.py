"""Percentiles and latency summaries."""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0 <= q <= 100) by linear interpolation, as numpy's default.

    Raises ValueError on an empty sequence or q outside [0, 100].
    """
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"q must be in [0, 100], got {q}")
    xs = sorted(values)
    if not xs:
        raise ValueError("percentile of no values")
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def latency_summary(values_ms: Sequence[float]) -> dict[str, float | None]:
    """p50, p95, p99, mean, max and count of latencies in milliseconds.

    With no values, count is 0 and every other key is None (there is no latency
    to report, and 0 ms would read as "instant").
    """
    if not values_ms:
        return {"p50": None, "p95": None, "p99": None, "mean": None, "max": None, "count": 0}
    return {
        "p50": percentile(values_ms, 50),
        "p95": percentile(values_ms, 95),
        "p99": percentile(values_ms, 99),
        "mean": math.fsum(values_ms) / len(values_ms),
        "max": float(max(values_ms)),
        "count": len(values_ms),
    }
