"""The comparison report: a Comparison (as CompareRuns returns it) with a status line for people."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final, Literal

from pydantic import BaseModel, Field, ValidationError

from agenteval.reports._format import count, points
from agenteval.stats import Comparison

COMPARISON_REPORT_SCHEMA: Final = "agenteval.comparison_report/v1"

Verdict = Literal["regressed", "improved", "unchanged"]

CORRECTION_NAMES = {
    "holm": "Holm-Bonferroni",
    "bh": "Benjamini-Hochberg",
    "bonferroni": "Bonferroni",
    "none": "no correction",
}


class ReportError(ValueError):
    """A comparison document that does not have the shape of agenteval.stats.Comparison."""


class RunRef(BaseModel):
    """One side of the comparison."""

    run_id: str = ""
    agent_version: str = ""
    suite: str = ""


class CaseDelta(BaseModel):
    """One case present in both runs (agenteval.stats.CaseComparison)."""

    case_id: str
    baseline_passes: int
    baseline_trials: int
    candidate_passes: int
    candidate_trials: int
    baseline_rate: float
    candidate_rate: float
    delta: float
    """candidate_rate - baseline_rate."""
    p_value: float
    """One-sided Fisher exact p-value in the direction of the change (1.0 when delta = 0)."""
    adjusted_p_value: float
    """p_value adjusted across cases (correction), then for the alpha split with the suite test."""
    verdict: Verdict


class SuiteDelta(BaseModel):
    """The suite over the cases present in both runs (agenteval.stats.SuiteComparison)."""

    n_cases: int
    """Cases in both runs."""
    baseline_rate: float = 0.0
    """Mean of the baseline's per-case pass rates over those cases."""
    candidate_rate: float = 0.0
    """Mean of the candidate's per-case pass rates over those cases."""
    mean_delta: float
    """Mean per-case delta (= candidate_rate - baseline_rate)."""
    ci_low: float
    """Lower end of the paired bootstrap CI of mean_delta."""
    ci_high: float
    confidence: float
    """Confidence level of the CI."""
    p_value: float
    """One-sided paired sign-flip permutation p-value in the direction of mean_delta."""
    adjusted_p_value: float
    """p_value after the alpha split with the per-case family."""
    verdict: Verdict
    test: str = "paired sign-flip permutation test on per-case pass-rate deltas"


class GraderScoreDelta(BaseModel):
    """One grader's mean score on one case in both runs (agenteval.stats.GraderDelta)."""

    case_id: str
    grader: str
    baseline_score: float | None
    """None when the grader did not run on the case in the baseline."""
    candidate_score: float | None
    delta: float | None
    """candidate_score - baseline_score; None unless the grader ran in both runs."""


class GraderSummaryDelta(BaseModel):
    """One grader over the cases that ran it in both runs."""

    grader: str
    cases: int
    """Cases in both runs on which the grader ran in both."""
    baseline_score: float
    """Mean over those cases of the baseline's mean score."""
    candidate_score: float
    delta: float
    """candidate_score - baseline_score."""


