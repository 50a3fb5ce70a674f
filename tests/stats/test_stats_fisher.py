import math
import random
from fractions import Fraction

import pytest

from agenteval.stats import fisher_exact


def _reference(a: int, an: int, b: int, bn: int, alternative: str) -> float:
    # Exact rational enumeration of the hypergeometric, independent of the log-space code.
    k = a + b
    support = range(max(0, k - bn), min(k, an) + 1)
    pmf = {x: Fraction(math.comb(an, x) * math.comb(bn, k - x), math.comb(an + bn, k)) for x in support}
    if alternative == "less":
        return float(sum(p for x, p in pmf.items() if x <= a))
    if alternative == "greater":
        return float(sum(p for x, p in pmf.items() if x >= a))
    return float(sum(p for p in pmf.values() if p <= pmf[a]))


def test_lady_tasting_tea():
    assert fisher_exact(3, 4, 1, 4) == pytest.approx(0.4857, abs=1e-4)
    assert fisher_exact(3, 4, 1, 4, "greater") == pytest.approx(0.2429, abs=1e-4)
    assert fisher_exact(3, 4, 1, 4, "less") == pytest.approx(0.9857, abs=1e-4)


def test_known_table():
    # [[8, 2], [1, 5]]: scipy.stats.fisher_exact gives p = 0.03496503...
    assert fisher_exact(8, 10, 1, 6) == pytest.approx(0.034965034965, rel=1e-9)


def test_matches_rational_enumeration():
    rng = random.Random(7)
    for _ in range(300):
        an, bn = rng.randint(1, 30), rng.randint(1, 30)
        a, b = rng.randint(0, an), rng.randint(0, bn)
        for alt in ("two-sided", "less", "greater"):
            assert fisher_exact(a, an, b, bn, alt) == pytest.approx(
                _reference(a, an, b, bn, alt), rel=1e-9
            ), (
                a,
                an,
                b,
                bn,
                alt,
            )


def test_direction_detects_regression_only_one_way():
    # candidate 1/10 vs baseline 9/10: very significant "less", not "greater".
    assert fisher_exact(1, 10, 9, 10, "less") < 0.001
    assert fisher_exact(1, 10, 9, 10, "greater") > 0.99


def test_large_counts_stay_finite():
    p = fisher_exact(4000, 10000, 4200, 10000, "less")
    assert 0.0 < p < 0.01
    assert fisher_exact(5000, 10000, 5000, 10000) == pytest.approx(1.0)


@pytest.mark.parametrize("args", [(5, 4, 1, 4), (-1, 4, 1, 4), (1, 4, 1, 4, "bigger")])
def test_invalid_input_raises(args):
    with pytest.raises(ValueError):
        fisher_exact(*args)
