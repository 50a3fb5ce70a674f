"""The run report: a run's per-case figures, totals, flaky cases and a trial plan, as one model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from pydantic import BaseModel, Field

from agenteval.contracts.summary import CaseSummary, RunSummary, TagSummary
from agenteval.stats import plan_trials

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
    """The case's pass rate in this run, taken as the baseline."""
    trials: int | None
    """Trials per case, in each of the two runs compared; None when the drop cannot happen."""
    note: str = ""
    """Why trials is None."""


class TrialPlan(BaseModel):
    """How many trials per case detect a drop of `drop` in a case's pass rate."""

    drop: float
    """The fall in pass rate to detect (0.1 = 10 points)."""
    power: float
    """Chance of detecting it when it happens."""
    alpha: float
    """Significance level of the comparison."""
    n_cases: int
    """Cases the alpha is split over."""
    alpha_per_case: float
    """alpha / n_cases: each case is planned at the first step of Holm's correction."""
    recommended_trials: int | None
    """The largest per-case need: run this many trials per case (None if no case can drop that far)."""
    current_trials: int | None = None
    """Trials per case in the run the plan is made from (its k), when planned from a run."""
    enough: bool | None = None
    """current_trials >= recommended_trials (None without both)."""
    infeasible: list[str] = Field(default_factory=list)
    """Cases whose pass rate is below the drop: no number of trials detects it."""
    cases: list[PlannedCase] = Field(default_factory=list)
    method: str = "exact power of the one-sided Fisher exact test that compare uses"


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
    rates: Mapping[str, float],
    drop: float = DEFAULT_DROP,
    power: float = DEFAULT_POWER,
    alpha: float = DEFAULT_ALPHA,
    current_trials: int | None = None,
) -> TrialPlan:
    """Trials per case to detect `drop` in each case's pass rate (agenteval.stats.plan_trials).

    Raises ValueError for a drop, power or alpha out of range.
    """
    if not 0.0 < drop <= 1.0:
        raise ValueError(f"drop must be in (0, 1], got {drop}")
    if not 0.0 < power < 1.0:
        raise ValueError(f"power must be in (0, 1), got {power}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    plan = plan_trials(rates, drop, power, alpha)
    recommended = plan["recommended_trials"]
    enough = None
    if recommended is not None and current_trials is not None:
        enough = current_trials >= recommended
    return TrialPlan(
        drop=drop,
        power=power,
        alpha=alpha,
        n_cases=len(rates),
        alpha_per_case=plan["alpha_per_case"],
        recommended_trials=recommended,
        current_trials=current_trials,
        enough=enough,
        infeasible=list(plan["infeasible"]),
        cases=[
            PlannedCase(case_id=case_id, baseline_rate=p["p_baseline"], trials=p["trials"], note=p["note"])
            for case_id, p in plan["cases"].items()
        ],
    )


def run_report(
    summary: RunSummary,
    drop: float = DEFAULT_DROP,
    power: float = DEFAULT_POWER,
    alpha: float = DEFAULT_ALPHA,
) -> RunReport:
    """The report of one run from its summary; the trial plan uses its pass rates as baseline."""
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
        errors=summary.errors,
        timeouts=summary.timeouts,
        grader_scores=_mean_scores(cases),
        cases=len(cases),
        flaky_cases=len(flaky),
    )
    plan = None
    if cases:
        plan = trial_plan(
            {c.case_id: c.pass_rate for c in cases}, drop, power, alpha, current_trials=k or None
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
