"""A trial longer than the ack wait is kept by its living runner; a dead runner's trials come back."""

from __future__ import annotations

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client
from tests import agents


async def test_a_trial_longer_than_the_ack_wait_runs_once(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("AGENTEVAL_RUNNER_TRIAL_ACK_WAIT_S", "1")  # in-progress acks every ~0.33 s
    runs = tmp_path / "runs"
    runs.mkdir()
    monkeypatch.setenv(agents.RUNS_DIR, str(runs))
    suite = Suite.model_validate({"name": "long", "cases": [{"id": f"c{i}", "input": "x"} for i in range(3)]})
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        run = await client.submit(suite, agent="python:tests.agents:counted_nap", k=1, timeout_s=20)
        events = [ev async for ev in client.watch(run.run_id)]
    assert events[-1].summary.trials == 3 and events[-1].summary.passes == 3
    assert agents.runs_in(runs) == {"c0": 1, "c1": 1, "c2": 1}, (
        "a running trial was redelivered to another task"
    )
