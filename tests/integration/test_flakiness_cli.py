"""agent-eval flakiness: a tested swing of each case's pass rate across repeated runs of one version."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client

ROOT = Path(__file__).resolve().parents[2]

SUITE = Suite.model_validate(
    {
        "name": "flaky-suite",
        "cases": [
            {"id": "coin", "input": "flip", "graders": [{"output_equals": {"value": "heads"}}]},
            {"id": "steady", "input": "hi", "graders": [{"output_contains": {"text": "HI"}}]},
        ],
    }
)


async def test_a_fair_coin_is_non_deterministic_not_flaky_across_runs(tmp_path: Path) -> None:
    async with EmbeddedStack(tmp_path / "d") as stack, Client(stack.target) as client:
        for seed, agent in (
            (1, "python:tests.agents:coin"),
            (2, "python:tests.agents:coin"),
            (3, "python:tests.agents:coin"),
        ):
            run = await client.submit(SUITE, agent=agent, k=6, seed=seed, agent_version="v1")
            [ev async for ev in client.watch(run.run_id)]
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "agenteval.cli",
            "flakiness",
            "--suite",
            "flaky-suite",
            "--agent-version",
            "v1",
            "--json",
            "--server",
            stack.target,
            cwd=ROOT,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    doc = json.loads(out)
    cases = {c["case_id"]: c for c in doc["cases"]}
    assert len(doc["runs"]) == 3
    assert cases["steady"]["spread"] == 0.0 and not cases["steady"]["warn"]
    coin = cases["coin"]
    assert coin["max"] - coin["min"] == coin["spread"]
    # Its rate is 0.5 in every run: whatever the spread, binomial noise explains it.
    assert coin["adjusted_p_value"] >= 0.05 and not coin["warn"], coin
    assert coin["within_run"] and coin["mixed_runs"] >= 1
    assert doc["warnings"] == 0 and doc["test"].startswith("exact conditional test")
