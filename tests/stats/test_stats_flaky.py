import itertools
import math
import random

import pytest

from agenteval.stats import (
    chi_square_sf,
    flake_rate_across_runs,
    flakiness_across_runs,
    flaky_cases,
    homogeneity_test,
)


def test_flaky_cases_are_those_whose_trials_disagree():
    out = flaky_cases(
        {
            "stable-pass": [True] * 5,
            "stable-fail": [False] * 3,
            "flaky": [True, False, True, True],
            "empty": [],
        }
    )
    assert out == {"flaky": pytest.approx(0.75)}


def test_spread_across_runs_warns_past_twenty_points():
    out = flake_rate_across_runs(
        {"steady": [0.8, 0.9, 0.85], "edge": [0.7, 0.9], "swing": [0.4, 0.9, 0.7], "none": []}
    )
    assert set(out) == {"steady", "edge", "swing"}
    assert out["steady"].warn is False and out["steady"].spread == pytest.approx(0.1)
    assert out["edge"].warn is False, "a spread of exactly 20 points does not exceed 20"
    assert out["swing"].warn is True
    assert (out["swing"].min, out["swing"].max, out["swing"].runs) == (0.4, 0.9, 3)
    assert flake_rate_across_runs({"a": [0.5, 0.6]}, spread=0.05)["a"].warn is True


def test_rates_out_of_range_raise():
    with pytest.raises(ValueError):
        flake_rate_across_runs({"a": [0.5, 1.5]})


def _brute_homogeneity(counts):
    """P(sum x_r^2 / n_r >= observed | total passes), by listing every table."""
    total_passes = sum(x for x, _ in counts)

    def stat(xs):
        return sum(x * x / n for x, (_, n) in zip(xs, counts, strict=True))

    observed = stat([x for x, _ in counts])
    hit = total = 0
    for xs in itertools.product(*[range(n + 1) for _, n in counts]):
        if sum(xs) != total_passes:
            continue
        w = math.prod(math.comb(n, x) for x, (_, n) in zip(xs, counts, strict=True))
        total += w
        hit += w if stat(xs) >= observed - 1e-12 else 0
    return hit / total


def test_homogeneity_test_is_exact():
    rng = random.Random(3)
    for _ in range(200):
        counts = []
        for _ in range(rng.randint(2, 4)):
            n = rng.randint(1, 6)
            counts.append((rng.randint(0, n), n))
        result = homogeneity_test(counts)
        assert result.exact
        assert result.p_value == pytest.approx(_brute_homogeneity(counts), abs=1e-12), counts
        assert result.p_value in result.levels or result.p_value == pytest.approx(
            min(result.levels, key=lambda v: abs(v - result.p_value))
        )


def test_homogeneity_edge_cases_and_large_tables():
    assert homogeneity_test([(5, 5), (5, 5)]).p_value == 1.0
    assert homogeneity_test([(3, 5)]).p_value == 1.0
    # 5/5 then 0/5: the most extreme of C(10, 5) equally likely tables, counted twice (by symmetry).
    assert homogeneity_test([(5, 5), (0, 5)]).p_value == pytest.approx(2 / 252)
    big = homogeneity_test([(40, 50), (30, 50), (45, 50)] * 4)
    assert not big.exact and big.levels is None
    assert big.p_value == pytest.approx(chi_square_sf(big.statistic, 11))
    with pytest.raises(ValueError):
        homogeneity_test([(6, 5), (1, 5)])


def test_chi_square_survival_function():
    # Textbook quantiles: 3.841 (df 1), 9.488 (df 4), 67.505 (df 50) at 5%; 0.5 at the median of df 2 (1.386).
    assert chi_square_sf(3.841458820694124, 1) == pytest.approx(0.05, rel=1e-9)
    assert chi_square_sf(9.487729036781154, 4) == pytest.approx(0.05, rel=1e-9)
    assert chi_square_sf(67.5048065495412, 50) == pytest.approx(0.05, rel=1e-12)
    assert chi_square_sf(2 * math.log(2), 2) == pytest.approx(0.5, rel=1e-12)
    assert chi_square_sf(0.0, 3) == 1.0


def test_flakiness_across_runs_tells_within_run_from_across_runs():
    result = flakiness_across_runs(
        {
            "steady": [(10, 10)] * 5,
            "coin": [(5, 10), (6, 10), (4, 10), (5, 10), (6, 10)],
            "broke": [(10, 10), (10, 10), (0, 10), (10, 10), (0, 10)],
            "none": [],
        },
        alpha=0.05,
    )
    assert set(result) == {"steady", "coin", "broke"}
    steady, coin, broke = result["steady"], result["coin"], result["broke"]
    assert not steady.within_run and not steady.across_runs and steady.p_value == 1.0
    # The coin is non-deterministic in every run, and just as much in each: within-run only.
    assert coin.mixed_runs == 5 and coin.within_run and not coin.across_runs
    assert broke.across_runs and not broke.within_run and broke.adjusted_p_value < 0.05
    assert (broke.passes, broke.trials, broke.spread) == ([10, 10, 0, 10, 0], [10] * 5, 1.0)
    assert broke.pooled_rate == pytest.approx(0.6)
    # A practical bar: a significant swing smaller than `spread` does not warn.
    swing = [(10, 10), (10, 10), (3, 10), (10, 10), (3, 10)]
    assert not flakiness_across_runs({"broke": swing}, spread=0.99)["broke"].across_runs
