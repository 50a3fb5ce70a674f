import math

import pytest

from agenteval.stats import detection_power, fisher_exact, plan_trials, trials_needed


def _brute_power(p1: float, p2: float, n: int, alpha: float) -> float:
    def pmf(p: float, x: int) -> float:
        return math.comb(n, x) * p**x * (1 - p) ** (n - x)

    return sum(
        pmf(p1, x) * pmf(p2, y)
        for x in range(n + 1)
        for y in range(n + 1)
        if fisher_exact(y, n, x, n, "less") < alpha
    )


@pytest.mark.parametrize("n", [1, 2, 5, 9, 14])
@pytest.mark.parametrize(
    "p1,p2,alpha", [(0.9, 0.3, 0.05), (0.5, 0.5, 0.05), (1.0, 0.0, 0.3), (0.7, 0.2, 0.01)]
)
def test_detection_power_matches_brute_force_fisher(n, p1, p2, alpha):
    assert detection_power(p1, p2, n, alpha) == pytest.approx(_brute_power(p1, p2, n, alpha), abs=1e-12)


def test_power_under_null_is_at_most_alpha():
    for n in (5, 20, 60):
        assert detection_power(0.5, 0.5, n, 0.05) <= 0.05


def test_textbook_sample_size():
    # Fleiss: p 0.8 vs 0.6, two-sided 5% (= one-sided 2.5%), 80% power: 82 per group
    # uncorrected, 91 with continuity correction (which approximates Fisher's test).
    assert trials_needed(0.8, 0.2, power=0.8, alpha=0.025, method="normal") == 82
    assert abs(trials_needed(0.8, 0.2, power=0.8, alpha=0.025) - 91) <= 3
    # Same effect via Cohen's h: p 0.5 vs 0.4, one-sided 5%, 80%: 305 per group.
    assert trials_needed(0.5, 0.1, method="normal") == 305


def test_exact_answer_reaches_power_and_is_smallest_nearby():
    n = trials_needed(0.9, 0.4, power=0.8, alpha=0.05)
    assert detection_power(0.9, 0.5, n, 0.05) >= 0.8
    assert all(detection_power(0.9, 0.5, m, 0.05) < 0.8 for m in range(1, n))


def test_monotone_in_drop_and_power():
    by_drop = [trials_needed(0.8, d) for d in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8)]
    assert by_drop == sorted(by_drop, reverse=True) and by_drop[0] > by_drop[-1]
    by_power = [trials_needed(0.7, 0.3, power=pw) for pw in (0.5, 0.6, 0.7, 0.8, 0.9, 0.95)]
    assert by_power == sorted(by_power) and by_power[0] < by_power[-1]
    normal = [trials_needed(0.7, d, method="normal") for d in (0.05, 0.1, 0.2, 0.4)]
    assert normal == sorted(normal, reverse=True)


def test_rates_near_one_need_fewer_trials():
    assert trials_needed(0.95, 0.2) < trials_needed(0.6, 0.2)


def test_impossible_drop_and_bad_input_raise():
    with pytest.raises(ValueError, match="cannot drop"):
        trials_needed(0.1, 0.3)
    for args in [(1.2, 0.1), (0.5, 0.0), (0.5, 0.1, 1.0), (0.5, 0.1, 0.8, 0.0)]:
        with pytest.raises(ValueError):
            trials_needed(*args)


def test_beyond_exact_range_uses_corrected_normal():
    n = trials_needed(0.5, 0.05)
    assert n > 400
    assert n > trials_needed(0.5, 0.05, method="normal")


def test_plan_trials():
    plan = plan_trials({"easy": 0.98, "mid": 0.6, "rare": 0.1}, drop=0.3, power=0.8, alpha=0.05)
    cases = plan["cases"]
    # compare holds the per-case family to 3/4 of alpha; Bonferroni over 3 cases is the floor.
    assert plan["case_alpha"] == pytest.approx(0.0375)
    assert plan["alpha_per_case"] == pytest.approx(0.0375 / 3)
    assert plan["suite_alpha"] == pytest.approx(0.0125)
    assert cases["rare"]["trials"] is None and "cannot drop" in cases["rare"]["note"]
    assert plan["infeasible"] == ["rare"]
    assert cases["easy"]["trials"] < cases["mid"]["trials"]
    assert plan["recommended_trials"] == cases["mid"]["trials"]
    # Never more than Bonferroni needs; fewer when other cases cannot reach small p-values.
    assert cases["mid"]["trials"] <= trials_needed(0.6, 0.3, 0.8, 0.0375 / 3)
    loose = plan_trials({"mid": 0.6, "x": 0.9}, drop=0.3, adjust_for_cases=False, split_alpha=False)
    assert loose["cases"]["mid"]["trials"] == trials_needed(0.6, 0.3)
    assert plan_trials({"rare": 0.1}, drop=0.3)["recommended_trials"] is None
