"""The comparison report: a Comparison (as CompareRuns returns it) with a status line for people."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final, Literal

from pydantic import BaseModel, Field, ValidationError

from agenteval.reports._format import count, points
from agenteval.stats import Comparison, ErrorChange
from agenteval.stats.compare import errors_reason

COMPARISON_REPORT_SCHEMA: Final = "agenteval.comparison_report/v1"

Verdict = Literal["regressed", "improved", "unchanged"]

CORRECTION_NAMES = {
    "discrete-holm": "discrete Holm (Tarone / Westfall-Wolfinger)",
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
    baseline_errors: int = 0
    """Baseline trials whose agent raised."""
    baseline_timeouts: int = 0
    candidate_errors: int = 0
    candidate_timeouts: int = 0
    min_p_value: float = 1.0
    """The smallest one-sided p-value this case could reach (its candidate at 0 passes)."""
    flaggable: bool = True
    """Whether the per-case test could flag this case at these trial counts, whatever the candidate did."""
    trials_to_flag: int | None = None
    """When not flaggable: trials per run at which a fall to 0 passes would be flagged."""
    definition_changed: bool = False
    """The case's definition differs between the two runs."""


class ErrorDelta(BaseModel):
    """A case whose trials newly error or time out (agenteval.stats.ErrorChange)."""

    case_id: str
    baseline_trials: int
    baseline_errors: int
    baseline_timeouts: int
    candidate_trials: int
    candidate_errors: int
    candidate_timeouts: int
    kinds: list[str]
    """What is new: "errors", "timeouts" or both."""


class ReasonItem(BaseModel):
    """One check and what it found (agenteval.stats.Reason)."""

    check: Literal["cases", "suite", "errors"]
    """cases (per-case tests), suite (suite-level test) or errors (new errors and timeouts)."""
    failed: bool
    """This check fails the comparison."""
    message: str


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
    """FAILED when the suite or any case regressed, or (unless told otherwise) a case newly errors."""
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
    """Multiple-testing correction across cases: discrete-holm, holm, bh, bonferroni or none."""
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
    reasons: list[ReasonItem] = Field(default_factory=list)
    """Why it passed or failed: one entry per check (cases, suite, errors)."""
    new_errors: list[ErrorDelta] = Field(default_factory=list)
    """Cases whose trials newly error or time out."""
    fail_on_new_errors: bool = True
    """New errors and timeouts fail the comparison."""
    case_alpha: float = 0.0
    """Level the per-case family is held to."""
    suite_alpha: float = 0.0
    """Level the suite test is held to."""
    unflaggable: list[str] = Field(default_factory=list)
    """Cases the per-case test cannot flag at these trial counts."""
    min_trials_to_flag: int | None = None
    """Trials per run from which a case going from all passes to none is surely flaggable."""
    baseline_suite: str = ""
    candidate_suite: str = ""
    suites_differ: bool = False
    """The runs are of differently named suites."""
    changed_cases: list[str] = Field(default_factory=list)
    """Shared cases whose definition differs between the runs."""

    model_config = {"populate_by_name": True}

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON document (keys as documented on the model, `schema` first)."""
        return self.model_dump(mode="json", by_alias=True)


def headline(
    passed: bool,
    suite: SuiteDelta,
    regressions: list[str],
    improvements: list[str],
    new_errors: int = 0,
    errors_gate: bool = True,
) -> str:
    """'FAILED: 2 regressions', 'FAILED: suite pass rate -12.0 points, 1 case newly errors',
    'PASSED: no regressions, 1 improvement'."""
    erring = count(new_errors, "case") + (" newly errors" if new_errors == 1 else " newly error")
    if not passed:
        parts = []
        if regressions:
            parts.append(count(len(regressions), "regression"))
        if suite.verdict == "regressed":
            parts.append(f"suite pass rate {points(suite.mean_delta)} points")
        if new_errors and errors_gate:
            parts.append(erring)
        return "FAILED: " + (", ".join(parts) or "regressed")
    if suite.n_cases == 0:
        return "PASSED: no case is in both runs, nothing was compared"
    parts = ["no regressions"]
    if improvements:
        parts.append(count(len(improvements), "improvement"))
    if suite.verdict == "improved":
        parts.append(f"suite pass rate {points(suite.mean_delta)} points")
    if new_errors:
        parts.append(f"{erring} (not gating)")
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


def _gated(
    doc: Mapping[str, Any], new_errors: list[ErrorDelta], fail_on_new_errors: bool | None
) -> tuple[bool, list[ReasonItem], bool]:
    """passed, reasons and the errors gate, with new errors gating as asked (None: as the document says)."""
    reasons = [ReasonItem.model_validate(r) for r in doc.get("reasons", [])]
    gating = bool(doc.get("fail_on_new_errors", True)) if fail_on_new_errors is None else fail_on_new_errors
    if not reasons:  # a document from before the reasons: its verdict stands
        return bool(doc["passed"]), reasons, gating
    changes = [ErrorChange(**e.model_dump()) for e in new_errors]
    again = errors_reason(changes, gating)
    reasons = [
        ReasonItem(check="errors", failed=again.failed, message=again.message) if r.check == "errors" else r
        for r in reasons
    ]
    return not any(r.failed for r in reasons), reasons, gating


def comparison_report(
    comparison: Mapping[str, Any] | Comparison,
    baseline: Mapping[str, Any] | None = None,
    candidate: Mapping[str, Any] | None = None,
    fail_on_new_errors: bool | None = None,
) -> ComparisonReport:
    """The report of a comparison: CompareRuns' `comparison_json` (parsed), or a Comparison.

    `baseline`/`candidate` ({run_id, agent_version, suite}) override those in the document;
    `fail_on_new_errors` decides whether new errors fail it (None: as the document says).
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
        new_errors = [ErrorDelta.model_validate(e) for e in doc.get("new_errors", [])]
        passed, reasons, gating = _gated(doc, new_errors, fail_on_new_errors)
        return ComparisonReport(
            status="PASSED" if passed else "FAILED",
            headline=headline(passed, suite, regressions, improvements, len(new_errors), gating),
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
            reasons=reasons,
            new_errors=new_errors,
            fail_on_new_errors=gating,
            case_alpha=doc.get("case_alpha", 0.0),
            suite_alpha=doc.get("suite_alpha", 0.0),
            unflaggable=[str(c) for c in doc.get("unflaggable", [])],
            min_trials_to_flag=doc.get("min_trials_to_flag"),
            baseline_suite=str(doc.get("baseline_suite", "")),
            candidate_suite=str(doc.get("candidate_suite", "")),
            suites_differ=bool(doc.get("suites_differ", False)),
            changed_cases=[str(c) for c in doc.get("changed_cases", [])],
        )
    except (KeyError, TypeError, ValidationError) as exc:
        raise ReportError(f"not a comparison document: {exc}") from None
