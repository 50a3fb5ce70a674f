"""Reports rendered from a synthetic RunSummary and Comparison: the same figures in every format."""

from __future__ import annotations

import dataclasses
import json

import pytest

from agenteval.contracts.summary import CaseSummary, LatencySummary, RunSummary, TagSummary
from agenteval.reports import (
    ReportError,
    comparison_report,
    render_comparison,
    render_run,
    run_report,
)
from agenteval.stats import (
    compare_grader_scores,
    compare_runs,
    pass_at_k_table,
    pass_pow_k_table,
    plan_trials,
    planning_rates,
    wilson_interval,
)
from tests.reports.tables import markdown_tables, terminal_tables

K = 10


def _case(case_id: str, passes: int, scores: dict[str, float], p50: float, cost: float) -> CaseSummary:
    low, high = wilson_interval(passes, K)
    return CaseSummary(
        case_id=case_id,
        trials=K,
        passes=passes,
        pass_rate=passes / K,
        pass_rate_low=low,
        pass_rate_high=high,
        pass_at_k=pass_at_k_table(K, passes),
        pass_pow_k=pass_pow_k_table(K, passes),
        latency=LatencySummary(p50_ms=p50, p95_ms=p50 * 3, p99_ms=p50 * 4),
        input_tokens=1200 * K,
        output_tokens=80 * K,
        cost_usd=cost,
        grader_scores=scores,
        flaky=0 < passes < K,
    )


@pytest.fixture
def summary() -> RunSummary:
    cases = [
        _case("alpha", 10, {"output_contains": 1.0}, 12.5, 0.0123),
        _case("beta", 7, {"output_contains": 0.7, "eval:x|y": 0.55}, 48.0, 0.0456),
        _case("gamma", 0, {"output_contains": 0.0}, 3.25, 0.0),
    ]
    passes = sum(c.passes for c in cases)
    low, high = wilson_interval(passes, 3 * K)
    return RunSummary(
        run_id="run-abc",
        suite="demo",
        agent="python:x:y",
        agent_version="v7",
        k=K,
        trials=3 * K,
        passes=passes,
        pass_rate=passes / (3 * K),
        pass_rate_low=low,
        pass_rate_high=high,
        pass_at_k={j: sum(c.pass_at_k[j] for c in cases) / 3 for j in range(1, K + 1)},
        pass_pow_k={j: sum(c.pass_pow_k[j] for c in cases) / 3 for j in range(1, K + 1)},
        latency=LatencySummary(p50_ms=12.5, p95_ms=140.0, p99_ms=180.25),
        input_tokens=3600 * K,
        output_tokens=240 * K,
        cost_usd=0.0579,
        cases=cases,
    )


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _expected_run_row(c: dict) -> dict[str, str]:
    """The cells a case (or the totals) must show, written from the JSON document."""
    return {
        "Passes": f"{c['passes']}/{c['trials']}",
        "Pass rate": _pct(c["pass_rate"]),
        "95% CI": f"{_pct(c['pass_rate_low'])}-{_pct(c['pass_rate_high'])}",
        "pass@1": _pct(c["pass_at_1"]),
        f"pass@{K}": _pct(c["pass_at_k"]),
        f"pass^{K}": _pct(c["pass_pow_k"]),
        "p50 ms": f"{c['latency_p50_ms']:.1f}",
        "p95 ms": f"{c['latency_p95_ms']:.1f}",
        "p99 ms": f"{c['latency_p99_ms']:.1f}",
        "Tokens in/out": f"{c['input_tokens']:,}/{c['output_tokens']:,}",
        "Cost": f"${c['cost_usd']:.4f}",
        **{name: f"{score:.2f}" for name, score in c["grader_scores"].items()},
    }


