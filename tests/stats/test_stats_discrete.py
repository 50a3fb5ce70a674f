"""The discrete Holm correction and the attainable Fisher levels it works from."""

from __future__ import annotations

import random

import pytest

from agenteval.stats import discrete_holm, fisher_exact, fisher_less_levels, holm_bonferroni
from agenteval.stats.multiple import attained_level
from tests.stats.sim import binomial


def test_levels_are_the_one_sided_fisher_p_values():
    rng = random.Random(1)
    for _ in range(500):
        an, bn = rng.randint(1, 40), rng.randint(1, 40)
        a, b = rng.randint(0, an), rng.randint(0, bn)
        lo, levels = fisher_less_levels(a + b, an, bn)
        assert levels[a - lo] == pytest.approx(fisher_exact(a, an, b, bn, "less"), rel=1e-12)
        assert list(levels) == sorted(levels) and levels[-1] == pytest.approx(1.0)


def test_discrete_holm_is_holm_for_continuous_tests_and_never_above_it():
    rng = random.Random(2)
    for _ in range(200):
        ps = [rng.random() ** 3 for _ in range(rng.randint(1, 12))]
        assert discrete_holm(ps, [None] * len(ps)) == pytest.approx(holm_bonferroni(ps))
    for _ in range(200):
        cases = [(binomial(rng, 5, p), binomial(rng, 5, p)) for p in (rng.random() for _ in range(10))]
        ps, lv = [], []
        for b, c in cases:
            lo, levels = fisher_less_levels(b + c, 5, 5)
            ps.append(levels[c - lo])
            lv.append(levels)
        assert all(d <= h + 1e-12 for d, h in zip(discrete_holm(ps, lv), holm_bonferroni(ps), strict=True))


def test_tests_that_cannot_reach_a_p_value_take_no_alpha():
    # One test at p = 0.004 among 19 that can reach 0.3 at best: it keeps p as is.
    ps = [0.004] + [0.5] * 19
    levels = [(0.004, 0.1, 1.0)] + [(0.3, 0.5, 1.0)] * 19
    adjusted = discrete_holm(ps, levels)
    assert adjusted[0] == pytest.approx(0.004)
    assert attained_level((0.3, 0.5, 1.0), 0.29) == 0.0
    assert attained_level(None, 0.2) == 0.2


def test_discrete_holm_keeps_the_family_wise_error_rate():
    # 20 unchanged cases at k = 5 with rates across [0, 1]: any rejection is a false one.
    rng = random.Random(3)
    sims, false = 2000, 0
    for _ in range(sims):
        ps, lv = [], []
        for p in (rng.random() for _ in range(20)):
            b, c = binomial(rng, 5, p), binomial(rng, 5, p)
            lo, levels = fisher_less_levels(b + c, 5, 5)
            ps.append(levels[c - lo])
            lv.append(levels)
        false += min(discrete_holm(ps, lv)) < 0.05
    assert false / sims <= 0.05
