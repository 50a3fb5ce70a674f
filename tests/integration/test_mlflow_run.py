"""With MLFLOW_TRACKING_URI set, a completed run is logged to MLflow with its transcripts as traces."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.metrics.mlflow_export import experiment_name
from agenteval.sdk import Client

SUITE = Suite.model_validate(
    {
        "name": "mlflow-e2e",
        "cases": [
            {"id": f"c{i}", "input": "hi", "graders": [{"output_contains": {"text": "HI"}}]} for i in range(2)
        ],
    }
)


async def test_completed_run_is_logged_to_mlflow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    async with EmbeddedStack(tmp_path / "d") as stack, Client(stack.target) as client:
        run = await client.submit(SUITE, agent="python:tests.agents:echo_tool", k=2, agent_version="v7")
        [ev async for ev in client.watch(run.run_id)]
    # stopping the stack waits for the background export

    from mlflow.tracking import MlflowClient

    ml = MlflowClient(tracking_uri=uri)
    exp = ml.get_experiment_by_name(experiment_name("mlflow-e2e"))
    assert exp is not None
    [logged] = ml.search_runs([exp.experiment_id])
    assert logged.data.params["agent_version"] == "v7"
    assert logged.data.metrics["pass_rate"] == 1.0
    assert logged.data.metrics["pass_at_k_2"] == 1.0
    traces = ml.search_traces(locations=[exp.experiment_id], run_id=logged.info.run_id)
    assert len(traces) == 4
    span_types = {s.span_type for t in traces for s in t.data.spans}
    assert "TOOL" in span_types