def test_run_report_json_holds_the_summary_figures(summary: RunSummary) -> None:
    doc = json.loads(render_run(run_report(summary), "json"))
    assert doc["schema"] == "agenteval.run_report/v1"
    assert (doc["run_id"], doc["suite"], doc["agent_version"], doc["k"]) == ("run-abc", "demo", "v7", K)
    beta = next(c for c in doc["cases"] if c["case_id"] == "beta")
    assert (beta["passes"], beta["trials"], beta["pass_rate"]) == (7, 10, 0.7)
    assert (beta["pass_rate_low"], beta["pass_rate_high"]) == pytest.approx(wilson_interval(7, 10))
    assert beta["pass_at_k"] == 1.0 and beta["pass_pow_k"] == 0.0  # 3 failures: never 10 in a row
    assert beta["flaky"] is True and beta["grader_scores"] == {"eval:x|y": 0.55, "output_contains": 0.7}
    assert doc["flaky_cases"] == ["beta"]
    assert doc["graders"] == ["eval:x|y", "output_contains"]
    totals = doc["totals"]
    assert (totals["passes"], totals["trials"], totals["cases"], totals["flaky_cases"]) == (17, 30, 3, 1)
    assert totals["pass_pow_k"] == pytest.approx(1 / 3)  # only alpha passes all 10
    # A grader's total is the mean over the cases that ran it.
    assert totals["grader_scores"]["output_contains"] == pytest.approx((1.0 + 0.7 + 0.0) / 3)
    assert totals["grader_scores"]["eval:x|y"] == 0.55


def test_run_report_markdown_and_table_show_the_json_figures(summary: RunSummary) -> None:
    report = run_report(summary)
    doc = json.loads(render_run(report, "json"))
    markdown = render_run(report, "markdown")
    text = render_run(report, "table")
    assert markdown.startswith("## agenteval run report: demo\n")
    assert "**17/30 trials passed** (pass rate 56.7%, 95% CI" in markdown
    for rows in (markdown_tables(markdown)[0], terminal_tables(text)[0]):
        by_case = {r["Case"]: r for r in rows}
        assert set(by_case) == {"alpha", "beta", "gamma", "Total"}
        for case in doc["cases"]:
            row = by_case[case["case_id"]]
            for column, expected in _expected_run_row(case).items():
                assert row[column] == expected, f"{case['case_id']} {column}: {row[column]!r} != {expected!r}"
            assert row["Flaky"] == ("yes" if case["flaky"] else "")
        total = by_case["Total"]
        for column, expected in _expected_run_row(doc["totals"]).items():
            assert total[column] == expected, f"Total {column}: {total[column]!r} != {expected!r}"
        assert by_case["alpha"]["eval:x|y"] == ""  # the grader did not run on alpha


def test_run_report_shows_the_figures_per_tag_in_three_formats(summary: RunSummary) -> None:
    summary.cases[0].tags = ["fast"]
    summary.cases[1].tags = ["fast", "refunds"]
    summary.cases[1].errors = 2
    summary.tags = [
        TagSummary(
            tag="fast",
            cases=2,
            trials=2 * K,
            passes=17,
            pass_rate=0.85,
            pass_rate_low=0.64,
            pass_rate_high=0.95,
            pass_at_k={j: 0.9 for j in range(1, K + 1)},
            pass_pow_k={j: 0.5 for j in range(1, K + 1)},
            latency=LatencySummary(p50_ms=20.0, p95_ms=45.5, p99_ms=47.75),
            input_tokens=2400 * K,
            output_tokens=160 * K,
            cost_usd=0.0579,
            grader_scores={"output_contains": 0.85, "eval:x|y": 0.55},
        ),
        # A tag whose tables stop short of the run's k (here: 5 < 10) shows its largest k.
        TagSummary(
            tag="refunds",
            cases=1,
            trials=5,
            passes=3,
            pass_rate=0.6,
            pass_at_k={j: 0.6 + 0.08 * j for j in range(1, 6)},
            pass_pow_k={j: 0.6**j for j in range(1, 6)},
        ),
    ]
    report = run_report(summary)
    doc = json.loads(render_run(report, "json"))
    fast, refunds = doc["tags"]
    assert (fast["tag"], fast["cases"], fast["passes"], fast["trials"]) == ("fast", 2, 17, 20)
    assert (fast["latency_p99_ms"], fast["errors"], fast["cost_usd"]) == (47.75, 2, 0.0579)
    assert fast["grader_scores"] == {"eval:x|y": 0.55, "output_contains": 0.85}
    assert (refunds["k"], refunds["pass_at_k"]) == (5, pytest.approx(1.0))

    markdown = render_run(report, "markdown")
    assert "\n### By tag\n" in markdown
    for rows in (markdown_tables(markdown)[1], terminal_tables(render_run(report, "table"))[1]):
        by_tag = {r["Tag"]: r for r in rows}
        assert set(by_tag) == {"fast", "refunds"}
        for tag in doc["tags"]:
            row = by_tag[tag["tag"]]
            assert row["Cases"] == str(tag["cases"])
            for column, expected in _expected_run_row(tag).items():
                assert row[column] == expected, f"{tag['tag']} {column}: {row[column]!r} != {expected!r}"


