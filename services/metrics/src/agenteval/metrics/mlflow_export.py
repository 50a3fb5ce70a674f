"""Log a finished run to MLflow: params, metrics, the summary as an artifact, transcripts as traces.

Best effort by design: MLflow is a side channel, so :func:`log_run` logs and returns ``""``
on any failure instead of raising into the metrics service. It blocks (HTTP or SQLite I/O);
call it from async code with ``asyncio.to_thread``. ``mlflow`` is imported on first use
because importing it takes seconds.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
import time
from typing import TYPE_CHECKING, Any

from agenteval.contracts.summary import RunSummary

if TYPE_CHECKING:
    from mlflow import MlflowClient
    from mlflow.entities import LiveSpan
    from opentelemetry.util.types import AttributeValue

__all__ = ["RUN_ID_TAG", "experiment_name", "log_run", "metric_key"]

_log = logging.getLogger(__name__)

# MLflow's tracing keeps the tracking URI and the tracer provider in process-global state;
# one export at a time keeps two calls with different URIs from crossing.
_lock = threading.Lock()

RUN_ID_TAG = "agenteval.run_id"
"""Tag on the MLflow run (and its traces) holding the agenteval run id."""

_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]")
_MAX_METRICS_PER_BATCH = 1000  # MLflow's log_batch limit


def experiment_name(suite: str) -> str:
    """The MLflow experiment a suite's runs go to."""
    return f"agenteval/{suite or 'default'}"


def metric_key(name: str) -> str:
    """``name`` with every character MLflow may reject in a metric key replaced by ``_``."""
    return _UNSAFE.sub("_", name) or "_"


def log_run(
    summary: RunSummary,
    transcripts: list[dict[str, Any]] | None = None,
    tracking_uri: str | None = None,
    report_markdown: str | None = None,
) -> str:
    """Log ``summary`` (and each transcript as a trace) as one MLflow run; return its run id.

    Does nothing and returns ``""`` when neither ``tracking_uri`` nor ``MLFLOW_TRACKING_URI``
    is set. A run already logged for the same agenteval run id (a redelivered
    run.completed) is not logged twice: its MLflow run id is returned.
    """
    uri = tracking_uri or os.environ.get("MLFLOW_TRACKING_URI", "")
    if not uri:
        return ""
    try:
        with _lock:
            return _log_run(summary, transcripts or [], uri, report_markdown)
    except Exception:
        _log.warning("MLflow logging of run %s failed", summary.run_id, exc_info=True)
        return ""


def _log_run(
    summary: RunSummary, transcripts: list[dict[str, Any]], uri: str, report_markdown: str | None
) -> str:
    import mlflow
    from mlflow import MlflowClient

    # Traces go out through MLflow's global tracer provider, which follows the global tracking
    # URI: point it at ``uri`` for this call only, then put back what the process had.
    switch = mlflow.get_tracking_uri() != uri
    previous = os.environ.get("MLFLOW_TRACKING_URI")
    if switch:
        mlflow.set_tracking_uri(uri)
    try:
        return _log_to(MlflowClient(tracking_uri=uri), summary, transcripts, report_markdown)
    finally:
        if switch:
            # mlflow unsets the URI for None, though its annotation leaves None out.
            mlflow.set_tracking_uri(previous)  # type: ignore[arg-type]


def _log_to(
    client: MlflowClient, summary: RunSummary, transcripts: list[dict[str, Any]], report_markdown: str | None
) -> str:
    import mlflow

    experiment_id = _experiment_id(client, experiment_name(summary.suite))
    if existing := _finished_run(client, experiment_id, summary.run_id):
        return existing

    run = client.create_run(
        experiment_id,
        run_name=f"{summary.agent_version or summary.agent or 'run'} {summary.run_id}",
        tags={RUN_ID_TAG: summary.run_id, "agenteval.suite": summary.suite},
    )
    run_id = str(run.info.run_id)
    try:
        _log_params_and_metrics(client, run_id, summary)
        client.log_text(run_id, summary.model_dump_json(indent=2), "summary.json")
        if report_markdown is not None:
            client.log_text(run_id, report_markdown, "report.md")
        for index, transcript in enumerate(transcripts):
            _log_trace(transcript, index, experiment_id, run_id, summary)
        if transcripts:
            mlflow.flush_trace_async_logging()
    except Exception:
        client.set_terminated(run_id, "FAILED")
        raise
    client.set_terminated(run_id, "FINISHED")
    return run_id


