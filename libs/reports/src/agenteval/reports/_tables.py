"""The tables of each report as plain text cells, shared by the Markdown and terminal renderers.

Both renderers take their figures from here, so a number reads the same in every format.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from agenteval.reports import _format as f
from agenteval.reports._comparison import (
    CORRECTION_NAMES,
    CaseDelta,
    ComparisonReport,
    GraderScoreDelta,
    RunRef,
)
from agenteval.reports._run import ESTIMATE_TEXT, CaseFigures, Figures, RunReport, TrialPlan

Align = Literal["left", "right"]


@dataclass
class Cells:
    """A table: headers, how each column aligns, body rows and an optional totals row."""

    headers: list[str]
    align: list[Align]
    rows: list[list[str]] = field(default_factory=list)
    total: list[str] | None = None
    verdicts: list[str] = field(default_factory=list)
    """Per body row, the row's verdict (comparison) or pass state (run), for styling."""


def _right(n: int) -> list[Align]:
    """Alignments of ``n`` right-aligned columns."""
    right: Align = "right"
    return [right] * n


def _figure_cells(x: Figures, graders: list[str]) -> list[str]:
    return [
        f"{x.passes}/{x.trials}",
        f.pct(x.pass_rate),
        f.ci(x.pass_rate_low, x.pass_rate_high),
        f.pct(x.pass_at_1),
        f.pct(x.pass_at_k),
        f.pct(x.pass_pow_k),
        f.ms(x.latency_p50_ms),
        f.ms(x.latency_p95_ms),
        f.ms(x.latency_p99_ms),
        f.tokens(x.input_tokens, x.output_tokens),
        f.cost(x.cost_usd, x.cost_unknown_trials),
    ] + [f.score(x.grader_scores.get(g)) for g in graders]


def _case_state(c: CaseFigures) -> str:
    if c.passes == c.trials:
        return "pass"
    return "fail" if c.passes == 0 else "flaky"


def _figure_headers(k: int) -> list[str]:
    """Headers of the figures ``_figure_cells`` gives (before the grader columns)."""
    return [
        "Passes",
        "Pass rate",
        "95% CI",
        "pass@1",
        f"pass@{k}",
        f"pass^{k}",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "Tokens in/out",
        "Cost",
    ]


def run_cells(report: RunReport) -> Cells:
    """Per-case figures of a run, with a totals row."""
    headers = ["Case", *_figure_headers(report.k), "Flaky", *report.graders]
    align: list[Align] = ["left", *_right(11), "left", *_right(len(report.graders))]
    cells = Cells(headers, align)
    for c in report.cases:
        figures = _figure_cells(c, report.graders)
        cells.rows.append([c.case_id, *figures[:11], "yes" if c.flaky else "", *figures[11:]])
        cells.verdicts.append(_case_state(c))
    t = _figure_cells(report.totals, report.graders)
    cells.total = ["Total", *t[:11], f.count(report.totals.flaky_cases, "case"), *t[11:]]
    return cells


def tag_cells(report: RunReport) -> Cells:
    """The same figures per case tag (pass@k and pass^k: means over the tag's cases)."""
    headers = ["Tag", "Cases", *_figure_headers(report.k), *report.graders]
    cells = Cells(headers, ["left", *_right(len(headers) - 1)])
    for t in report.tags:
        cells.rows.append([t.tag, str(t.cases), *_figure_cells(t, report.graders)])
        cells.verdicts.append("pass" if t.passes == t.trials else "fail" if t.passes == 0 else "flaky")
    return cells


def plan_cells(plan: TrialPlan) -> Cells:
    """Trials each case needs, from the rate it is planned at (and the observed one, from a run)."""
    from_run = any(c.observed_rate is not None for c in plan.cases)
    headers = ["Case", *(["Observed"] if from_run else []), "Planned at", "Trials needed"]
    cells = Cells(headers, ["left", *_right(len(headers) - 1)])
    for c in plan.cases:
        observed = [f.pct(c.observed_rate) if c.observed_rate is not None else ""] if from_run else []
        trials = str(c.trials) if c.trials is not None else "n/a"
        cells.rows.append([c.case_id, *observed, f.pct(c.baseline_rate), trials])
        cells.verdicts.append("fail" if c.trials is None else "pass")
    return cells


def _enough(flag: bool | None) -> str:
    return "enough" if flag else "not enough"


