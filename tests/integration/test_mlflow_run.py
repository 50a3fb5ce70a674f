"""With MLFLOW_TRACKING_URI set, a completed run is logged to MLflow with its transcripts as traces."""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.metrics.mlflow_export import experiment_name
from agenteval.sdk import Client

ROOT = Path(__file__).resolve().parents[2]

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
    assert logged.data.params["agent"] == "python:tests.agents:echo_tool"
    assert logged.data.metrics["pass_rate"] == 1.0
    assert logged.data.metrics["pass_at_k_2"] == 1.0
    traces = ml.search_traces(locations=[exp.experiment_id], run_id=logged.info.run_id)
    assert len(traces) == 4
    span_types = {s.span_type for t in traces for s in t.data.spans}
    assert "TOOL" in span_types
    # Each trial's trace: its case and index, and every grader's verdict as feedback.
    keys = sorted((t.info.tags["agenteval.case_id"], t.info.tags["agenteval.trial_index"]) for t in traces)
    assert keys == [("c0", "0"), ("c0", "1"), ("c1", "0"), ("c1", "1")]
    for t in traces:
        feedback = {a.name: a for a in t.info.assessments}
        assert feedback["output_contains"].value is True
        assert feedback["output_contains"].metadata["trial_index"] == t.info.tags["agenteval.trial_index"]
        assert feedback["passed"].value is True
    assert logged.data.tags["agenteval.traces_capped"] == "false"


class _Collector(http.server.BaseHTTPRequestHandler):
    """An OTLP/HTTP collector that keeps the paths it was sent to."""

    paths: list[str] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        type(self).paths.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_cli_run_with_mlflow_and_opentelemetry_both_on(tmp_path: Path) -> None:
    """docker-compose sets both: agenteval's spans go to the collector, the transcripts to MLflow,
    and a run with more trials than the trace cap says so in MLflow."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump(SUITE.model_dump(mode="json", exclude_defaults=True)))
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    env = {
        **os.environ,
        "MLFLOW_TRACKING_URI": uri,
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{server.server_port}",
        "AGENTEVAL_METRICS_MLFLOW_MAX_TRACES": "3",
    }
    try:
        proc = subprocess.run(
            [
                *(sys.executable, "-m", "agenteval.cli", "run", str(suite), "-k", "2", "--json"),
                *("--agent", "python:tests.agents:echo_tool", "--data-dir", str(tmp_path / "d")),
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
    finally:
        server.shutdown()
    assert proc.returncode == 0, proc.stderr
    assert "OTLP" not in proc.stderr and "opentelemetry.exporter.otlp.proto.grpc" not in proc.stderr
    assert "/v1/traces" in _Collector.paths, "agenteval's own spans did not reach the collector"

    from mlflow.tracking import MlflowClient

    ml = MlflowClient(tracking_uri=uri)
    exp = ml.get_experiment_by_name(experiment_name("mlflow-e2e"))
    [logged] = ml.search_runs([exp.experiment_id])
    traces = ml.search_traces(locations=[exp.experiment_id], run_id=logged.info.run_id)
    assert len(traces) == 3
    assert all({a.name for a in t.info.assessments} == {"output_contains", "passed"} for t in traces)
    tags = logged.data.tags
    assert (tags["agenteval.traces_capped"], tags["agenteval.traces_logged"]) == ("true", "3")
    assert tags["agenteval.traces_total"] == "4"