def _finished_run(client: MlflowClient, experiment_id: str, run_id: str) -> str:
    """The MLflow run already logged for agenteval run ``run_id``, or ``""``."""
    # MLflow's filter syntax has no escapes: quote with the quote the id does not contain.
    quote = next((q for q in "'\"" if q not in run_id), None)
    if quote is None:
        return ""
    runs = client.search_runs(
        [experiment_id],
        filter_string=f"tags.`{RUN_ID_TAG}` = {quote}{run_id}{quote} and attributes.status = 'FINISHED'",
        max_results=1,
    )
    return str(runs[0].info.run_id) if runs else ""


def _experiment_id(client: MlflowClient, name: str) -> str:
    from mlflow.exceptions import MlflowException

    found = client.get_experiment_by_name(name)
    if found is not None:
        return str(found.experiment_id)
    try:
        return str(client.create_experiment(name))
    except MlflowException:
        # Another metrics replica created it between our lookup and create.
        found = client.get_experiment_by_name(name)
        if found is None:
            raise
        return str(found.experiment_id)


def _log_params_and_metrics(client: MlflowClient, run_id: str, summary: RunSummary) -> None:
    from mlflow.entities import Metric, Param

    params = {
        "suite": summary.suite,
        "agent": summary.agent,
        "agent_version": summary.agent_version,
        "k": str(summary.k),
        "trials": str(summary.trials),
    }
    values: dict[str, float] = {
        "pass_rate": summary.pass_rate,
        "pass_rate_low": summary.pass_rate_low,
        "pass_rate_high": summary.pass_rate_high,
        "latency_p50_ms": summary.latency.p50_ms,
        "latency_p95_ms": summary.latency.p95_ms,
        "latency_p99_ms": summary.latency.p99_ms,
        "cost_usd": summary.cost_usd,
        "input_tokens": float(summary.input_tokens),
        "output_tokens": float(summary.output_tokens),
        "errors": float(summary.errors),
        "timeouts": float(summary.timeouts),
        "flaky_cases": float(sum(1 for c in summary.cases if c.flaky)),
    }
    for k, v in sorted(summary.pass_at_k.items()):
        values[f"pass_at_k_{k}"] = v
    for k, v in sorted(summary.pass_pow_k.items()):
        values[f"pass_pow_k_{k}"] = v
    for case in summary.cases:
        key = f"case.{metric_key(case.case_id)}.pass_rate"
        if key in values:
            # Two case ids that sanitize alike must not overwrite each other.
            digest = hashlib.sha1(case.case_id.encode()).hexdigest()[:8]
            key = f"case.{metric_key(case.case_id)}_{digest}.pass_rate"
        values[key] = case.pass_rate

    now = int(time.time() * 1000)
    metrics = [Metric(key, float(v), now, 0) for key, v in values.items()]
    client.log_batch(run_id, params=[Param(k, v) for k, v in params.items()])
    for start in range(0, len(metrics), _MAX_METRICS_PER_BATCH):
        client.log_batch(run_id, metrics=metrics[start : start + _MAX_METRICS_PER_BATCH])


