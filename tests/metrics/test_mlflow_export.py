"""MLflow logging of a finished run, against a local SQLite tracking store."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agenteval.contracts.summary import CaseSummary, LatencySummary, RunSummary
from agenteval.contracts.trace import Message, Step, Trace, TrialError, Usage
from agenteval.metrics.mlflow_export import RUN_ID_TAG, experiment_name, log_run, metric_key


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One tracking store for the module: creating its schema is the slow part."""
    root = tmp_path_factory.mktemp("mlflow")
    with pytest.MonkeyPatch.context() as mp:
        # A SQLite store puts artifacts under ./mlruns; keep them in the temp dir.
        mp.chdir(root)
        mp.delenv("MLFLOW_TRACKING_URI", raising=False)
        # Not mlflow.db: that is MLflow's default URI in the cwd, which would hide a leaked setting.
        yield f"sqlite:///{root}/tracking.db"


def _summary(run_id: str, suite: str = "checkout") -> RunSummary:
    return RunSummary(
        run_id=run_id,
        suite=suite,
        agent="examples.agents:shop",
        agent_version="v2",
        k=2,
        trials=4,
        passes=3,
        pass_rate=0.75,
        pass_at_k={1: 0.75, 2: 1.0},
        pass_pow_k={1: 0.75, 2: 0.5},
        latency=LatencySummary(p50_ms=120.0, p95_ms=300.0, p99_ms=410.0),
        input_tokens=1200,
        output_tokens=340,
        cost_usd=0.042,
        cases=[
            CaseSummary(case_id="refund/over limit", trials=2, passes=1, pass_rate=0.5, flaky=True),
            CaseSummary(case_id="refund_over_limit", trials=2, passes=2, pass_rate=1.0),
        ],
    )


def _transcripts() -> list[dict[str, Any]]:
    ok = Trace(
        input=[Message(role="user", content="refund order 7")],
        steps=[
            Step(type="llm_call", model="claude-x", input_tokens=50, output_tokens=12, latency_ms=40.0),
            Step(
                type="tool_call", name="lookup_order", arguments={"id": 7}, result={"total": 30}, latency_ms=5
            ),
            Step(type="tool_call", name="refund", arguments={"id": 7}, error="over limit", latency_ms=3.0),
            Step(type="message", role="assistant", content="I cannot refund that."),
        ],
        output="I cannot refund that.",
        usage=Usage(input_tokens=50, output_tokens=12),
        latency_ms=60.0,
        metadata={"case_id": "refund/over limit"},
    )
    failed = Trace(
        input=[Message(role="user", content="refund order 8")],
        steps=[Step(type="tool_call", name="lookup_order", arguments={"id": 8}, result=None, latency_ms=2.0)],
        status="error",
        error=TrialError(code="agent_error", message="KeyError: 'total'"),
        latency_ms=10.0,
        metadata={"case_id": "refund_over_limit"},
    )
    return [ok.to_eval_dict(), failed.to_eval_dict()]


@pytest.fixture(scope="module")
def logged(store: str) -> str:
    run_id = log_run(_summary("run-1"), _transcripts(), tracking_uri=store, report_markdown="# Run 1\n")
    assert run_id, "log_run returned no MLflow run id"
    return run_id


def test_run_has_params_and_metrics(store: str, logged: str) -> None:
    from mlflow import MlflowClient

    run = MlflowClient(store).get_run(logged)
    assert run.info.status == "FINISHED"
    assert run.data.tags[RUN_ID_TAG] == "run-1"
    assert run.data.params == {
        "suite": "checkout",
        "agent": "examples.agents:shop",
        "agent_version": "v2",
        "k": "2",
        "trials": "4",
    }
    m = run.data.metrics
    assert (m["pass_rate"], m["pass_at_k_1"], m["pass_at_k_2"]) == (0.75, 0.75, 1.0)
    assert (m["pass_pow_k_1"], m["pass_pow_k_2"]) == (0.75, 0.5)
    assert (m["latency_p50_ms"], m["latency_p95_ms"], m["latency_p99_ms"]) == (120.0, 300.0, 410.0)
    assert (m["cost_usd"], m["input_tokens"], m["output_tokens"]) == (0.042, 1200.0, 340.0)
    assert m["flaky_cases"] == 1.0
    case_metrics = {k: v for k, v in m.items() if k.startswith("case.")}
    # "refund/over limit" and "refund_over_limit" sanitize alike; both must survive.
    assert len(case_metrics) == 2 and sorted(case_metrics.values()) == [0.5, 1.0]
    assert case_metrics["case.refund_over_limit.pass_rate"] == 0.5


def test_run_is_in_the_suite_experiment(store: str, logged: str) -> None:
    from mlflow import MlflowClient

    client = MlflowClient(store)
    experiment = client.get_experiment(client.get_run(logged).info.experiment_id)
    assert experiment.name == "agenteval/checkout"