def test_run_report_lists_flaky_cases_and_the_trials_needed(summary: RunSummary) -> None:
    report = run_report(summary)
    counts = {"alpha": (10, 10), "beta": (7, 10), "gamma": (0, 10)}
    # Planned at the rate in each case's 95% interval that needs the most trials (bounded).
    rates, highs = planning_rates(counts, 0.1, "bounded")
    assert rates["beta"] == pytest.approx(0.55) and rates["alpha"] == pytest.approx(0.7225, abs=1e-3)
    expected = plan_trials(rates, 0.1, power=0.8, alpha=0.05, upper_bounds=highs)
    plan = report.trial_plan
    assert plan is not None and plan.estimate == "bounded"
    assert plan.recommended_trials == expected["recommended_trials"]
    assert plan.alpha_per_case == pytest.approx(0.0375 / 3)
    assert {c.case_id: c.observed_rate for c in plan.cases} == {"alpha": 1.0, "beta": 0.7, "gamma": 0.0}
    assert {c.case_id: c.trials for c in plan.cases} == {
        case_id: v["trials"] for case_id, v in expected["cases"].items()
    }
    # 0/10: even its upper bound (27.8%) allows a 10-point drop, so it is planned, not written off.
    assert plan.infeasible == []
    assert plan.current_trials == K and plan.enough is False

    markdown = render_run(report, "markdown")
    assert "### Flaky cases\n\n- `beta`: 7/10 (70.0%)" in markdown
    assert f"one case falling needs {expected['recommended_trials']} trials per case in each run" in markdown
    assert "This run has 10 (not enough for one case" in markdown
    plan_rows = {r["Case"]: r["Trials needed"] for r in markdown_tables(markdown)[1]}
    assert plan_rows == {
        "alpha": str(expected["cases"]["alpha"]["trials"]),
        "beta": str(expected["cases"]["beta"]["trials"]),
        "gamma": str(expected["cases"]["gamma"]["trials"]),
    }
    assert f"needs {expected['recommended_trials']} trials" in render_run(report, "table")


def test_a_larger_drop_needs_fewer_trials(summary: RunSummary) -> None:
    small = run_report(summary, drop=0.1).trial_plan
    large = run_report(summary, drop=0.5).trial_plan
    assert small is not None and large is not None
    assert large.recommended_trials is not None and small.recommended_trials is not None
    assert large.recommended_trials < small.recommended_trials


BASELINE = {"a": (10, 10), "b": (10, 10), "c": (7, 10), "d": (5, 10), "gone": (3, 3)}
CANDIDATE = {"a": (10, 10), "b": (0, 10), "c": (7, 10), "d": (10, 10), "new": (1, 1)}


def _comparison_doc(baseline=BASELINE, candidate=CANDIDATE) -> dict:
    """What CompareRuns returns in comparison_json (the Comparison plus both runs)."""
    doc = dataclasses.asdict(compare_runs(baseline, candidate))
    doc["baseline"] = {"run_id": "run-1", "agent_version": "v1", "suite": "demo"}
    doc["candidate"] = {"run_id": "run-2", "agent_version": "v2", "suite": "demo"}
    return json.loads(json.dumps(doc))


def _expected_comparison_row(c: dict) -> dict[str, str]:
    def p(x: float) -> str:
        return "<0.0001" if x < 0.0001 else f"{x:.4f}"

    change = round(c["delta"] * 100, 1)
    return {
        "Baseline": f"{c['baseline_passes']}/{c['baseline_trials']} ({_pct(c['baseline_rate'])})",
        "Candidate": f"{c['candidate_passes']}/{c['candidate_trials']} ({_pct(c['candidate_rate'])})",
        "Change (points)": "0.0" if change == 0 else f"{change:+.1f}",
        "p-value": p(c["p_value"]),
        "Adjusted p": p(c["adjusted_p_value"]),
        "Verdict": c["verdict"],
    }