def _log_trace(
    transcript: dict[str, Any], index: int, experiment_id: str, run_id: str, summary: RunSummary
) -> None:
    """One transcript as an MLflow trace: an AGENT root span, a child span per tool/LLM call."""
    import mlflow
    from mlflow.entities import SpanEvent, SpanType
    from mlflow.tracing.constant import TraceMetadataKey

    meta = transcript.get("metadata") or {}
    case_id = str(transcript.get("case_id") or meta.get("case_id") or f"trial-{index}")
    steps: list[dict[str, Any]] = list(transcript.get("steps") or [])
    total_ms = float(transcript.get("latency_ms") or 0.0)
    total_ms = max(total_ms, sum(float(s.get("latency_ms") or 0.0) for s in steps))
    # Traces carry durations but no wall-clock times: lay the steps end to end, ending now.
    start_ns = time.time_ns() - int(total_ms * 1e6)
    tags = {RUN_ID_TAG: summary.run_id, "agenteval.suite": summary.suite, "agenteval.case_id": case_id}
    if "trial_index" in transcript:
        tags["agenteval.trial_index"] = str(transcript["trial_index"])
    # Any JSON values: mlflow hands them to LiveSpan.set_attributes (dict[str, Any]), though
    # start_span_no_context annotates dict[str, str].
    root_attributes: dict[str, Any] = {
        "agenteval.status": transcript.get("status") or "ok",
        "agenteval.latency_ms": total_ms,
        "agenteval.usage": transcript.get("usage") or {},
    }
    root = mlflow.start_span_no_context(
        case_id,
        span_type=SpanType.AGENT,
        inputs={"messages": transcript.get("input") or []},
        attributes=root_attributes,
        tags=tags,
        metadata={TraceMetadataKey.SOURCE_RUN: run_id},
        experiment_id=experiment_id,
        start_time_ns=start_ns,
    )
    cursor = start_ns
    for step in steps:
        duration = int(float(step.get("latency_ms") or 0.0) * 1e6)
        if step.get("type") == "tool_call":
            _step_span(root, step, SpanType.TOOL, str(step.get("name") or "tool"), cursor, duration)
        elif step.get("type") == "llm_call":
            _step_span(root, step, SpanType.LLM, str(step.get("model") or "llm"), cursor, duration)
        else:
            attrs: dict[str, AttributeValue] = {
                "role": str(step.get("role") or ""),
                "content": str(step.get("content") or ""),
            }
            # SpanEvent is concrete at run time: its base marks from_proto abstract without ABCMeta.
            root.add_event(SpanEvent("message", timestamp=cursor, attributes=attrs))  # type: ignore[abstract]
        cursor += duration
    error = transcript.get("error")
    if isinstance(error, dict):
        root.add_event(
            SpanEvent("agenteval.error", attributes={k: str(v) for k, v in error.items()})  # type: ignore[abstract]
        )
    status = "OK" if (transcript.get("status") or "ok") == "ok" else "ERROR"
    root.end(outputs=transcript.get("output"), status=status, end_time_ns=start_ns + int(total_ms * 1e6))


def _step_span(
    root: LiveSpan, step: dict[str, Any], span_type: str, name: str, start_ns: int, duration_ns: int
) -> None:
    import mlflow
    from mlflow.tracing.constant import SpanAttributeKey

    if span_type == "TOOL":
        inputs: Any = step.get("arguments") or {}
        outputs: Any = step.get("result")
        attributes: dict[str, Any] = {}
    else:
        inputs = None
        outputs = step.get("content")
        tokens_in, tokens_out = int(step.get("input_tokens") or 0), int(step.get("output_tokens") or 0)
        attributes = {
            SpanAttributeKey.CHAT_USAGE: {
                "input_tokens": tokens_in,
                "output_tokens": tokens_out,
                "total_tokens": tokens_in + tokens_out,
            },
            "model": step.get("model") or "",
        }
    span = mlflow.start_span_no_context(
        name,
        span_type=span_type,
        parent_span=root,
        inputs=inputs,
        attributes=attributes,
        start_time_ns=start_ns,
    )
    failed = bool(step.get("error"))
    if failed:
        span.set_attribute("error", str(step["error"]))
    span.end(outputs=outputs, status="ERROR" if failed else "OK", end_time_ns=start_ns + duration_ns)
