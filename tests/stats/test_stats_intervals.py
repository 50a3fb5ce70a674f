import math

import pytest

from agenteval.stats import latency_summary, normal_cdf, normal_ppf, percentile, wilson_interval


@pytest.mark.parametrize(
    "p,x",
    [
        (0.5, 0.0),
        (0.8, 0.8416212335729143),
        (0.95, 1.6448536269514722),
        (0.975, 1.959963984540054),
        (0.995, 2.5758293035489004),
        (0.999, 3.090232306167813),
        (0.01, -2.3263478740408408),
        (1e-10, -6.361340902404056),
    ],
)
def test_normal_ppf_known_quantiles(p, x):
    assert normal_ppf(p) == pytest.approx(x, abs=1e-12)


def test_normal_ppf_inverts_cdf_everywhere():
    for i in range(1, 1000):
        p = i / 1000
        assert normal_cdf(normal_ppf(p)) == pytest.approx(p, rel=1e-12)


@pytest.mark.parametrize("p", [0.0, 1.0, -0.1, 1.5])
def test_normal_ppf_rejects_out_of_range(p):
    with pytest.raises(ValueError):
        normal_ppf(p)


def _wilson_by_quadratic(x: int, n: int, z: float) -> tuple[float, float]:
    # Independent route: the p with (phat - p)^2 = z^2 p (1 - p) / n.
    phat = x / n
    a = 1 + z * z / n
    b = -(2 * phat + z * z / n)
    c = phat * phat
    disc = math.sqrt(b * b - 4 * a * c)
    return ((-b - disc) / (2 * a), (-b + disc) / (2 * a))


@pytest.mark.parametrize(
    "x,n,low,high",
    [(8, 10, 0.4902, 0.9433), (0, 10, 0.0, 0.2775), (10, 10, 0.7225, 1.0), (1, 10, 0.0179, 0.4042)],
)
def test_wilson_known_values(x, n, low, high):
    lo, hi = wilson_interval(x, n)
    assert lo == pytest.approx(low, abs=5e-5) and hi == pytest.approx(high, abs=5e-5)


@pytest.mark.parametrize("x,n,conf", [(5, 20, 0.9), (15, 20, 0.95), (37, 50, 0.99), (3, 7, 0.8)])
def test_wilson_matches_score_test_inversion(x, n, conf):
    z = normal_ppf(1 - (1 - conf) / 2)
    assert wilson_interval(x, n, conf) == pytest.approx(_wilson_by_quadratic(x, n, z), abs=1e-12)


def test_wilson_empty_and_invalid():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(5, 3)
    with pytest.raises(ValueError):
        wilson_interval(1, 3, confidence=1.0)


def test_wilson_narrows_with_n_and_widens_with_confidence():
    w = [wilson_interval(n // 2, n) for n in (10, 100, 1000)]
    widths = [hi - lo for lo, hi in w]
    assert widths[0] > widths[1] > widths[2]
    lo90, hi90 = wilson_interval(5, 10, 0.90)
    lo99, hi99 = wilson_interval(5, 10, 0.99)
    assert lo99 < lo90 and hi99 > hi90


def test_percentile_matches_numpy_linear():
    values = [15, 20, 35, 40, 50]
    # Values numpy.percentile(values, q) gives with method="linear".
    assert percentile(values, 0) == 15
    assert percentile(values, 40) == 29.0
    assert percentile(values, 50) == 35
    assert percentile(values, 95) == pytest.approx(48.0)
    assert percentile(values, 100) == 50
    assert percentile([3.0, 1.0, 2.0, 4.0], 25) == pytest.approx(1.75)
    assert percentile([7.0], 99) == 7.0


def test_percentile_rejects_bad_input():
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1.0], 101)


def test_latency_summary():
    s = latency_summary([float(i) for i in range(1, 101)])
    assert s["count"] == 100
    assert s["p50"] == pytest.approx(50.5)
    assert s["p95"] == pytest.approx(95.05)
    assert s["p99"] == pytest.approx(99.01)
    assert s["mean"] == pytest.approx(50.5)
    assert s["max"] == 100.0


def test_latency_summary_empty_is_none_not_zero():
    assert latency_summary([]) == {
        "p50": None,
        "p95": None,
        "p99": None,
        "mean": None,
        "max": None,
        "count": 0,
    }
