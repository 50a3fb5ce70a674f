import itertools
import math
import random
from fractions import Fraction

import pytest

from agenteval.stats import pass_at_k, pass_at_k_table, pass_pow_k, pass_pow_k_table


def _closed_at_k(n: int, c: int, k: int) -> float:
    return float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))


def _closed_pow_k(n: int, c: int, k: int) -> float:
    return float(Fraction(math.comb(c, k), math.comb(n, k)))


def test_estimators_match_closed_form_on_random_triples():
    rng = random.Random(2021)
    for _ in range(500):
        n = rng.randint(1, 200)
        c = rng.randint(0, n)
        k = rng.randint(1, n)
        assert pass_at_k(n, c, k) == pytest.approx(_closed_at_k(n, c, k), rel=1e-10, abs=1e-12), (n, c, k)
        assert pass_pow_k(n, c, k) == pytest.approx(_closed_pow_k(n, c, k), rel=1e-10, abs=1e-300), (n, c, k)


@pytest.mark.parametrize("n", range(1, 9))
def test_estimators_match_enumeration_over_all_k_subsets(n):
    for c in range(n + 1):
        trials = [True] * c + [False] * (n - c)
        for k in range(1, n + 1):
            subsets = list(itertools.combinations(trials, k))
            any_pass = sum(any(s) for s in subsets) / len(subsets)
            all_pass = sum(all(s) for s in subsets) / len(subsets)
            assert pass_at_k(n, c, k) == pytest.approx(any_pass, abs=1e-12), (n, c, k)
            assert pass_pow_k(n, c, k) == pytest.approx(all_pass, abs=1e-12), (n, c, k)


@pytest.mark.parametrize("n,c,k", [(3, 1, 4), (0, 0, 1), (5, 2, 0), (5, 6, 1), (5, -1, 1)])
def test_invalid_arguments_raise(n, c, k):
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)
    with pytest.raises(ValueError):
        pass_pow_k(n, c, k)


def test_edge_cases():
    for n in (1, 5, 50):
        for k in range(1, n + 1):
            assert pass_at_k(n, 0, k) == 0.0
            assert pass_pow_k(n, 0, k) == 0.0
            assert pass_at_k(n, n, k) == 1.0
            assert pass_pow_k(n, n, k) == 1.0
    # k = n: pass@n is 1 if any trial passed, pass^n only if all did.
    assert pass_at_k(10, 1, 10) == 1.0
    assert pass_pow_k(10, 9, 10) == 0.0
    # k = 1 is the plain pass rate for both.
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_pow_k(10, 3, 1) == pytest.approx(0.3)


def test_large_n_is_stable():
    # Binomials of this size overflow floats; the product form must not.
    assert pass_at_k(5000, 1, 2500) == pytest.approx(0.5)
    assert 0.0 <= pass_pow_k(5000, 4990, 2500) <= 1.0


def test_tables_cover_k_1_to_n_and_are_monotone():
    at, pw = pass_at_k_table(10, 4), pass_pow_k_table(10, 4)
    assert list(at) == list(range(1, 11)) and list(pw) == list(range(1, 11))
    assert all(at[k] <= at[k + 1] for k in range(1, 10))
    assert all(pw[k] >= pw[k + 1] for k in range(1, 10))
    assert pass_at_k_table(0, 0) == {}
