"""The metrics service's Prometheus instruments (labels: suite, case, agent version; never ids)."""

from prometheus_client import Counter, Gauge

from agenteval.contracts.summary import RunSummary

RUNS_COMPLETED = Counter("agenteval_metrics_runs_completed_total", "Runs completed", ["suite"])
RUN_PASS_RATE = Gauge("agenteval_run_pass_rate", "Pass rate of the latest run", ["suite", "agent_version"])
CASE_PASS_RATE = Gauge(
    "agenteval_case_pass_rate", "Pass rate of a case in the latest run", ["suite", "case", "agent_version"]
)


def observe_run(summary: RunSummary) -> None:
    RUNS_COMPLETED.labels(suite=summary.suite).inc()
    RUN_PASS_RATE.labels(suite=summary.suite, agent_version=summary.agent_version).set(summary.pass_rate)
    for case in summary.cases:
        CASE_PASS_RATE.labels(
            suite=summary.suite, case=case.case_id, agent_version=summary.agent_version
        ).set(case.pass_rate)
