"""Log a finished run to MLflow: params, metrics, the summary as an artifact, transcripts as
traces, and every grader's verdict on each trace as an MLflow feedback assessment.

Best effort by design: MLflow is a side channel, so :func:`log_run` logs and returns ``""``
on any failure instead of raising into the metrics service. It blocks (HTTP or SQLite I/O);
call it from async code with ``asyncio.to_thread``. ``mlflow`` is imported on first use
because importing it takes seconds.

Traces always go to the MLflow tracking store: the export names the run's experiment as
MLflow's trace destination for its own context, which MLflow ranks above the OTLP
variables, and builds MLflow's tracer provider with those variables out of sight.
Without that, ``OTEL_EXPORTER_OTLP_ENDPOINT`` (which agenteval's own telemetry uses) makes
MLflow send traces and span metrics to the OTLP collector instead, over OTLP/gRPC by
default, whose exporter is not installed: no trace reached MLflow and every span logged a
warning. ``MLFLOW_TRACE_ENABLE_OTLP_DUAL_EXPORT=true`` still asks MLflow for both.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import logging
import os
import re
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from agenteval.contracts.summary import RunSummary
from agenteval.metrics.mlflow_export._traces import PASSED_FEEDBACK, RUN_ID_TAG, log_feedback, log_trace

if TYPE_CHECKING:
    from mlflow import MlflowClient

__all__ = [
    "PASSED_FEEDBACK",
    "RUN_ID_TAG",
    "TRACES_CAPPED_TAG",
    "TRACES_LOGGED_TAG",
    "TRACES_TOTAL_TAG",
    "experiment_name",
    "log_run",
    "metric_key",
]

_log = logging.getLogger(__name__)

# MLflow's tracing keeps the tracking URI and the tracer provider in process-global state;
# one export at a time keeps two calls with different URIs from crossing.
_lock = threading.Lock()

TRACES_LOGGED_TAG = "agenteval.traces_logged"
"""Tag on the MLflow run: how many of its trials were logged as traces."""
TRACES_TOTAL_TAG = "agenteval.traces_total"
"""Tag on the MLflow run: how many trials the run had."""
TRACES_CAPPED_TAG = "agenteval.traces_capped"
"""Tag on the MLflow run: ``"true"`` when fewer traces were logged than the run had trials."""
_NOTE_TAG = "mlflow.note.content"  # the run's description in the MLflow UI

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
    trials_total: int | None = None,
) -> str:
    """Log ``summary`` (and each transcript as a trace) as one MLflow run; return its run id.

    A transcript is a trace dict (``Trace.to_eval_dict()``) that may also carry
    ``trial_index``, ``passed`` and ``grades`` (``GradeRecord`` dicts): each grade becomes a
    feedback assessment on its trace. ``trials_total`` is how many trials the run had (default
    ``summary.trials``); when fewer transcripts are given, the MLflow run is tagged
    ``agenteval.traces_capped=true`` and its description says how many were logged.

    Does nothing and returns ``""`` when neither ``tracking_uri`` nor ``MLFLOW_TRACKING_URI``
    is set. A run already logged for the same agenteval run id (a redelivered
    run.completed) is not logged twice: its MLflow run id is returned.
    """
    uri = tracking_uri or os.environ.get("MLFLOW_TRACKING_URI", "")
    if not uri:
        return ""
    total = summary.trials if trials_total is None else trials_total
    try:
        with _lock:
            # The trace destination is set for this context only: run in a copy of it.
            return contextvars.copy_context().run(
                _log_run, summary, transcripts or [], uri, report_markdown, max(total, 0)
            )
    except Exception:
        _log.warning("MLflow logging of run %s failed", summary.run_id, exc_info=True)
        return ""


def _log_run(
    summary: RunSummary,
    transcripts: list[dict[str, Any]],
    uri: str,
    report_markdown: str | None,
    trials_total: int,
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
        return _log_to(MlflowClient(tracking_uri=uri), summary, transcripts, report_markdown, trials_total)
    finally:
        if switch:
            # mlflow unsets the URI for None, though its annotation leaves None out.
            mlflow.set_tracking_uri(previous)  # type: ignore[arg-type]


def _log_to(
    client: MlflowClient,
    summary: RunSummary,
    transcripts: list[dict[str, Any]],
    report_markdown: str | None,
    trials_total: int,
) -> str:
    experiment_id = _experiment_id(client, experiment_name(summary.suite))
    if existing := _finished_run(client, experiment_id, summary.run_id):
        return existing

    logged, total = len(transcripts), max(trials_total, len(transcripts))
    tags = {
        RUN_ID_TAG: summary.run_id,
        "agenteval.suite": summary.suite,
        TRACES_LOGGED_TAG: str(logged),
        TRACES_TOTAL_TAG: str(total),
        TRACES_CAPPED_TAG: "true" if logged < total else "false",
    }
    if logged < total:
        tags[_NOTE_TAG] = (
            f"Traces: {logged} of the run's {total} trials are logged here (the cap is "
            "AGENTEVAL_METRICS_MLFLOW_MAX_TRACES); every trial is in agenteval: "
            f"agent-eval trials {summary.run_id}"
        )
    run = client.create_run(
        experiment_id,
        run_name=f"{summary.agent_version or summary.agent or 'run'} {summary.run_id}",
        tags=tags,
    )
    run_id = str(run.info.run_id)
    try:
        _log_params_and_metrics(client, run_id, summary)
        client.log_text(run_id, summary.model_dump_json(indent=2), "summary.json")
        if report_markdown is not None:
            client.log_text(run_id, report_markdown, "report.md")
        if transcripts:
            _log_traces(transcripts, experiment_id, run_id, summary)
    except Exception:
        client.set_terminated(run_id, "FAILED")
        raise
    client.set_terminated(run_id, "FINISHED")
    return run_id


def _log_traces(
    transcripts: list[dict[str, Any]], experiment_id: str, run_id: str, summary: RunSummary
) -> None:
    import mlflow
    from mlflow.entities.trace_location import MlflowExperimentLocation

    # The experiment as destination ranks above the OTLP variables (see the module docstring).
    # MLflow also reads them to push span-duration metrics over OTLP (over gRPC by default, and
    # by replacing the process's meter provider): meaningless for replayed transcripts, so its
    # tracer provider is built with them out of sight.
    with _otlp_hidden():
        mlflow.tracing.set_destination(MlflowExperimentLocation(experiment_id), context_local=True)
        mlflow.tracing.enable()
    trace_ids = [
        log_trace(transcript, index, experiment_id, run_id, summary)
        for index, transcript in enumerate(transcripts)
    ]
    # Assessments attach to traces the store already holds.
    mlflow.flush_trace_async_logging()
    failed = 0
    for trace_id, transcript in zip(trace_ids, transcripts, strict=True):
        try:
            log_feedback(trace_id, transcript)
        except Exception:  # one trace the store lost must not cost the run its other verdicts
            failed += 1
            _log.debug("feedback on MLflow trace %s failed", trace_id, exc_info=True)
    if failed:
        _log.warning(
            "MLflow: the verdicts of %d of %d traces of run %s could not be logged",
            failed,
            len(trace_ids),
            summary.run_id,
        )


_OTLP_ENDPOINTS = (
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
)


@contextlib.contextmanager
def _otlp_hidden() -> Iterator[None]:
    """The OTLP endpoint variables unset for the block, unless MLflow's dual export is asked for.

    A few milliseconds while MLflow builds its tracer provider: agenteval's own OTLP exporter
    read them when it was made, so it is unaffected."""
    if os.environ.get("MLFLOW_TRACE_ENABLE_OTLP_DUAL_EXPORT", "").lower() in ("1", "true"):
        yield
        return
    saved = {name: os.environ.pop(name) for name in _OTLP_ENDPOINTS if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)


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
        "cost_unknown_trials": float(summary.cost_unknown_trials),
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
