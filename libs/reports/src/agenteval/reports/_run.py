"""The run report: a run's per-case figures, totals, flaky cases and a trial plan, as one model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from pydantic import BaseModel, Field

from agenteval.contracts.summary import CaseSummary, RunSummary, TagSummary
from agenteval.stats import ESTIMATES, Estimate, plan_trials, planning_rates

RUN_REPORT_SCHEMA: Final = "agenteval.run_report/v1"

DEFAULT_DROP = 0.10
DEFAULT_POWER = 0.80
DEFAULT_ALPHA = 0.05


class Figures(BaseModel):
    """Figures shared by a case and the run totals."""

    trials: int
    """Trials graded."""
    passes: int
    """Trials that passed every grader."""
    pass_rate: float
    """passes / trials."""
    pass_rate_low: float
    """Lower end of the 95% Wilson interval of the pass rate."""
    pass_rate_high: float
    """Upper end of the 95% Wilson interval."""
    k: int
    """The k of pass_at_k and pass_pow_k (the run's k: the fewest trials of any case)."""
    pass_at_1: float
    """Unbiased pass@1 (equal to the pass rate for a case; the mean over cases in the totals)."""
    pass_at_k: float
    """Unbiased pass@k: chance that at least one of k trials passes (mean over cases in the totals)."""
    pass_pow_k: float
    """Unbiased pass^k: chance that all k trials pass (mean over cases in the totals)."""
    latency_p50_ms: float
    """Median trial latency."""
    latency_p95_ms: float
    """95th percentile of trial latency."""
    latency_p99_ms: float
    """99th percentile of trial latency."""
    input_tokens: int
    output_tokens: int
    cost_usd: float
    cost_unknown_trials: int = 0
    """Trials whose agent's tokens could not all be priced (no model named, or one missing from
    the price table): ``cost_usd`` leaves those tokens out."""
    errors: int
    """Trials whose agent raised."""
    timeouts: int
    """Trials that ran out of time."""
    grader_scores: dict[str, float] = Field(default_factory=dict)
    """Mean score per grader (in the totals: the mean over the cases that ran the grader)."""


class _CaseKey(BaseModel):
    case_id: str


class CaseFigures(Figures, _CaseKey):
    """The figures of one case."""

    # _CaseKey is the last base so pydantic (which collects fields from the far end of
    # the MRO) puts case_id first in the JSON.
    flaky: bool = False
    """Some trials passed and some failed."""


class _TagKey(BaseModel):
    tag: str


class TagFigures(Figures, _TagKey):
    """The figures of the cases carrying one tag (pass@k, pass^k: means over those cases)."""

    cases: int
    """Number of cases with the tag."""


class RunTotals(Figures):
    """The run as a whole."""

    cases: int
    """Number of cases."""
    flaky_cases: int
    """Number of flaky cases."""


class PlannedCase(BaseModel):
    """Trials one case needs, planned from its pass rate in this run."""

    case_id: str
    baseline_rate: float
    """The rate the case is planned at (see the plan's `estimate`)."""
    observed_rate: float | None = None
    """The case's pass rate in the run, when planned from a run."""
    trials: int | None
    """Trials per case, in each of the two runs compared; None when the drop cannot happen."""
    note: str = ""
    """Why trials is None."""


ESTIMATE_TEXT = {
    "given": "the pass rate given",
    "observed": "each case's observed pass rate",
    "shrunk": "each case's pass rate shrunk toward the suite's (empirical Bayes)",
    "bounded": "for each case, the rate in its 95% Wilson interval that needs the most trials",
}


class TrialPlan(BaseModel):
    """How many trials per case the two tests of `compare` need to catch a drop of `drop`."""

    drop: float
    """The fall in pass rate to detect (0.1 = 10 points)."""
    power: float
    """Chance of detecting it when it happens."""
    alpha: float
    """Significance level of the comparison."""
    n_cases: int
    """Cases the alpha is split over."""
    alpha_per_case: float
    """case_alpha / n_cases: the per-case level at worst (Bonferroni); the plan uses the level
    the discrete Holm correction needs in expectation, which is never lower."""
    recommended_trials: int | None
    """Per-case test: the largest per-case need, to catch any one case falling by `drop`
    (None if no case can drop that far)."""
    current_trials: int | None = None
    """Trials per case in the run the plan is made from (its k), when planned from a run."""
    enough: bool | None = None
    """current_trials >= recommended_trials (None without both)."""
    infeasible: list[str] = Field(default_factory=list)
    """Cases whose pass rate is below the drop: no number of trials detects it."""
    cases: list[PlannedCase] = Field(default_factory=list)
    method: str = "exact power of the one-sided Fisher exact test that compare uses"
    case_alpha: float = 0.0
    """The level compare holds the per-case family to (its share of alpha)."""
    suite_alpha: float = 0.0
    """The level compare holds the suite test to."""
    suite_trials: int | None = None
    """Suite test: trials per case to catch every case falling by `drop` (None: it cannot)."""
    suite_note: str = ""
    """Why suite_trials is None."""
    suite_enough: bool | None = None
    """current_trials >= suite_trials (None without both)."""
    estimate: str = "given"
    """Which rate each case was planned at: given, observed, shrunk or bounded."""


class RunReport(BaseModel):
    """Everything `agent-eval report` shows; its JSON form is this model's dump."""

    schema_: Literal["agenteval.run_report/v1"] = Field(default=RUN_REPORT_SCHEMA, alias="schema")
    """The document's schema and version."""
    run_id: str
    suite: str = ""
    agent: str = ""
    agent_version: str = ""
    k: int = 0
    """The run's k (the fewest trials of any case)."""
    totals: RunTotals
    cases: list[CaseFigures]
    flaky_cases: list[str]
    """Cases where some trials passed and some failed."""
    tags: list[TagFigures] = Field(default_factory=list)
    """The same figures per case tag (a case with several tags counts in each)."""
    graders: list[str]
    """Every grader name seen in the run, sorted: the per-grader score columns."""
    trial_plan: TrialPlan | None
    """Trials needed to detect a drop from this run's pass rates (None for a run without cases)."""

    model_config = {"populate_by_name": True}

    def to_json_dict(self) -> dict:
        """The JSON document (keys as documented on the model, `schema` first)."""
        return self.model_dump(mode="json", by_alias=True)


def _at(table: Mapping[int, float], k: int) -> float:
    if k in table:
        return table[k]
    # A table shorter than k (a case with fewer trials than k): its largest entry.
    return table[max(table)] if table else 0.0


def _common_figures(s: CaseSummary | TagSummary, k: int) -> dict[str, Any]:
    """The figures a case and a tag share, their pass@k and pass^k read at ``k``."""
    return {
        "trials": s.trials,
        "passes": s.passes,
        "pass_rate": s.pass_rate,
        "pass_rate_low": s.pass_rate_low,
        "pass_rate_high": s.pass_rate_high,
        "k": k,
        "pass_at_1": _at(s.pass_at_k, 1),
        "pass_at_k": _at(s.pass_at_k, k),
        "pass_pow_k": _at(s.pass_pow_k, k),
        "latency_p50_ms": s.latency.p50_ms,
        "latency_p95_ms": s.latency.p95_ms,
        "latency_p99_ms": s.latency.p99_ms,
        "input_tokens": s.input_tokens,
        "output_tokens": s.output_tokens,
        "cost_usd": s.cost_usd,
        "cost_unknown_trials": s.cost_unknown_trials,
        "grader_scores": dict(sorted(s.grader_scores.items())),
    }


def _case_figures(c: CaseSummary, k: int) -> CaseFigures:
    case_k = k if 1 <= k <= c.trials else c.trials
    return CaseFigures(
        case_id=c.case_id,
        errors=c.errors,
        timeouts=c.timeouts,
        flaky=c.flaky,
        **_common_figures(c, case_k),
    )


def _tag_figures(t: TagSummary, k: int, cases: list[CaseSummary]) -> TagFigures:
    tagged = [c for c in cases if t.tag in c.tags]
    # The tag's tables run to the fewest trials of its cases, which may be below the run's k.
    tag_k = k if k in t.pass_at_k else max(t.pass_at_k, default=0)
    return TagFigures(
        tag=t.tag,
        errors=sum(c.errors for c in tagged),
        timeouts=sum(c.timeouts for c in tagged),
        cases=t.cases,
        **_common_figures(t, tag_k),
    )


def _mean_scores(cases: list[CaseFigures]) -> dict[str, float]:
    by_grader: dict[str, list[float]] = {}
    for c in cases:
        for name, value in c.grader_scores.items():
            by_grader.setdefault(name, []).append(value)
    return {name: sum(v) / len(v) for name, v in sorted(by_grader.items())}


def trial_plan(
    rates: Mapping[str, float] | None = None,
    drop: float = DEFAULT_DROP,
    power: float = DEFAULT_POWER,
    alpha: float = DEFAULT_ALPHA,
    current_trials: int | None = None,
    *,
    counts: Mapping[str, tuple[int, int]] | None = None,
    estimate: Estimate = "bounded",
    n_cases: int | None = None,
) -> TrialPlan:
    """Trials per case for compare's tests to catch `drop` (agenteval.stats.plan_trials).

    From `rates` (taken as given), or from a run's per-case (passes, trials) `counts`, each
    case then planned at the `estimate` of its rate. `n_cases` plans a suite of that many
    cases all at the one rate given. Raises ValueError for a drop, power or alpha out of range.
    """
    if not 0.0 < drop <= 1.0:
        raise ValueError(f"drop must be in (0, 1], got {drop}")
    if not 0.0 < power < 1.0:
        raise ValueError(f"power must be in (0, 1), got {power}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    observed: dict[str, float] = {}
    highs: dict[str, float] | None = None
    if counts is not None:
        if estimate not in ESTIMATES:
            raise ValueError(f"unknown estimate {estimate!r}; use one of {', '.join(ESTIMATES)}")
        planned, highs = planning_rates(counts, drop, estimate)
        observed = {c: x / n for c, (x, n) in counts.items()}
        used = str(estimate)
    else:
        planned, used = dict(rates or {}), "given"
    if n_cases is not None and len(planned) == 1 and n_cases > 1:
        [(case_id, rate)] = planned.items()
        suite_rates = {f"{case_id}-{i}": rate for i in range(n_cases)}
        plan = plan_trials(suite_rates, drop, power, alpha)
        plan["cases"] = {case_id: plan["cases"][f"{case_id}-0"]}
        plan["infeasible"] = [case_id] if plan["infeasible"] else []
    else:
        plan = plan_trials(planned, drop, power, alpha, upper_bounds=highs)
    recommended, suite_trials = plan["recommended_trials"], plan["suite_trials"]
    enough = suite_enough = None
    if current_trials is not None:
        enough = None if recommended is None else current_trials >= recommended
        suite_enough = None if suite_trials is None else current_trials >= suite_trials
    return TrialPlan(
        drop=drop,
        power=power,
        alpha=alpha,
        n_cases=n_cases or len(planned),
        alpha_per_case=plan["alpha_per_case"],
        recommended_trials=recommended,
        current_trials=current_trials,
        enough=enough,
        infeasible=list(plan["infeasible"]),
        cases=[
            PlannedCase(
                case_id=case_id,
                baseline_rate=p["p_baseline"],
                observed_rate=observed.get(case_id),
                trials=p["trials"],
                note=p["note"],
            )
            for case_id, p in plan["cases"].items()
        ],
        method=(
            "per case: exact power of the one-sided Fisher test at the level the discrete Holm "
            "correction needs; suite: normal approximation of the paired sign-flip test"
        ),
        case_alpha=plan["case_alpha"],
        suite_alpha=plan["suite_alpha"],
        suite_trials=suite_trials,
        suite_note=plan["suite_note"],
        suite_enough=suite_enough,
        estimate=used,
    )


def run_report(
    summary: RunSummary,
    drop: float = DEFAULT_DROP,
    power: float = DEFAULT_POWER,
    alpha: float = DEFAULT_ALPHA,
    estimate: Estimate = "bounded",
) -> RunReport:
    """The report of one run from its summary; the trial plan starts from its pass counts,
    each case planned at the `estimate` of its rate."""
    k = summary.k or min((c.trials for c in summary.cases), default=0)
    cases = [_case_figures(c, k) for c in summary.cases]
    flaky = [c.case_id for c in cases if c.flaky]
    totals = RunTotals(
        trials=summary.trials,
        passes=summary.passes,
        pass_rate=summary.pass_rate,
        pass_rate_low=summary.pass_rate_low,
        pass_rate_high=summary.pass_rate_high,
        k=k,
        pass_at_1=_at(summary.pass_at_k, 1),
        pass_at_k=_at(summary.pass_at_k, k),
        pass_pow_k=_at(summary.pass_pow_k, k),
        latency_p50_ms=summary.latency.p50_ms,
        latency_p95_ms=summary.latency.p95_ms,
        latency_p99_ms=summary.latency.p99_ms,
        input_tokens=summary.input_tokens,
        output_tokens=summary.output_tokens,
        cost_usd=summary.cost_usd,
        cost_unknown_trials=summary.cost_unknown_trials,
        errors=summary.errors,
        timeouts=summary.timeouts,
        grader_scores=_mean_scores(cases),
        cases=len(cases),
        flaky_cases=len(flaky),
    )
    plan = None
    if cases:
        plan = trial_plan(
            None,
            drop,
            power,
            alpha,
            current_trials=k or None,
            counts={c.case_id: (c.passes, c.trials) for c in cases if c.trials > 0},
            estimate=estimate,
        )
    return RunReport(
        run_id=summary.run_id,
        suite=summary.suite,
        agent=summary.agent,
        agent_version=summary.agent_version,
        k=k,
        totals=totals,
        cases=cases,
        flaky_cases=flaky,
        tags=[_tag_figures(t, k, summary.cases) for t in summary.tags],
        graders=sorted({name for c in cases for name in c.grader_scores}),
        trial_plan=plan,
    )
