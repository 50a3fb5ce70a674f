"""Flakiness: cases whose trials disagree, and pass rates that swing across runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Rates like 0.9 - 0.7 come out as 0.20000000000000007; a spread of exactly the
# threshold must not warn.
_EPS = 1e-9


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
    """True when the spread exceeds the threshold (a flaky case, or a flaky environment)."""


def flake_rate_across_runs(
    rates_by_run: Mapping[str, Sequence[float]], spread: float = 0.20
) -> dict[str, RunSpread]:
    """Per case, min/max/spread of its pass rate over runs; warn when spread > `spread`.

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
