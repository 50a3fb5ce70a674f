"""Every service process exposes /metrics; the exposition parses with Prometheus' own parser."""

from __future__ import annotations

import asyncio
import urllib.request
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client

ROOT = str(Path(__file__).resolve().parents[2])
SUITE = Suite.model_validate(
    {
        "name": "prom",
        "cases": [
            {"id": f"c{i}", "input": "q", "graders": [{"output_contains": {"text": "Q"}}]} for i in range(3)
        ],
    }
)


async def test_metrics_exposed_and_parse(tmp_path: Path) -> None:
    from prometheus_client import REGISTRY

    def stored() -> dict[str, float]:
        return {
            kind: REGISTRY.get_sample_value("agenteval_transcripts_stored_total", {"kind": kind}) or 0.0
            for kind in ("completed", "graded")
        }

    before = stored()  # the registry is the process's: other tests' stacks counted too
    async with EmbeddedStack(tmp_path / "d", metrics_port=0) as stack, Client(stack.target) as client:
        run = await client.submit(SUITE, agent="python:tests.agents:echo_tool", k=4, agent_version="v-prom")
        [ev async for ev in client.watch(run.run_id)]
        assert stack.host is not None and stack.host.metrics_port
        url = f"http://127.0.0.1:{stack.host.metrics_port}/metrics"
        for _ in range(100):  # the transcript store may store the last batch just after completion
            if stored()["graded"] - before["graded"] >= 12:
                break
            await asyncio.sleep(0.1)
        text = urllib.request.urlopen(url, timeout=5).read().decode()  # noqa: ASYNC210 - a test
    families = {f.name: f for f in text_string_to_metric_families(text)}
    for name in (
        "agenteval_runner_trials",
        "agenteval_runner_trial_duration_seconds",
        "agenteval_grader_trials_graded",
        "agenteval_run_pass_rate",
        "agenteval_run_pass_at_k",
        "agenteval_case_pass_rate",
        "agenteval_case_flaky",
        "agenteval_runner_trials_in_flight",
        "agenteval_transcripts_stored",
        "agenteval_transcripts_store_duration_seconds",
    ):
        assert name in families, f"{name} not exported"
    samples = [
        s for s in families["agenteval_run_pass_rate"].samples if s.labels.get("agent_version") == "v-prom"
    ]
    assert samples and samples[0].value == 1.0
    ks = {
        s.labels["k"]
        for s in families["agenteval_run_pass_at_k"].samples
        if s.labels.get("agent_version") == "v-prom"
    }
    # k is bounded to 1, 3, 5, 10 and n (those up to n), not one series per k = 1..n
    assert ks == {"1", "3", "4"}
    after = stored()
    assert {k: after[k] - before[k] for k in after} == {"completed": 12.0, "graded": 12.0}
    # no label carries an id (run or trial ids would explode cardinality)
    for fam in families.values():
        for s in fam.samples:
            assert not any(str(v).startswith("run-") for v in s.labels.values()), s


async def test_a_restarted_metrics_service_exports_the_gauges_it_exported_before(
    tmp_path: Path, nats_url: str
) -> None:
    """Run gauges are set again from the stored summaries at start-up (they were empty until
    the next run completed)."""
    import os
    import subprocess
    import sys

    from agenteval.runtime.nats_server import free_port
    from tests.integration.test_distributed import wait_serving

    data = tmp_path / "d"
    async with EmbeddedStack(data) as stack, Client(stack.target) as client:
        run = await client.submit(
            SUITE, agent="python:tests.agents:echo_tool", k=2, agent_version="v-restored"
        )
        [ev async for ev in client.watch(run.run_id)]
    port, addr = free_port(), f"127.0.0.1:{free_port()}"
    env = {
        **os.environ,
        "AGENTEVAL_DATA_DIR": str(data),
        "AGENTEVAL_NATS_URL": nats_url,
        "AGENTEVAL_BUS_PREFIX": "restored",
        "AGENTEVAL_METRICS_PORT": str(port),
        "PYTHONPATH": ROOT,
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "agenteval.cli", "serve", "metrics", "--address", addr],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        await wait_serving(addr)
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()  # noqa: ASYNC210
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    families = {f.name: f for f in text_string_to_metric_families(text)}
    restored = {
        s.name: s.value
        for name in ("agenteval_run_pass_rate", "agenteval_case_pass_rate")
        for s in families[name].samples
        if s.labels.get("agent_version") == "v-restored"
    }
    assert restored.get("agenteval_run_pass_rate") == 1.0, f"not restored: {restored}"
    assert "agenteval_case_pass_rate" in restored
