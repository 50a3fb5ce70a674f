import dataclasses
import json
import random

import pytest

from agenteval.stats import compare_grader_scores, compare_runs


def _binomial(rng: random.Random, n: int, p: float) -> int:
    return sum(rng.random() < p for _ in range(n))


def _stable_suite(n_cases: int = 20, trials: int = 10) -> dict[str, tuple[int, int]]:
    return {f"case-{i:02d}": (8 + i % 3, trials) for i in range(n_cases)}


def test_single_case_collapse_is_flagged():
    base = _stable_suite()
    cand = dict(base)
    base["case-07"] = (9, 10)
    cand["case-07"] = (1, 10)
    r = compare_runs(base, cand)
    assert r.regressions == ["case-07"], r.regressions
    case = next(c for c in r.cases if c.case_id == "case-07")
    assert case.verdict == "regressed"
    assert case.delta == pytest.approx(-0.8)
    assert case.adjusted_p_value < 0.05 <= case.adjusted_p_value * 1000
    assert r.passed is False
    others = [c for c in r.cases if c.case_id != "case-07"]
    assert all(c.verdict == "unchanged" for c in others)


def test_suite_wide_drop_is_caught_even_if_no_single_case_is():
    base = {f"c{i}": (8, 10) for i in range(20)}
    cand = {f"c{i}": (5, 10) for i in range(20)}
    r = compare_runs(base, cand)
    assert r.regressions == [], "a 0.3 drop on 10 trials is not significant for one case after Holm"
    assert r.suite.verdict == "regressed"
    assert r.suite.mean_delta == pytest.approx(-0.3)
    assert r.suite.ci_low == pytest.approx(-0.3) and r.suite.ci_high == pytest.approx(-0.3)
    assert r.suite.p_value == pytest.approx(2**-20)
    assert r.passed is False


def test_suite_wide_drop_with_noise():
    rng = random.Random(8)
    base, cand = {}, {}
    for i in range(20):
        p = rng.uniform(0.6, 0.95)
        base[f"c{i}"] = (_binomial(rng, 10, p), 10)
        cand[f"c{i}"] = (_binomial(rng, 10, p - 0.3), 10)
    r = compare_runs(base, cand)
    assert r.suite.verdict == "regressed"
    assert r.suite.ci_high < 0
    assert not r.passed


def test_improvement_is_not_a_failure():
    base = {f"c{i}": (3, 10) for i in range(10)}
    cand = {f"c{i}": (9, 10) for i in range(10)}
    base["c0"], cand["c0"] = (1, 10), (10, 10)
    r = compare_runs(base, cand)
    assert r.suite.verdict == "improved"
    assert r.improvements == ["c0"] and not r.regressions
    assert r.passed is True


def test_significant_but_small_drop_is_below_threshold():
    base = {"big": (9500, 10000)}
    cand = {"big": (9300, 10000)}
    r = compare_runs(base, cand, threshold=0.05)
    c = r.cases[0]
    assert c.p_value < 1e-6
    assert c.verdict == "unchanged" and r.passed
    r0 = compare_runs(base, cand, threshold=0.0)
    assert r0.cases[0].verdict == "regressed" and not r0.passed


def test_large_drop_without_evidence_is_not_called():
    r = compare_runs({"a": (2, 2)}, {"a": (1, 2)})
    assert r.cases[0].delta == -0.5
    assert r.cases[0].verdict == "unchanged" and r.passed


def test_added_and_removed_cases_are_listed_and_excluded():
    base = {"a": (5, 5), "b": (5, 5), "gone": (5, 5)}
    cand = {"a": (5, 5), "b": (5, 5), "new": (0, 5)}
    r = compare_runs(base, cand)
    assert r.added == ["new"] and r.removed == ["gone"]
    assert [c.case_id for c in r.cases] == ["a", "b"]
    assert r.suite.n_cases == 2 and r.suite.mean_delta == 0.0
    assert r.passed


def test_no_shared_cases():
    r = compare_runs({"a": (1, 2)}, {"b": (1, 2)})
    assert r.suite.n_cases == 0 and r.suite.verdict == "unchanged" and r.notes
    assert r.passed


def test_alpha_split_and_corrections():
    base = {f"c{i}": (9, 10) for i in range(5)}
    cand = {f"c{i}": (9, 10) for i in range(5)}
    cand["c0"] = (4, 10)
    holm = compare_runs(base, cand)
    raw = compare_runs(base, cand, correction="none", split_alpha=False)
    c_holm, c_raw = holm.cases[0], raw.cases[0]
    assert c_raw.adjusted_p_value == c_raw.p_value
    assert c_holm.adjusted_p_value == pytest.approx(min(1.0, 2 * 5 * c_holm.p_value))
    assert holm.suite.adjusted_p_value == pytest.approx(min(1.0, 2 * holm.suite.p_value))
    with pytest.raises(ValueError):
        compare_runs(base, cand, correction="sidak")


@pytest.mark.parametrize("bad", [{"a": (3, 2)}, {"a": (0, 0)}, {"a": (-1, 4)}])
def test_invalid_counts_raise(bad):
    with pytest.raises(ValueError):
        compare_runs(bad, {"a": (1, 2)})


def test_result_is_json_serialisable():
    r = compare_runs(_stable_suite(5), _stable_suite(5))
    doc = json.loads(json.dumps(dataclasses.asdict(r)))
    assert doc["passed"] is True and len(doc["cases"]) == 5 and doc["suite"]["verdict"] == "unchanged"


def test_pure_noise_rarely_raises_a_false_alarm():
    rng = random.Random(20260101)
    alarms = 0
    sims = 1000
    for s in range(sims):
        k = rng.randint(3, 10)
        base, cand = {}, {}
        for i in range(20):
            p = rng.random()
            base[f"c{i}"] = (_binomial(rng, k, p), k)
            cand[f"c{i}"] = (_binomial(rng, k, p), k)
        # Few bootstrap resamples: the CI does not decide, and it keeps this test fast.
        r = compare_runs(base, cand, seed=s, n_resamples=50)
        alarms += not r.passed
    assert alarms / sims < 0.05, f"{alarms} false alarms in {sims} no-change comparisons"


def test_real_regressions_are_usually_found():
    rng = random.Random(99)
    found = 0
    for s in range(100):
        base, cand = {}, {}
        for i in range(20):
            p = rng.uniform(0.7, 1.0)
            base[f"c{i}"] = (_binomial(rng, 10, p), 10)
            cand[f"c{i}"] = (_binomial(rng, 10, p - 0.25), 10)
        found += not compare_runs(base, cand, seed=s, n_resamples=50).passed
    assert found >= 90


def test_grader_scores_are_compared_per_case_and_grader():
    base = {"a": {"exact": 1.0, "judge": 0.8}, "b": {"exact": 0.5}, "gone": {"exact": 1.0}}
    cand = {"a": {"exact": 0.25, "tools": 1.0}, "b": {"exact": 0.5}, "new": {"exact": 0.0}}
    rows = compare_grader_scores(base, cand)
    assert [(r.case_id, r.grader) for r in rows] == [
        ("a", "exact"),
        ("a", "judge"),
        ("a", "tools"),
        ("b", "exact"),
    ]
    exact_a, judge_a, tools_a, exact_b = rows
    assert (exact_a.baseline_score, exact_a.candidate_score, exact_a.delta) == (1.0, 0.25, -0.75)
    assert (judge_a.candidate_score, judge_a.delta) == (None, None)  # ran in the baseline only
    assert (tools_a.baseline_score, tools_a.delta) == (None, None)
    assert exact_b.delta == 0.0
