"""Prometheus series stay bounded: only the newest agent versions of a suite are exported."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY

from agenteval.contracts.summary import CaseSummary, RunSummary
from agenteval.metrics import instruments


def summary(suite: str, version: str, cases: list[str]) -> RunSummary:
    return RunSummary(
        run_id=f"run-{version}",
        suite=suite,
        agent_version=version,
        k=3,
        trials=3 * len(cases),
        pass_rate=0.5,
        pass_at_k={1: 0.5, 3: 0.8},
        pass_pow_k={1: 0.5, 3: 0.2},
        cases=[CaseSummary(case_id=c, trials=3, passes=1, pass_rate=1 / 3) for c in cases],
    )


def versions_exported(suite: str) -> dict[str, set[str]]:
    """Per metric, the agent versions it has series for (suite ``suite``)."""
    out: dict[str, set[str]] = {}
    for family in REGISTRY.collect():
        for sample in family.samples:
            if sample.labels.get("suite") == suite and "agent_version" in sample.labels:
                out.setdefault(sample.name, set()).add(sample.labels["agent_version"])
    return out


def test_only_the_newest_versions_of_a_suite_keep_their_series(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(instruments, "MAX_VERSIONS", 3)
    suite = "bounded-suite"
    for i in range(8):
        instruments.observe_run(summary(suite, f"v{i}", ["a", "b"]))
    exported = versions_exported(suite)
    assert exported, "nothing exported"
    for name, versions in exported.items():
        assert versions == {"v5", "v6", "v7"}, f"{name}: {sorted(versions)}"


def test_a_case_dropped_from_a_version_loses_its_series() -> None:
    suite = "shrinking-suite"
    instruments.observe_run(summary(suite, "v1", ["a", "b", "c"]))
    instruments.observe_run(summary(suite, "v1", ["a"]))
    cases = {
        s.labels["case"]
        for family in REGISTRY.collect()
        for s in family.samples
        if s.name == "agenteval_case_pass_rate" and s.labels.get("suite") == suite
    }
    assert cases == {"a"}


def test_restore_sets_the_gauges_without_counting_runs_again() -> None:
    suite = "restored-suite"
    before = REGISTRY.get_sample_value("agenteval_metrics_runs_completed_total", {"suite": suite}) or 0.0
    assert instruments.restore([summary(suite, "v1", ["a"]), summary(suite, "v2", ["a"])]) == 2
    assert versions_exported(suite)["agenteval_run_pass_rate"] == {"v1", "v2"}
    after = REGISTRY.get_sample_value("agenteval_metrics_runs_completed_total", {"suite": suite}) or 0.0
    assert after == before
