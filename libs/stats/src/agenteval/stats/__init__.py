"""Statistics for non-deterministic agents: pure functions, standard library only.

pass@k / pass^k estimators, Wilson intervals, latency percentiles, exact and paired
tests, multiple-testing corrections (discrete Holm among them), regression comparison of
two runs, trial planning for the tests compare runs, flakiness tests and token cost.
"""

from agenteval.stats.compare import (
    DEFAULT_CASE_SHARE,
    CaseComparison,
    Comparison,
    ErrorChange,
    GraderDelta,
    Reason,
    SuiteComparison,
    compare_grader_scores,
    compare_runs,
    trials_to_flag,
)
from agenteval.stats.cost import (
    PRICES_ENV,
    active_prices,
    cost_usd,
    known_model,
    load_prices,
    unpriced_tokens,
)
from agenteval.stats.flaky import (
    Homogeneity,
    RunFlakiness,
    RunSpread,
    chi_square_sf,
    flake_rate_across_runs,
    flakiness_across_runs,
    flaky_cases,
    homogeneity_test,
)
from agenteval.stats.intervals import wilson_interval
from agenteval.stats.latency import latency_summary, percentile
from agenteval.stats.multiple import benjamini_hochberg, bonferroni, discrete_holm, holm_bonferroni
from agenteval.stats.normal import normal_cdf, normal_ppf
from agenteval.stats.paired import paired_bootstrap_ci, paired_permutation_test
from agenteval.stats.passk import pass_at_k, pass_at_k_table, pass_pow_k, pass_pow_k_table
from agenteval.stats.plan import (
    ESTIMATES,
    Estimate,
    plan_trials,
    planning_rates,
    shrunk_rates,
    suite_detection_power,
    suite_trials_needed,
)
from agenteval.stats.power import detection_power, trials_needed
from agenteval.stats.prices import DEFAULT_PRICES, PRICES_VERSION, ModelPrice
from agenteval.stats.tests_exact import fisher_exact, fisher_less_levels

__all__ = [
    "DEFAULT_CASE_SHARE",
    "DEFAULT_PRICES",
    "ESTIMATES",
    "PRICES_ENV",
    "PRICES_VERSION",
    "CaseComparison",
    "Comparison",
    "ErrorChange",
    "Estimate",
    "GraderDelta",
    "Homogeneity",
    "ModelPrice",
    "Reason",
    "RunFlakiness",
    "RunSpread",
    "SuiteComparison",
    "active_prices",
    "benjamini_hochberg",
    "bonferroni",
    "chi_square_sf",
    "compare_grader_scores",
    "compare_runs",
    "cost_usd",
    "detection_power",
    "discrete_holm",
    "fisher_exact",
    "fisher_less_levels",
    "flake_rate_across_runs",
    "flakiness_across_runs",
    "flaky_cases",
    "holm_bonferroni",
    "homogeneity_test",
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
    "planning_rates",
    "shrunk_rates",
    "suite_detection_power",
    "suite_trials_needed",
    "trials_needed",
    "trials_to_flag",
    "unpriced_tokens",
    "wilson_interval",
]