def test_summary_and_report_are_artifacts(store: str, logged: str, tmp_path: Path) -> None:
    from mlflow import MlflowClient

    client = MlflowClient(store)
    assert {a.path for a in client.list_artifacts(logged)} == {"summary.json", "report.md"}
    local = Path(client.download_artifacts(logged, "summary.json", str(tmp_path)))
    assert RunSummary.model_validate(json.loads(local.read_text())) == _summary("run-1")
    assert Path(client.download_artifacts(logged, "report.md", str(tmp_path))).read_text() == "# Run 1\n"


def test_transcripts_are_traces_with_tool_and_llm_spans(store: str, logged: str) -> None:
    from mlflow import MlflowClient

    client = MlflowClient(store)
    experiment_id = client.get_run(logged).info.experiment_id
    traces = client.search_traces(locations=[experiment_id], run_id=logged)
    assert len(traces) == 2
    by_case = {t.info.tags["agenteval.case_id"]: t for t in traces}
    ok, failed = by_case["refund/over limit"], by_case["refund_over_limit"]

    assert ok.info.state == "OK" and failed.info.state == "ERROR"
    assert ok.info.tags[RUN_ID_TAG] == "run-1"
    spans = {s.name: s for s in ok.data.spans}
    root = ok.data.spans[0]
    assert root.parent_id is None and root.span_type == "AGENT"
    assert root.outputs == "I cannot refund that."
    assert [e.attributes["role"] for e in root.events if e.name == "message"] == ["assistant"]

    lookup, refund = spans["lookup_order"], spans["refund"]
    assert lookup.span_type == refund.span_type == "TOOL"
    assert lookup.parent_id == root.span_id
    assert (lookup.inputs, lookup.outputs) == ({"id": 7}, {"total": 30})
    assert refund.status.status_code == "ERROR"
    assert (lookup.end_time_ns - lookup.start_time_ns) == 5_000_000

    llm = spans["claude-x"]
    assert llm.span_type == "LLM"
    assert llm.get_attribute("mlflow.chat.tokenUsage")["input_tokens"] == 50
    # Steps are laid end to end: the LLM call ends where the first tool call starts.
    assert llm.end_time_ns == lookup.start_time_ns

    assert [s.span_type for s in failed.data.spans] == ["AGENT", "TOOL"]
    assert any(e.name == "agenteval.error" for e in failed.data.spans[0].events)


@pytest.mark.parametrize("run_id", ["run-dup", "it's-a-run"])
def test_redelivered_run_is_logged_once(store: str, run_id: str) -> None:
    from mlflow import MlflowClient

    first = log_run(_summary(run_id, suite="dedup"), tracking_uri=store)
    again = log_run(_summary(run_id, suite="dedup"), tracking_uri=store)
    assert first and again == first
    client = MlflowClient(store)
    experiment = client.get_experiment_by_name(experiment_name("dedup"))
    runs = client.search_runs([experiment.experiment_id])
    assert [r.info.run_id for r in runs if r.data.tags[RUN_ID_TAG] == run_id] == [first]


async def test_concurrent_calls_from_async_code_via_to_thread(store: str) -> None:
    from mlflow import MlflowClient

    a, b = await asyncio.gather(
        asyncio.to_thread(log_run, _summary("run-a", suite="alpha"), _transcripts(), store),
        asyncio.to_thread(log_run, _summary("run-b", suite="beta"), _transcripts(), store),
    )
    assert a and b and a != b
    client = MlflowClient(store)
    for run_id, suite in ((a, "alpha"), (b, "beta")):
        experiment = client.get_experiment(client.get_run(run_id).info.experiment_id)
        assert experiment.name == f"agenteval/{suite}"


def test_explicit_tracking_uri_leaves_process_setting_alone(store: str) -> None:
    assert "MLFLOW_TRACKING_URI" not in os.environ
    assert log_run(_summary("run-env"), tracking_uri=store)
    assert "MLFLOW_TRACKING_URI" not in os.environ


