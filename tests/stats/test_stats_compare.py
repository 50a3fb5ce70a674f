import dataclasses
import json
import random

import pytest

from agenteval.stats import compare_grader_scores, compare_runs, trials_to_flag
from agenteval.stats.compare import gate


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
    holm = compare_runs(base, cand, correction="holm")
    raw = compare_runs(base, cand, correction="none", split_alpha=False)
    c_holm, c_raw = holm.cases[0], raw.cases[0]
    assert c_raw.adjusted_p_value == c_raw.p_value
    # Holm over 5 cases, then divided by the cases' share of alpha (3/4 by default).
    assert c_holm.adjusted_p_value == pytest.approx(min(1.0, 5 * c_holm.p_value / 0.75))
    assert holm.suite.adjusted_p_value == pytest.approx(min(1.0, holm.suite.p_value / 0.25))
    assert (holm.case_alpha, holm.suite_alpha) == pytest.approx((0.0375, 0.0125))
    # The discrete correction: the other four cases (18 passes over 20 trials) cannot reach a
    # p-value below 0.237, far above c0's, so they take no alpha from it.
    discrete = compare_runs(base, cand)
    assert discrete.correction == "discrete-holm"
    assert discrete.cases[0].adjusted_p_value == pytest.approx(c_holm.p_value / 0.75)
    with pytest.raises(ValueError):
        compare_runs(base, cand, correction="sidak")  # type: ignore[arg-type]


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


def test_new_errors_fail_the_comparison_on_their_own_with_counts():
    base = {f"c{i}": (5, 5) for i in range(20)}
    cand = dict(base)
    cand["dead"], base["dead"] = (0, 5), (5, 5)
    cand["slow"], base["slow"] = (4, 5), (4, 5)
    r = compare_runs(
        base,
        cand,
        baseline_errors={"slow": (0, 0)},
        candidate_errors={"dead": (5, 0), "slow": (0, 1)},
    )
    assert [(e.case_id, e.kinds) for e in r.new_errors] == [("dead", ["errors"]), ("slow", ["timeouts"])]
    dead = r.new_errors[0]
    assert (dead.candidate_errors, dead.candidate_trials, dead.baseline_errors) == (5, 5, 0)
    errors = next(x for x in r.reasons if x.check == "errors")
    assert errors.failed and "dead: 5/5 trials error (baseline 0/5)" in errors.message
    assert "slow: 1/5 time out (baseline 0/5)" in errors.message
    assert not r.passed
    # The gate can be told to report them without failing.
    passed, reasons = gate(r, fail_on_new_errors=False)
    assert passed is (not r.regressions and r.suite.verdict != "regressed")
    assert "not gating" in next(x for x in reasons if x.check == "errors").message
    quiet = compare_runs(base, cand, candidate_errors={"dead": (5, 0)}, fail_on_new_errors=False)
    assert quiet.new_errors and not next(x for x in quiet.reasons if x.check == "errors").failed


def test_errors_that_were_already_there_are_not_new_unless_every_trial_errs_now():
    base, cand = {"a": (3, 5), "b": (3, 5)}, {"a": (3, 5), "b": (0, 5)}
    r = compare_runs(
        base, cand, baseline_errors={"a": (2, 0), "b": (2, 0)}, candidate_errors={"a": (2, 0), "b": (5, 0)}
    )
    assert [e.case_id for e in r.new_errors] == ["b"]


def test_a_dead_case_at_k5_is_flagged_when_the_others_cannot_reach_small_p_values():
    # Holm over 20 cases and the alpha split need p < 0.00125; 5/5 -> 0/5 gives 0.004. The
    # other cases (5/5 in both runs) cannot produce any p-value below 1, so they take no alpha.
    base = {f"c{i:02d}": (5, 5) for i in range(20)}
    cand = dict(base)
    cand["c07"] = (0, 5)
    assert compare_runs(base, cand, correction="holm").regressions == []
    r = compare_runs(base, cand)
    assert r.regressions == ["c07"] and not r.passed
    assert r.cases[7].p_value == pytest.approx(1 / 252)
    cases = next(x for x in r.reasons if x.check == "cases")
    assert cases.failed and "c07 5/5 -> 0/5" in cases.message


def test_compare_says_which_cases_cannot_be_flagged_and_how_many_trials_they_need():
    rng = random.Random(4)
    base = {f"c{i:02d}": (_binomial(rng, 3, 0.5), 3) for i in range(20)}
    cand = {c: (_binomial(rng, 3, 0.5), 3) for c in base}
    base["c00"], base["c01"] = (3, 3), (0, 3)
    r = compare_runs(base, cand)
    # At k = 3 the best a case can show is 3/3 -> 0/3, p = 1/20 > the per-case level 0.0375.
    assert set(r.unflaggable) == set(base)
    c0 = r.cases[0]
    assert not c0.flaggable and c0.min_p_value == pytest.approx(0.05)
    assert c0.trials_to_flag == trials_to_flag(1.0, 20, 0.0375) == r.min_trials_to_flag
    assert r.min_trials_to_flag is not None and r.min_trials_to_flag > 3
    # 1 / C(2n, n) < 0.0375 / 20 first at n = 6.
    assert r.min_trials_to_flag == 6
    note = next(n for n in r.notes if "cannot be flagged" in n)
    assert note.startswith("20 cases of 20 cannot be flagged by the per-case test")
    assert "from 6 trials per run" in note
    # A case that never passed in the baseline cannot regress: no number of trials helps.
    assert r.cases[1].trials_to_flag is None
    assert next(x for x in r.reasons if x.check == "cases").message.endswith(
        "20 of 20 cannot be flagged at these trial counts"
    )


def test_removed_and_added_cases_are_notes_and_different_suites_are_loud():
    base = {"a": (5, 5), "b": (5, 5), "gone": (5, 5)}
    cand = {"a": (5, 5), "b": (5, 5), "new": (0, 5)}
    r = compare_runs(base, cand, baseline_suite="s1", candidate_suite="s2", changed_cases={"b"})
    assert r.suites_differ and (r.baseline_suite, r.candidate_suite) == ("s1", "s2")
    assert r.changed_cases == ["b"] and r.cases[1].definition_changed
    notes = "\n".join(r.notes)
    assert notes.startswith("SUITES DIFFER")
    assert "1 case removed (in the baseline only, not compared): gone" in notes
    assert "1 case added (in the candidate only, not compared): new" in notes
    assert "1 case changed definition" in notes
    same = compare_runs(base, cand, baseline_suite="s1", candidate_suite="s1")
    assert not same.suites_differ


def test_reasons_say_why_it_passed():
    r = compare_runs(_stable_suite(5), _stable_suite(5))
    assert r.passed and [x.check for x in r.reasons] == ["cases", "suite", "errors"]
    assert not any(x.failed for x in r.reasons)
    assert r.reasons[0].message.startswith("no case regressed")
    assert r.reasons[1].message == "suite pass rate 0.0 points: no fall"
    assert r.reasons[2].message == "no case newly errors or times out"
    doc = json.loads(json.dumps(dataclasses.asdict(r)))
    assert doc["reasons"][0]["check"] == "cases" and doc["case_alpha"] == pytest.approx(0.0375)
