"""pass@k / pass^k gauges stay few per version, however many trials a run has."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY

from agenteval.contracts.summary import RunSummary
from agenteval.metrics import instruments
from agenteval.stats import pass_at_k_table, pass_pow_k_table


def summary(n: int, passes: int, suite: str = "bounded") -> RunSummary:
    return RunSummary(
        run_id="r",
        suite=suite,
        agent_version="v1",
        k=n,
        trials=n,
        passes=passes,
        pass_at_k=pass_at_k_table(n, passes),
        pass_pow_k=pass_pow_k_table(n, passes),
    )


def exported(name: str, suite: str) -> dict[str, float]:
    return {
        s.labels["k"]: s.value
        for fam in REGISTRY.collect()
        if fam.name == name
        for s in fam.samples
        if s.labels.get("suite") == suite
    }


@pytest.mark.parametrize(
    ("n", "ks"),
    [
        (0, []),
        (1, [1]),
        (2, [1, 2]),
        (3, [1, 3]),
        (7, [1, 3, 5, 7]),
        (10, [1, 3, 5, 10]),
        (1000, [1, 3, 5, 10, 1000]),
    ],
)
def test_exported_k_are_1_3_5_10_and_n_up_to_n(n: int, ks: list[int]) -> None:
    assert instruments.exported_k(n) == ks


def test_a_thousand_trials_export_five_k_and_a_later_run_drops_the_old_n() -> None:
    big = summary(1000, 400)
    instruments.observe_run(big)
    at_k = exported("agenteval_run_pass_at_k", "bounded")
    pow_k = exported("agenteval_run_pass_pow_k", "bounded")
    assert set(at_k) == set(pow_k) == {"1", "3", "5", "10", "1000"}, "one series per k up to n"
    assert at_k["1"] == pytest.approx(big.pass_at_k[1]) and at_k["1000"] == pytest.approx(1.0)
    assert pow_k["10"] == pytest.approx(big.pass_pow_k[10])

    instruments.observe_run(summary(7, 7))
    assert set(exported("agenteval_run_pass_at_k", "bounded")) == {"1", "3", "5", "7"}
    assert exported("agenteval_run_pass_pow_k", "bounded") == {"1": 1.0, "3": 1.0, "5": 1.0, "7": 1.0}