def plan_sentence(plan: TrialPlan) -> str:
    """The plan in a few sentences (without markup): both tests compare runs, and the rates used."""
    target = f"To detect a {plan.drop * 100:.1f}-point drop with {plan.power * 100:.0f}% power at alpha {plan.alpha:g}"
    if plan.recommended_trials is None:
        one = "no case's pass rate is high enough for one case to fall that far"
    else:
        per = (
            f", level {plan.case_alpha:.3g} shared by {f.count(plan.n_cases, 'case')}"
            if plan.case_alpha
            else ""
        )
        one = (
            f"one case falling needs {plan.recommended_trials} trials per case in each run "
            f"(per-case test{per})"
        )
    if plan.suite_trials is None:
        every = f"the suite test cannot catch every case falling ({plan.suite_note or 'no case can fall'})"
    else:
        every = f"every case falling needs {plan.suite_trials} (suite test, level {plan.suite_alpha:.3g})"
    text = f"{target}: {one}; {every}."
    if plan.current_trials is not None:
        parts = []
        if plan.enough is not None:
            parts.append(f"{_enough(plan.enough)} for one case")
        if plan.suite_enough is not None:
            parts.append(f"{_enough(plan.suite_enough)} for every case")
        text += f" This run has {plan.current_trials}" + (f" ({', '.join(parts)})" if parts else "") + "."
    if plan.infeasible:
        text += f" {f.count(len(plan.infeasible), 'case')} cannot drop that far."
    if plan.estimate != "given":
        text += f" Planned at {ESTIMATE_TEXT.get(plan.estimate, plan.estimate)}."
    return text


def _plain(text: str) -> str:
    return text


def ref_label(ref: RunRef, mark: Callable[[str], str] = _plain) -> str:
    """'v2 (run run-abc)' or 'run run-abc'; `mark` wraps the names (e.g. in Markdown code)."""
    run = f"run {mark(ref.run_id)}"
    return f"{mark(ref.agent_version)} ({run})" if ref.agent_version else run


def _side(passes: int, trials: int, rate: float) -> str:
    return f"{passes}/{trials} ({f.pct(rate)})"


_VERDICT_ORDER = {"regressed": 0, "improved": 1, "unchanged": 2}


def ordered_cases(report: ComparisonReport) -> list[CaseDelta]:
    """Regressed cases first, then improved, then unchanged; the comparison's order within each."""
    return sorted(report.cases, key=lambda c: _VERDICT_ORDER[c.verdict])


def comparison_cells(report: ComparisonReport, cases: list[CaseDelta] | None = None) -> Cells:
    """Per case: both pass rates, the change, the p-values and the verdict."""
    cells = Cells(
        ["Case", "Baseline", "Candidate", "Change (points)", "p-value", "Adjusted p", "Verdict"],
        ["left", "right", "right", "right", "right", "right", "left"],
    )
    for c in ordered_cases(report) if cases is None else cases:
        cells.rows.append(
            [
                c.case_id,
                _side(c.baseline_passes, c.baseline_trials, c.baseline_rate),
                _side(c.candidate_passes, c.candidate_trials, c.candidate_rate),
                f.points(c.delta),
                f.pvalue(c.p_value),
                f.pvalue(c.adjusted_p_value),
                c.verdict,
            ]
        )
        cells.verdicts.append(c.verdict)
    return cells


def _score_verdict(delta: float | None) -> str:
    if delta is None or round(delta, 2) == 0:
        return "unchanged"
    return "improved" if delta > 0 else "regressed"


def grader_cells(report: ComparisonReport) -> Cells:
    """Per grader: mean score over the cases that ran it in both runs, and the change."""
    cells = Cells(
        ["Grader", "Cases", "Baseline score", "Candidate score", "Change"],
        ["left", "right", "right", "right", "right"],
    )
    for g in report.graders:
        cells.rows.append(
            [
                g.grader,
                str(g.cases),
                f.score(g.baseline_score),
                f.score(g.candidate_score),
                f.score_delta(g.delta),
            ]
        )
        cells.verdicts.append(_score_verdict(g.delta))
    return cells


def changed_grader_scores(report: ComparisonReport) -> list[GraderScoreDelta]:
    """Case/grader pairs whose mean score moved (or ran in one run only), largest fall first."""
    changed = [g for g in report.grader_scores if g.delta is None or _score_verdict(g.delta) != "unchanged"]
    return sorted(changed, key=lambda g: (g.delta is None, g.delta or 0.0))


