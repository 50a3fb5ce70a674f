"""The metrics service's Prometheus instruments (labels: suite, case, agent version, k; never ids)."""

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


def observe_run(summary: RunSummary) -> None:
    suite, version = summary.suite, summary.agent_version
    RUNS_COMPLETED.labels(suite=suite).inc()
    RUN_PASS_RATE.labels(suite=suite, agent_version=version).set(summary.pass_rate)
    RUN_COST.labels(suite=suite, agent_version=version).set(summary.cost_usd)
    for k, v in summary.pass_at_k.items():
        RUN_PASS_AT_K.labels(suite=suite, agent_version=version, k=str(k)).set(v)
    for k, v in summary.pass_pow_k.items():
        RUN_PASS_POW_K.labels(suite=suite, agent_version=version, k=str(k)).set(v)
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
