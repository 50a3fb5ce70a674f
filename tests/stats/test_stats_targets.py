"""The statistics' targets, measured by seeded simulation (1,000+ comparisons each).

Each figure here is quoted in STATISTICS.md; a change that moves one must update it there.
Suites have 20 cases; "noise" draws each case's rate uniformly in [0, 1] and both runs
from it.
"""

from __future__ import annotations

import random

import pytest

from agenteval.stats import flakiness_across_runs, plan_trials
from tests.stats.sim import binomial, quick_compare, suite_pair

SIMS = 1000


@pytest.mark.parametrize("k", [3, 5, 10, 20])
def test_false_alarms_on_pure_noise_stay_under_alpha(k: int) -> None:
    rng = random.Random(1000 + k)
    alarms = 0
    for s in range(SIMS):
        base, cand = suite_pair(rng, [rng.random() for _ in range(20)], k)
        alarms += not quick_compare(base, cand, s).passed
    assert alarms / SIMS < 0.05, f"k={k}: {alarms} false alarms in {SIMS} no-change comparisons"


def test_a_uniform_20_point_drop_at_k10_is_caught() -> None:
    rng = random.Random(2)
    caught = 0
    for s in range(SIMS):
        rates = [rng.uniform(0.2, 1.0) for _ in range(20)]
        base, cand = suite_pair(rng, rates, 10, [p - 0.2 for p in rates])
        caught += not quick_compare(base, cand, s).passed
    assert caught / SIMS >= 0.95, f"caught {caught} of {SIMS}"


def test_one_dead_case_among_20_at_k5_is_caught() -> None:
    # The case passed 95% of the time; now every trial errors. The errors check catches it
    # whatever the pass counts say; the per-case test alone catches it whenever the baseline
    # was 5/5 (0.95^5 = 77% of the time), which Holm never could.
    rng = random.Random(3)
    caught = flagged = 0
    for s in range(SIMS):
        rates = [rng.random() for _ in range(20)]
        rates[0] = 0.95
        base, cand = suite_pair(rng, rates, 5)
        cand["c00"] = (0, 5)
        r = quick_compare(base, cand, s, candidate_errors={"c00": (5, 0)})
        caught += not r.passed and "c00" in [e.case_id for e in r.new_errors]
        flagged += "c00" in r.regressions
    assert caught / SIMS >= 0.99, f"caught {caught} of {SIMS}"
    assert flagged / SIMS >= 0.70, f"the per-case test flagged it {flagged} times in {SIMS}"


def _single_drop(seed: int, correction: str, case_share: float, others: str) -> float:
    rng = random.Random(seed)
    flagged = 0
    for s in range(SIMS):
        if others == "stable":  # most agent cases pass (or fail) nearly always
            rates = [
                rng.uniform(0.9, 1.0)
                if u < 0.6
                else rng.uniform(0.0, 0.1)
                if u < 0.75
                else rng.uniform(0.1, 0.9)
                for u in (rng.random() for _ in range(20))
            ]
        elif others == "like_the_case":  # every other case as reliable as this one was
            rates = [0.9] * 20
        else:
            rates = [rng.random() for _ in range(20)]
        rates[0] = 0.9
        base, cand = suite_pair(rng, rates, 10, [0.4, *rates[1:]])
        r = quick_compare(base, cand, s, correction=correction, case_share=case_share)
        flagged += "c00" in r.regressions
    return flagged / SIMS


@pytest.mark.parametrize(("others", "reached"), [("noise", 0.30), ("stable", 0.40), ("like_the_case", 0.50)])
def test_one_case_falling_50_points_at_k10(others: str, reached: float) -> None:
    # 0.9 -> 0.4. Holm with alpha halved (the old default) flags it ~7% of the time. The
    # issue asked for 50%; a single one-sided Fisher test at the full alpha = 0.05, with no
    # other case to correct for, has 66% power here, so what a family-wise procedure reaches
    # depends on how many other cases could reach significance: 32% (others uniform in
    # [0, 1]), 45% (others mostly stable), 53% (others at 0.9 like this case); STATISTICS.md.
    new = _single_drop(5, "discrete-holm", 0.75, others)
    old = _single_drop(5, "holm", 0.5, others)
    assert new >= reached, new
    assert new >= 3 * old, (new, old)


def test_flake_warnings_for_a_stationary_agent_are_rare() -> None:
    # 20 cases, each at a fixed rate in [0.5, 0.95], k = 5, 5 runs.
    rng = random.Random(6)
    any_warning = warnings = 0
    for _ in range(SIMS):
        counts = {}
        for i in range(20):
            p = rng.uniform(0.5, 0.95)
            counts[f"c{i}"] = [(binomial(rng, 5, p), 5) for _ in range(5)]
        result = flakiness_across_runs(counts, spread=0.2)
        n = sum(r.across_runs for r in result.values())
        warnings += n
        any_warning += n > 0
    assert warnings / (20 * SIMS) <= 0.05, f"{warnings} warnings over {20 * SIMS} stationary cases"
    # The correction holds the chance of any warning in the suite to alpha.
    assert any_warning / SIMS <= 0.055, f"{any_warning} of {SIMS} suites had a warning"


def test_a_case_whose_rate_swings_across_runs_is_warned_about() -> None:
    rng = random.Random(7)
    warned = 0
    for _ in range(SIMS):
        counts = {f"c{i}": [(binomial(rng, 10, 0.8), 10) for _ in range(5)] for i in range(20)}
        counts["c0"] = [(binomial(rng, 10, 0.95 if r % 2 == 0 else 0.35), 10) for r in range(5)]
        warned += flakiness_across_runs(counts, spread=0.2)["c0"].across_runs
    assert warned / SIMS >= 0.8, f"warned {warned} of {SIMS}"


@pytest.mark.parametrize(
    "rates,drop",
    [
        ([0.9] * 20, 0.3),
        ([0.9, *[0.5, 0.95, 0.7, 0.99] * 4, 0.6, 0.8, 0.3], 0.3),
        ([0.95] * 20, 0.5),
    ],
)
def test_planner_power_at_its_recommended_trials(rates: list[float], drop: float) -> None:
    """Simulate compare at the planned n: the first case falls by `drop`, the others stay."""
    plan = plan_trials({f"c{i:02d}": p for i, p in enumerate(rates)}, drop, power=0.8)
    n = plan["cases"]["c00"]["trials"]
    rng = random.Random(8)
    flagged = 0
    for s in range(SIMS):
        base, cand = suite_pair(rng, rates, n, [rates[0] - drop, *rates[1:]])
        flagged += "c00" in quick_compare(base, cand, s).regressions
    assert 0.78 <= flagged / SIMS <= 0.85, f"n={n}: power {flagged / SIMS}"


def test_planner_suite_power_at_its_recommended_trials() -> None:
    rates = [0.8] * 20
    plan = plan_trials({f"c{i:02d}": p for i, p in enumerate(rates)}, 0.1, power=0.8)
    n = plan["suite_trials"]
    rng = random.Random(9)
    caught = 0
    for s in range(SIMS):
        base, cand = suite_pair(rng, rates, n, [p - 0.1 for p in rates])
        caught += quick_compare(base, cand, s).suite.verdict == "regressed"
    assert 0.78 <= caught / SIMS <= 0.85, f"n={n}: suite power {caught / SIMS}"