def test_comparison_report_in_three_formats_agrees() -> None:
    report = comparison_report(_comparison_doc())
    doc = json.loads(render_comparison(report, "json"))
    assert doc["schema"] == "agenteval.comparison_report/v1"
    assert (doc["status"], doc["passed"], doc["headline"]) == ("FAILED", False, "FAILED: 1 regression")
    assert doc["regressions"] == ["b"] and doc["added"] == ["new"] and doc["removed"] == ["gone"]
    assert doc["suite"]["baseline_rate"] == pytest.approx((1 + 1 + 0.7 + 0.5) / 4)
    assert doc["suite"]["candidate_rate"] == pytest.approx((1 + 0 + 0.7 + 1) / 4)
    assert doc["suite"]["mean_delta"] == pytest.approx(
        doc["suite"]["candidate_rate"] - doc["suite"]["baseline_rate"]
    )

    markdown = render_comparison(report, "markdown")
    lines = markdown.splitlines()
    assert lines[0] == "## agenteval comparison: demo"
    assert lines[2] == "**FAILED: 1 regression**"
    assert "Baseline `v1` (run `run-1`) vs candidate `v2` (run `run-2`): 4 cases compared" in markdown
    assert "Added cases (only in the candidate, not compared): `new`" in markdown
    assert "Removed cases (only in the baseline, not compared): `gone`" in markdown
    assert "_Method: " in markdown and "Fisher exact" in markdown and "discrete Holm" in markdown
    s = doc["suite"]
    assert f"paired test p = {s['p_value']:.4f}" in markdown

    text = render_comparison(report, "table")
    assert text.startswith("FAILED: 1 regression\n")
    for rows in (markdown_tables(markdown)[0], terminal_tables(text)[0]):
        assert rows[0]["Case"] == "b", "regressions come first"
        by_case = {r["Case"]: r for r in rows}
        assert set(by_case) == {"a", "b", "c", "d"}
        for case in doc["cases"]:
            row = by_case[case["case_id"]]
            for column, expected in _expected_comparison_row(case).items():
                assert row[column] == expected, f"{case['case_id']} {column}: {row[column]!r} != {expected!r}"


def test_passing_comparison_says_so_and_counts_improvements() -> None:
    report = comparison_report(_comparison_doc(CANDIDATE, CANDIDATE | {"b": (10, 10)}))
    assert report.passed and report.improvements == ["b"]
    assert report.headline == "PASSED: no regressions, 1 improvement"
    assert "\n**PASSED: no regressions, 1 improvement**\n" in render_comparison(report, "markdown")


def test_a_suite_wide_slide_fails_without_any_single_case_regressing() -> None:
    # Each case alone (10/10 -> 8/10) is not significant; twelve of them together are.
    baseline = {f"c{i}": (10, 10) for i in range(12)}
    candidate = {f"c{i}": (8, 10) for i in range(12)}
    report = comparison_report(_comparison_doc(baseline, candidate))
    assert report.regressions == [] and report.suite.verdict == "regressed"
    assert report.headline == "FAILED: suite pass rate -20.0 points"
    markdown = render_comparison(report, "markdown")
    assert "**FAILED: suite pass rate -20.0 points**" in markdown
    assert "Suite pass rate 100.0% -> 80.0% (-20.0 points" in markdown


def test_many_unchanged_cases_are_folded_under_the_changes() -> None:
    baseline = {f"ok{i:02}": (10, 10) for i in range(12)} | {"broken": (10, 10)}
    candidate = {f"ok{i:02}": (10, 10) for i in range(12)} | {"broken": (0, 10)}
    markdown = render_comparison(comparison_report(_comparison_doc(baseline, candidate)), "markdown")
    changed, unchanged = markdown_tables(markdown)
    assert [r["Case"] for r in changed] == ["broken"]
    assert len(unchanged) == 12
    assert "<details><summary>12 unchanged cases</summary>" in markdown


