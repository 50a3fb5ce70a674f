"""The metrics service's Prometheus instruments (labels: suite, case, agent version, k; never ids)."""

from collections import OrderedDict
from collections.abc import Iterable
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
# Case label values last set per (suite, agent version).
_exported_cases: dict[tuple[str, str], set[str]] = {}

MAX_VERSIONS = 10
"""Agent versions per suite whose series are exported (the most recently completed ones):
each version has ~40 series, and a project that labels every commit would add them for
ever. An older version's series are removed; its numbers stay in the run summaries."""
_versions: dict[str, OrderedDict[str, None]] = {}


def exported_k(n: int) -> list[int]:
    """The k of pass@k / pass^k exported for ``n`` trials: 1, 3, 5, 10 and n, those up to n."""
    return sorted({k for k in EXPORTED_K if k <= n} | ({n} if n >= 1 else set()))


def forget(suite: str, version: str) -> None:
    """Remove every series of ``version`` of ``suite``."""
    for gauge in (RUN_PASS_RATE, RUN_COST):
        with suppress(KeyError):
            gauge.remove(suite, version)
    for k in _exported_k.pop((suite, version), set()):
        for gauge in (RUN_PASS_AT_K, RUN_PASS_POW_K):
            with suppress(KeyError):
                gauge.remove(suite, version, k)
    for q in ("0.5", "0.95", "0.99"):
        with suppress(KeyError):
            RUN_LATENCY.remove(suite, version, q)
    for case in _exported_cases.pop((suite, version), set()):
        for gauge in (CASE_PASS_RATE, CASE_FLAKY):
            with suppress(KeyError):
                gauge.remove(suite, case, version)


def _keep(suite: str, version: str) -> None:
    """``version`` is the suite's newest; the oldest beyond MAX_VERSIONS lose their series."""
    versions = _versions.setdefault(suite, OrderedDict())
    versions[version] = None
    versions.move_to_end(version)
    while len(versions) > MAX_VERSIONS:
        old, _ = versions.popitem(last=False)
        forget(suite, old)


def restore(summaries: Iterable[RunSummary]) -> int:
    """Set the gauges from stored summaries, oldest first (at start-up: a restarted service
    exports what it exported before, not nothing). Counters are not replayed."""
    n = 0
    for summary in summaries:
        observe_run(summary, count=False)
        n += 1
    return n


def observe_run(summary: RunSummary, *, count: bool = True) -> None:
    suite, version = summary.suite, summary.agent_version
    if count:
        RUNS_COMPLETED.labels(suite=suite).inc()
    _keep(suite, version)
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
    cases = {case.case_id for case in summary.cases[:MAX_CASES]}
    for stale in _exported_cases.get((suite, version), set()) - cases:
        for gauge in (CASE_PASS_RATE, CASE_FLAKY):
            with suppress(KeyError):
                gauge.remove(suite, stale, version)
    _exported_cases[(suite, version)] = cases
    for case in summary.cases[:MAX_CASES]:
        CASE_PASS_RATE.labels(suite=suite, case=case.case_id, agent_version=version).set(case.pass_rate)
        CASE_FLAKY.labels(suite=suite, case=case.case_id, agent_version=version).set(
            1.0 if case.flaky else 0.0
        )