def grader_case_cells(rows: list[GraderScoreDelta]) -> Cells:
    """Per case and grader: both mean scores and the change ('' where the grader did not run)."""
    cells = Cells(
        ["Case", "Grader", "Baseline score", "Candidate score", "Change"],
        ["left", "left", "right", "right", "right"],
    )
    for g in rows:
        cells.rows.append(
            [
                g.case_id,
                g.grader,
                f.score(g.baseline_score),
                f.score(g.candidate_score),
                f.score_delta(g.delta),
            ]
        )
        cells.verdicts.append(_score_verdict(g.delta))
    return cells


def grader_sentence(report: ComparisonReport, changed: int) -> str:
    """What the grader tables hold (without markup)."""
    unchanged = len(report.grader_scores) - changed
    return (
        "Mean grader scores over the cases that ran the grader in both runs; they are shown, "
        f"they do not decide the verdict. {f.count(changed, 'case/grader score')} changed, "
        f"{unchanged} unchanged."
    )


def suite_sentence(report: ComparisonReport) -> str:
    """The suite-level result in one sentence (without markup)."""
    s = report.suite
    if s.n_cases == 0:
        return "No case is in both runs: nothing was compared."
    return (
        f"Suite pass rate {f.pct(s.baseline_rate)} -> {f.pct(s.candidate_rate)} "
        f"({f.points(s.mean_delta)} points, {s.confidence * 100:.0f}% CI "
        f"{f.points(s.ci_low)} to {f.points(s.ci_high)}) over {f.count(s.n_cases, 'case')}; "
        f"paired test p = {f.pvalue(s.p_value)} (adjusted {f.pvalue(s.adjusted_p_value)}): {s.verdict}."
    )


def compared_sentence(report: ComparisonReport, mark: Callable[[str], str] = _plain) -> str:
    """Which runs were compared, and how many cases moved."""
    return (
        f"Baseline {ref_label(report.baseline, mark)} vs candidate {ref_label(report.candidate, mark)}: "
        f"{f.count(report.suite.n_cases, 'case')} compared, {len(report.regressions)} regressed, "
        f"{len(report.improvements)} improved."
    )


def comparison_method(report: ComparisonReport) -> str:
    """How the verdicts were reached."""
    correction = CORRECTION_NAMES.get(report.correction, report.correction)
    levels = (
        f" The per-case family is held to {report.case_alpha:.3g} and the suite test to "
        f"{report.suite_alpha:.3g} (they share alpha), and adjusted p-values are put on alpha's scale."
        if report.split_alpha and report.case_alpha
        else " The per-case family and the suite test share alpha, so adjusted p-values are doubled."
        if report.split_alpha
        else ""
    )
    errors = (
        " A case whose trials newly error or time out fails the comparison on its own."
        if report.fail_on_new_errors
        else " New errors and timeouts are reported, not gating."
    )
    return (
        f"Method: a case regresses (improves) when its pass rate falls (rises) by more than "
        f"{report.threshold * 100:.1f} points and its one-sided Fisher exact p-value, adjusted across "
        f"cases ({correction}), is below alpha = {report.alpha:g}. The suite verdict applies the same "
        f"bar to the mean per-case change with a {report.suite.test}; its CI is a paired bootstrap "
        f"and does not decide.{levels}{errors} Cases in only one run are not tested."
    )


def reason_lines(report: ComparisonReport) -> list[str]:
    """Why the comparison passed or failed, one line per check (without markup)."""
    return [f"{r.check}: {'FAILED' if r.failed else 'ok'} - {r.message}" for r in report.reasons]


def suites_warning(report: ComparisonReport) -> str | None:
    """The loud line when the runs are of different suites (None when they are not)."""
    if not report.suites_differ:
        return None
    return (
        f"WARNING: different suites: baseline {report.baseline_suite!r}, candidate "
        f"{report.candidate_suite!r}; only cases with the same id were compared."
    )


def run_method(report: RunReport) -> str:
    """What the run report's figures are."""
    return (
        "Pass-rate intervals are 95% Wilson intervals; pass@k (some of k trials pass) and pass^k "
        f"(all k pass) are unbiased estimates from each case's trials, k = {report.k}. Totals of "
        "pass@k and pass^k are means over cases. Trials needed: for one case falling, exact power of "
        "the one-sided Fisher test at the level compare's discrete Holm correction needs; for every "
        "case falling, the paired sign-flip test at the suite's level."
    )
