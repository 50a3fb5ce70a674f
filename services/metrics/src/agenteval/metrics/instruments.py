"""The metrics service's Prometheus instruments (labels: suite, case, agent version, k; never ids)."""

from contextlib import suppress

from prometheus_client import Counter, Gauge

from agenteval.contracts.summary import RunSummary

RUNS_COMPLETED = Counter("agenteval_metrics_runs_completed_total", "Runs completed", ["suite"])
RUN_PASS_RATE = Gauge("agenteval_run_pass_rate", "Pass rate of the latest run", ["suite", "agent_version"])
RUN_PASS_AT_K = Gauge("agenteval_run_pass_at_k", "pass@k of the latest run", ["suite", "agent_version", "k"])
RUN_PASS_POW_K = Gauge(
    "agenteval_run_pass_pow_k", "pass^k of the latest run", ["suite", "agent_version", "k"]
)
RUN_COST = Gauge("agenteval_run_cost_usd", "Cost of the latest run in USD", ["suite", "agent_version"])
RUN_LATENCY = Gauge(
    "agenteval_run_latency_seconds",
    "Trial latency percentiles of the latest run",
    ["suite", "agent_version", "quantile"],
)
CASE_PASS_RATE = Gauge(
    "agenteval_case_pass_rate", "Pass rate of a case in the latest run", ["suite", "case", "agent_version"]
)
CASE_FLAKY = Gauge(
    "agenteval_case_flaky", "1 when the case's trials disagreed", ["suite", "case", "agent_version"]
)

# Cases per suite exported at most: a bound on label cardinality.
MAX_CASES = 500

# The k values pass@k / pass^k are exported for, besides n itself: a run with -k 1000 has
# a thousand of each, and one series per k per version would swamp Prometheus. The full
# table stays in the run summary (GetRunSummary, --json, MLflow).
EXPORTED_K = (1, 3, 5, 10)

# k label values last set per (suite, agent version): a new run with another n drops the old n.
_exported_k: dict[tuple[str, str], set[str]] = {}


def exported_k(n: int) -> list[int]:
    """The k of pass@k / pass^k exported for ``n`` trials: 1, 3, 5, 10 and n, those up to n."""
    return sorted({k for k in EXPORTED_K if k <= n} | ({n} if n >= 1 else set()))


def observe_run(summary: RunSummary) -> None:
    suite, version = summary.suite, summary.agent_version
    RUNS_COMPLETED.labels(suite=suite).inc()
    RUN_PASS_RATE.labels(suite=suite, agent_version=version).set(summary.pass_rate)
    RUN_COST.labels(suite=suite, agent_version=version).set(summary.cost_usd)
    ks = [k for k in exported_k(summary.k) if k in summary.pass_at_k and k in summary.pass_pow_k]
    labels = {str(k) for k in ks}
    for stale in _exported_k.get((suite, version), set()) - labels:
        for gauge in (RUN_PASS_AT_K, RUN_PASS_POW_K):
            with suppress(KeyError):
                gauge.remove(suite, version, stale)
    _exported_k[(suite, version)] = labels
    for k in ks:
        RUN_PASS_AT_K.labels(suite=suite, agent_version=version, k=str(k)).set(summary.pass_at_k[k])
        RUN_PASS_POW_K.labels(suite=suite, agent_version=version, k=str(k)).set(summary.pass_pow_k[k])
    for q, v in (
        ("0.5", summary.latency.p50_ms),
        ("0.95", summary.latency.p95_ms),
        ("0.99", summary.latency.p99_ms),
    ):
        RUN_LATENCY.labels(suite=suite, agent_version=version, quantile=q).set(v / 1000.0)
    for case in summary.cases[:MAX_CASES]:
        CASE_PASS_RATE.labels(suite=suite, case=case.case_id, agent_version=version).set(case.pass_rate)
        CASE_FLAKY.labels(suite=suite, case=case.case_id, agent_version=version).set(
            1.0 if case.flaky else 0.0
        )