class ComparisonReport(BaseModel):
    """Everything `agent-eval compare` shows; its JSON form is this model's dump."""

    schema_: Literal["agenteval.comparison_report/v1"] = Field(
        default=COMPARISON_REPORT_SCHEMA, alias="schema"
    )
    """The document's schema and version."""
    status: Literal["PASSED", "FAILED"]
    """FAILED when the suite or any case regressed."""
    headline: str
    """The one-line verdict, e.g. 'FAILED: 2 regressions'."""
    passed: bool
    baseline: RunRef
    candidate: RunRef
    threshold: float
    """Smallest fall in pass rate that counts as a regression."""
    alpha: float
    """Significance level."""
    correction: str
    """Multiple-testing correction across cases: holm, bh, bonferroni or none."""
    split_alpha: bool
    """The per-case family and the suite test share alpha (adjusted p-values doubled)."""
    suite: SuiteDelta
    cases: list[CaseDelta]
    """Cases in both runs, in the comparison's order."""
    regressions: list[str]
    improvements: list[str]
    added: list[str]
    """Cases only in the candidate run (not tested)."""
    removed: list[str]
    """Cases only in the baseline run (not tested)."""
    graders: list[GraderSummaryDelta] = Field(default_factory=list)
    """Per grader, mean scores over the cases that ran it in both runs (scores do not decide)."""
    grader_scores: list[GraderScoreDelta] = Field(default_factory=list)
    """Per case in both runs and grader in either, both mean scores and the delta."""
    notes: list[str] = Field(default_factory=list)

    model_config = {"populate_by_name": True}

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON document (keys as documented on the model, `schema` first)."""
        return self.model_dump(mode="json", by_alias=True)


def headline(passed: bool, suite: SuiteDelta, regressions: list[str], improvements: list[str]) -> str:
    """'FAILED: 2 regressions', 'FAILED: suite pass rate -12.0 points', 'PASSED: no regressions, 1 improvement'."""
    if not passed:
        parts = []
        if regressions:
            parts.append(count(len(regressions), "regression"))
        if suite.verdict == "regressed":
            parts.append(f"suite pass rate {points(suite.mean_delta)} points")
        return "FAILED: " + (", ".join(parts) or "regressed")
    if suite.n_cases == 0:
        return "PASSED: no case is in both runs, nothing was compared"
    parts = ["no regressions"]
    if improvements:
        parts.append(count(len(improvements), "improvement"))
    if suite.verdict == "improved":
        parts.append(f"suite pass rate {points(suite.mean_delta)} points")
    return "PASSED: " + ", ".join(parts)


def _grader_summaries(rows: list[GraderScoreDelta]) -> list[GraderSummaryDelta]:
    paired: dict[str, list[GraderScoreDelta]] = {}
    for r in rows:
        if r.baseline_score is not None and r.candidate_score is not None:
            paired.setdefault(r.grader, []).append(r)
    out = []
    for grader, group in sorted(paired.items()):
        n = len(group)
        base = sum(r.baseline_score or 0.0 for r in group) / n
        cand = sum(r.candidate_score or 0.0 for r in group) / n
        out.append(
            GraderSummaryDelta(
                grader=grader, cases=n, baseline_score=base, candidate_score=cand, delta=cand - base
            )
        )
    return out


def comparison_report(
    comparison: Mapping[str, Any] | Comparison,
    baseline: Mapping[str, Any] | None = None,
    candidate: Mapping[str, Any] | None = None,
) -> ComparisonReport:
    """The report of a comparison: CompareRuns' `comparison_json` (parsed), or a Comparison.

    `baseline`/`candidate` ({run_id, agent_version, suite}) override those in the document.
    Raises ReportError when the document lacks a Comparison's fields.
    """
    doc = dataclasses.asdict(comparison) if isinstance(comparison, Comparison) else dict(comparison)
    try:
        cases = [CaseDelta.model_validate(c) for c in doc.get("cases", [])]
        grader_rows = [GraderScoreDelta.model_validate(g) for g in doc.get("grader_scores", [])]
        suite_doc = dict(doc["suite"])
        # Comparison carries only the mean delta; the two means it is the difference of
        # are what a reader wants next to it.
        n = len(cases)
        suite_doc.setdefault("baseline_rate", sum(c.baseline_rate for c in cases) / n if n else 0.0)
        suite_doc.setdefault("candidate_rate", sum(c.candidate_rate for c in cases) / n if n else 0.0)
        suite = SuiteDelta.model_validate(suite_doc)
        regressions = [str(c) for c in doc["regressions"]]
        improvements = [str(c) for c in doc["improvements"]]
        passed = bool(doc["passed"])
        return ComparisonReport(
            status="PASSED" if passed else "FAILED",
            headline=headline(passed, suite, regressions, improvements),
            passed=passed,
            baseline=RunRef.model_validate(baseline or doc.get("baseline") or {}),
            candidate=RunRef.model_validate(candidate or doc.get("candidate") or {}),
            threshold=doc["threshold"],
            alpha=doc["alpha"],
            correction=doc.get("correction", "holm"),
            split_alpha=doc.get("split_alpha", True),
            suite=suite,
            cases=cases,
            regressions=regressions,
            improvements=improvements,
            added=[str(c) for c in doc.get("added", [])],
            removed=[str(c) for c in doc.get("removed", [])],
            graders=_grader_summaries(grader_rows),
            grader_scores=grader_rows,
            notes=[str(n) for n in doc.get("notes", [])],
        )
    except (KeyError, TypeError, ValidationError) as exc:
        raise ReportError(f"not a comparison document: {exc}") from None