def test_tracking_uri_from_environment(store: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from mlflow import MlflowClient

    monkeypatch.setenv("MLFLOW_TRACKING_URI", store)
    run_id = log_run(_summary("run-from-env"))
    assert MlflowClient(store).get_run(run_id).data.tags[RUN_ID_TAG] == "run-from-env"


def test_without_tracking_uri_nothing_is_logged(store: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    assert log_run(_summary("run-none")) == ""


def test_failure_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="agenteval.metrics.mlflow_export"):
        assert log_run(_summary("run-bad"), tracking_uri="nosuchscheme://nowhere") == ""
    assert any("run-bad" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    ("name", "key"),
    [("refund/over limit", "refund_over_limit"), ("a.b-c_d", "a.b-c_d"), ("é?", "__"), ("", "_")],
)
def test_metric_key_keeps_only_safe_characters(name: str, key: str) -> None:
    assert metric_key(name) == key


def _graded_transcripts() -> list[dict[str, Any]]:
    """Two trials of one case, as the metrics service fetches them: with index, verdict, grades."""
    docs = []
    for index, passed in ((0, True), (1, False)):
        doc = _transcripts()[0]
        doc["metadata"] = {"case_id": "refund/over limit", "trial_id": f"run-g/refund/{index}"}
        doc["trial_index"] = index
        doc["passed"] = passed
        doc["grades"] = [
            {
                "name": "tool_called",
                "params": {"tool": "refund"},
                "score": 1.0,
                "passed": True,
                "explanation": "refund was called at step 3",
                "error": None,
            },
            {
                "name": "output_contains",
                "params": {"text": "refunded"},
                "score": 1.0 if passed else 0.0,
                "passed": passed,
                "explanation": "found 'refunded'" if passed else "'refunded' not in the output",
                "error": None,
            },
        ]
        docs.append(doc)
    return docs


@pytest.fixture(scope="module")
def graded(store: str) -> str:
    run_id = log_run(_summary("run-g", suite="graded"), _graded_transcripts(), tracking_uri=store)
    assert run_id
    return run_id


def _feedback(trace: Any) -> dict[str, Any]:
    return {a.name: a for a in trace.info.assessments}


def test_every_grader_verdict_is_feedback_on_its_trial_trace(store: str, graded: str) -> None:
    from mlflow import MlflowClient

    client = MlflowClient(store)
    experiment_id = client.get_run(graded).info.experiment_id
    traces = client.search_traces(locations=[experiment_id], run_id=graded)
    by_index = {t.info.tags["agenteval.trial_index"]: t for t in traces}
    assert set(by_index) == {"0", "1"}, "each trial's trace is tagged with its trial index"

    good, bad = _feedback(by_index["0"]), _feedback(by_index["1"])
    assert set(good) == set(bad) == {"tool_called", "output_contains", "passed"}
    assert good["output_contains"].value is True and bad["output_contains"].value is False
    assert bad["output_contains"].rationale == "'refunded' not in the output"
    assert bad["output_contains"].metadata["trial_index"] == "1"
    assert bad["output_contains"].metadata["score"] == "0.0"
    assert json.loads(bad["output_contains"].metadata["params"]) == {"text": "refunded"}
    assert bad["output_contains"].source.source_type == "CODE"
    assert bad["output_contains"].source.source_id == "agenteval:output_contains"
    assert (good["passed"].value, bad["passed"].value) == (True, False)
    assert bad["passed"].rationale == "failed: output_contains"
    assert by_index["1"].info.tags["agenteval.passed"] == "false"


def test_a_grader_that_could_not_run_is_feedback_with_its_error(store: str) -> None:
    from mlflow import MlflowClient

    doc = _graded_transcripts()[1]
    doc["grades"] = [
        {
            "name": "eval_function",
            "params": {"path": "evals/x.py"},
            "score": 0.0,
            "passed": False,
            "explanation": "grader could not run: SandboxError: timed out",
            "error": "SandboxError: timed out",
        }
    ]
    run_id = log_run(_summary("run-err", suite="graded-err"), [doc], tracking_uri=store)
    client = MlflowClient(store)
    [trace] = client.search_traces(locations=[client.get_run(run_id).info.experiment_id], run_id=run_id)
    feedback = _feedback(trace)["eval_function"]
    assert feedback.error is not None and feedback.error.error_message == "SandboxError: timed out"


def test_a_capped_run_says_how_many_traces_it_holds(store: str) -> None:
    from mlflow import MlflowClient

    from agenteval.metrics.mlflow_export import TRACES_CAPPED_TAG, TRACES_LOGGED_TAG, TRACES_TOTAL_TAG

    client = MlflowClient(store)
    capped = log_run(_summary("run-cap", suite="cap"), _transcripts(), tracking_uri=store, trials_total=250)
    tags = client.get_run(capped).data.tags
    assert (tags[TRACES_CAPPED_TAG], tags[TRACES_LOGGED_TAG], tags[TRACES_TOTAL_TAG]) == ("true", "2", "250")
    assert "2 of the run's 250 trials" in tags["mlflow.note.content"]

    whole = log_run(_summary("run-whole", suite="cap"), _transcripts(), tracking_uri=store, trials_total=2)
    tags = client.get_run(whole).data.tags
    assert (tags[TRACES_CAPPED_TAG], tags[TRACES_LOGGED_TAG], tags[TRACES_TOTAL_TAG]) == ("false", "2", "2")
    assert "mlflow.note.content" not in tags


def test_traces_reach_mlflow_when_otlp_export_is_also_configured(
    store: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """OTEL_EXPORTER_OTLP_ENDPOINT (set for agenteval's own spans) once sent MLflow's traces
    to the OTLP collector over a gRPC exporter that is not installed: none reached MLflow."""
    from mlflow import MlflowClient

    from agenteval.runtime.nats_server import free_port

    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{free_port()}")
    with caplog.at_level(logging.WARNING):
        run_id = log_run(_summary("run-otel", suite="otel"), _graded_transcripts(), tracking_uri=store)
    client = MlflowClient(store)
    traces = client.search_traces(locations=[client.get_run(run_id).info.experiment_id], run_id=run_id)
    assert len(traces) == 2
    assert all("output_contains" in _feedback(t) for t in traces)
    assert not [r for r in caplog.records if "OTLP" in r.getMessage() or "otlp" in r.getMessage()]