def test_grader_scores_per_case_and_grader_agree_in_three_formats() -> None:
    doc = _comparison_doc()
    base_scores = {
        "a": {"exact": 1.0, "judge": 0.9},
        "b": {"exact": 1.0},
        "c": {"exact": 0.7},
        "d": {"exact": 0.5},
    }
    cand_scores = {"a": {"exact": 1.0, "judge": 0.6}, "b": {"exact": 0.0}, "c": {"exact": 0.7}, "d": {}}
    doc["grader_scores"] = json.loads(
        json.dumps([dataclasses.asdict(g) for g in compare_grader_scores(base_scores, cand_scores)])
    )
    report = comparison_report(doc)
    js = json.loads(render_comparison(report, "json"))
    # Per grader: the mean over the cases that ran it in both runs (d ran "exact" only in the baseline).
    assert js["graders"] == [
        {
            "grader": "exact",
            "cases": 3,
            "baseline_score": 0.9,
            "candidate_score": pytest.approx(1.7 / 3),
            "delta": pytest.approx(1.7 / 3 - 0.9),
        },
        {
            "grader": "judge",
            "cases": 1,
            "baseline_score": 0.9,
            "candidate_score": 0.6,
            "delta": pytest.approx(-0.3),
        },
    ]
    assert len(js["grader_scores"]) == 5
    expected_changed = {
        ("b", "exact"): ("1.00", "0.00", "-1.00"),
        ("a", "judge"): ("0.90", "0.60", "-0.30"),
        ("d", "exact"): ("0.50", "", ""),
    }
    markdown = render_comparison(report, "markdown")
    text = render_comparison(report, "table")
    assert "### Grader scores" in markdown
    assert "3 case/grader scores changed, 2 unchanged." in markdown
    md_tables, term_tables = markdown_tables(markdown), terminal_tables(text)
    for tables in (md_tables, term_tables):
        graders = {r["Grader"]: r for r in tables[1]}
        assert graders["exact"] == {
            "Grader": "exact",
            "Cases": "3",
            "Baseline score": "0.90",
            "Candidate score": "0.57",
            "Change": "-0.33",
        }
        assert graders["judge"]["Change"] == "-0.30"
        changed = {
            (r["Case"], r["Grader"]): (r["Baseline score"], r["Candidate score"], r["Change"])
            for r in tables[2]
        }
        assert changed == expected_changed
        assert (tables[2][0]["Case"], tables[2][0]["Grader"]) == ("b", "exact"), "largest fall first"


def test_a_document_without_comparison_fields_is_refused() -> None:
    with pytest.raises(ReportError, match="not a comparison document"):
        comparison_report({"cases": [], "passed": True})
    bad_case = _comparison_doc()
    del bad_case["cases"][0]["verdict"]
    with pytest.raises(ReportError):
        comparison_report(bad_case)


def test_unknown_format_is_an_error(summary: RunSummary) -> None:
    with pytest.raises(ValueError, match="unknown report format"):
        render_run(run_report(summary), "html")  # type: ignore[arg-type]


def test_a_run_with_unpriced_trials_says_its_cost_is_unknown_in_three_formats(summary: RunSummary) -> None:
    beta = next(c for c in summary.cases if c.case_id == "beta")
    cases = [c.model_copy(update={"cost_unknown_trials": 2}) if c is beta else c for c in summary.cases]
    partly = summary.model_copy(update={"cost_unknown_trials": 2, "cases": cases})
    report = run_report(partly)
    doc = json.loads(render_run(report, "json"))
    assert doc["totals"]["cost_unknown_trials"] == 2
    assert {c["case_id"]: c["cost_unknown_trials"] for c in doc["cases"]} == {
        "alpha": 0,
        "beta": 2,
        "gamma": 0,
    }
    rows = {r["Case"]: r for r in markdown_tables(render_run(report, "markdown"))[0]}
    assert rows["Total"]["Cost"] == f"${summary.cost_usd:.4f} + unknown for 2 trials"
    assert rows["beta"]["Cost"] == f"${beta.cost_usd:.4f} + unknown for 2 trials"
    assert rows["alpha"]["Cost"].startswith("$") and "unknown" not in rows["alpha"]["Cost"]
    text = render_run(report, "table")  # a narrow table wraps the cell
    assert "unknown for" in text and "2 trials" in text, text
    nothing = run_report(summary.model_copy(update={"cost_unknown_trials": 1, "cost_usd": 0.0}))
    total = {r["Case"]: r for r in markdown_tables(render_run(nothing, "markdown"))[0]}["Total"]
    assert total["Cost"] == "unknown for 1 trial"
