import random

import pytest

from agenteval.stats import benjamini_hochberg, bonferroni, holm_bonferroni

PS = [0.01, 0.04, 0.03, 0.005]


def test_holm_known_values():
    assert holm_bonferroni(PS) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_bh_known_values():
    assert benjamini_hochberg(PS) == pytest.approx([0.02, 0.04, 0.04, 0.02])


def test_r_p_adjust_example():
    # R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm") / "BH"
    ps = [0.01, 0.02, 0.03, 0.04, 0.05]
    assert holm_bonferroni(ps) == pytest.approx([0.05, 0.08, 0.09, 0.09, 0.09])
    assert benjamini_hochberg(ps) == pytest.approx([0.05] * 5)


def test_ordering_between_methods_and_caps():
    rng = random.Random(1)
    for _ in range(100):
        ps = [rng.random() ** 2 for _ in range(rng.randint(1, 12))]
        holm, bh, bon = holm_bonferroni(ps), benjamini_hochberg(ps), bonferroni(ps)
        for p, h, b, f in zip(ps, holm, bh, bon, strict=True):
            tol = 1e-12
            assert p <= b + tol and b <= h + tol and h <= f + tol and f <= 1.0


def test_holm_controls_family_wise_error_under_null():
    rng = random.Random(2)
    false = sum(min(holm_bonferroni([rng.random() for _ in range(20)])) < 0.05 for _ in range(2000))
    assert false / 2000 < 0.065


def test_empty_and_invalid():
    assert holm_bonferroni([]) == [] and benjamini_hochberg([]) == []
    with pytest.raises(ValueError):
        holm_bonferroni([0.5, 1.2])
