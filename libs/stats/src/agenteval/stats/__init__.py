"""Statistics for non-deterministic agents: pure functions, standard library only.

pass@k / pass^k estimators, Wilson intervals, latency percentiles, exact and paired
tests, multiple-testing corrections, regression comparison of two runs, trial planning,
flakiness and token cost.
"""

from agenteval.stats.compare import (
    CaseComparison,
    Comparison,
    GraderDelta,
    SuiteComparison,
    compare_grader_scores,
    compare_runs,
)
from agenteval.stats.cost import PRICES_ENV, active_prices, cost_usd, known_model, load_prices
from agenteval.stats.flaky import RunSpread, flake_rate_across_runs, flaky_cases
from agenteval.stats.intervals import wilson_interval
from agenteval.stats.latency import latency_summary, percentile
from agenteval.stats.multiple import benjamini_hochberg, bonferroni, holm_bonferroni
from agenteval.stats.normal import normal_cdf, normal_ppf
from agenteval.stats.paired import paired_bootstrap_ci, paired_permutation_test
from agenteval.stats.passk import pass_at_k, pass_at_k_table, pass_pow_k, pass_pow_k_table
from agenteval.stats.power import detection_power, plan_trials, trials_needed
from agenteval.stats.prices import DEFAULT_PRICES, PRICES_VERSION, ModelPrice
from agenteval.stats.tests_exact import fisher_exact

__all__ = [
    "DEFAULT_PRICES",
    "PRICES_ENV",
    "PRICES_VERSION",
    "CaseComparison",
    "Comparison",
    "GraderDelta",
    "ModelPrice",
    "RunSpread",
    "SuiteComparison",
    "active_prices",
    "benjamini_hochberg",
    "bonferroni",
    "compare_grader_scores",
    "compare_runs",
    "cost_usd",
    "detection_power",
    "fisher_exact",
    "flake_rate_across_runs",
    "flaky_cases",
    "holm_bonferroni",
    "known_model",
    "latency_summary",
    "load_prices",
    "normal_cdf",
    "normal_ppf",
    "paired_bootstrap_ci",
    "paired_permutation_test",
    "pass_at_k",
    "pass_at_k_table",
    "pass_pow_k",
    "pass_pow_k_table",
    "percentile",
    "plan_trials",
    "trials_needed",
    "wilson_interval",
]
