import bisect
import itertools
import math
import random

import pytest

from agenteval.stats import paired_bootstrap_ci, paired_permutation_test


def _brute_force(diffs, alternative):
    obs = sum(diffs)
    sums = [
        sum(s * d for s, d in zip(signs, diffs, strict=True))
        for signs in itertools.product((1, -1), repeat=len(diffs))
    ]
    eps = 1e-9
    if alternative == "greater":
        hits = sum(s >= obs - eps for s in sums)
    elif alternative == "less":
        hits = sum(s <= obs + eps for s in sums)
    else:
        hits = sum(abs(s) >= abs(obs) - eps for s in sums)
    return hits / len(sums)


def _meet_in_the_middle_less(diffs):
    # Exact P(sum of sign flips <= observed) for up to ~20 diffs, by halves.
    half = len(diffs) // 2
    left = [
        sum(s * d for s, d in zip(signs, diffs[:half], strict=True))
        for signs in itertools.product((1, -1), repeat=half)
    ]
    right = sorted(
        sum(s * d for s, d in zip(signs, diffs[half:], strict=True))
        for signs in itertools.product((1, -1), repeat=len(diffs) - half)
    )
    obs = sum(diffs)
    hits = sum(bisect.bisect_right(right, obs - lv + 1e-12) for lv in left)
    return hits / (len(left) * len(right))


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_exact_enumeration_matches_brute_force(alternative):
    rng = random.Random(3)
    for _ in range(30):
        n = rng.randint(1, 10)
        diffs = [rng.choice([-1, 1]) * rng.random() for _ in range(n)]
        assert paired_permutation_test(diffs, alternative) == pytest.approx(_brute_force(diffs, alternative))


def test_exact_for_pass_rate_grids_with_ties():
    # Pass-rate deltas of 3-trial cases tie a lot (1/3 is inexact in binary).
    diffs = [-1 / 3, -2 / 3, 1 / 3, -1 / 3, 0.0, -1.0, 2 / 3, -1 / 3]
    for alt in ("two-sided", "less", "greater"):
        assert paired_permutation_test(diffs, alt) == pytest.approx(
            _brute_force([d for d in diffs if d], alt)
        )


def test_grid_diffs_beyond_16_are_still_exact():
    rng = random.Random(5)
    diffs = [rng.randint(-3, 2) / 10 for _ in range(40)]
    p = paired_permutation_test(diffs, "less", seed=1)
    assert p == paired_permutation_test(diffs, "less", seed=2)  # no sampling involved
    assert 0.0 < p < 1.0


def test_monte_carlo_when_exact_is_too_costly():
    rng = random.Random(11)
    diffs = [rng.gauss(-0.05, 0.3) for _ in range(18)]
    p1 = paired_permutation_test(diffs, "less", n_resamples=20_000, seed=1)
    p2 = paired_permutation_test(diffs, "less", n_resamples=20_000, seed=2)
    assert p1 != p2, "18 arbitrary floats should take the Monte Carlo path"
    exact = _meet_in_the_middle_less(diffs)
    assert p1 == pytest.approx(exact, abs=0.015)
    assert p2 == pytest.approx(exact, abs=0.015)


def test_all_zero_and_all_negative():
    assert paired_permutation_test([0.0, 0.0, 0.0], "less") == 1.0
    assert paired_permutation_test([-0.5] * 10, "less") == pytest.approx(2**-10)
    assert paired_permutation_test([-0.5] * 10, "greater") == 1.0
    assert paired_permutation_test([-0.5] * 10, "two-sided") == pytest.approx(2 * 2**-10)


def test_null_is_not_rejected_too_often():
    rng = random.Random(17)
    rejections = 0
    for _ in range(300):
        diffs = [(rng.randint(0, 5) - rng.randint(0, 5)) / 5 for _ in range(15)]
        rejections += paired_permutation_test(diffs, "less") < 0.05
    assert rejections / 300 < 0.08


def test_bootstrap_ci_brackets_mean_and_matches_normal_theory():
    rng = random.Random(23)
    diffs = [rng.gauss(-0.1, 0.3) for _ in range(200)]
    lo, hi = paired_bootstrap_ci(diffs, 0.95, n_resamples=4000, seed=1)
    mean = sum(diffs) / len(diffs)
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1))
    half = 1.96 * sd / math.sqrt(len(diffs))
    assert lo < mean < hi
    assert lo == pytest.approx(mean - half, abs=0.1 * half)
    assert hi == pytest.approx(mean + half, abs=0.1 * half)


def test_bootstrap_ci_coverage():
    rng = random.Random(29)
    covered = 0
    for i in range(200):
        diffs = [rng.gauss(0.1, 0.3) for _ in range(30)]
        lo, hi = paired_bootstrap_ci(diffs, 0.95, n_resamples=500, seed=i)
        covered += lo <= 0.1 <= hi
    assert 0.88 <= covered / 200 <= 0.99


def test_bootstrap_ci_is_seeded_and_degenerate_cases():
    diffs = [0.1, -0.2, 0.3, 0.0]
    assert paired_bootstrap_ci(diffs, seed=4) == paired_bootstrap_ci(diffs, seed=4)
    assert paired_bootstrap_ci([-0.2] * 5) == (-0.2, -0.2)
    with pytest.raises(ValueError):
        paired_bootstrap_ci([])
