import pytest

from agenteval.stats import flake_rate_across_runs, flaky_cases


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
