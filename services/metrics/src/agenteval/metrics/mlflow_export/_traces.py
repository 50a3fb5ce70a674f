"""One transcript as an MLflow trace, and its graders' verdicts as feedback on it."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from agenteval.contracts.summary import RunSummary

if TYPE_CHECKING:
    from mlflow.entities import LiveSpan
    from opentelemetry.util.types import AttributeValue

RUN_ID_TAG = "agenteval.run_id"
"""Tag on the MLflow run (and its traces) holding the agenteval run id."""
PASSED_FEEDBACK = "passed"
"""Name of the feedback holding a trial's overall verdict (finished and every grader passed)."""
_LLM_JUDGES = frozenset({"llm_rubric", "reasoning_quality", "tool_selection_judge"})


def case_id_of(transcript: dict[str, Any], index: int) -> str:
    meta = transcript.get("metadata") or {}
    return str(transcript.get("case_id") or meta.get("case_id") or f"trial-{index}")


def log_trace(
    transcript: dict[str, Any], index: int, experiment_id: str, run_id: str, summary: RunSummary
) -> str:
    """Log one transcript as an MLflow trace (an AGENT root span, a child span per tool or LLM
    call); return its trace id."""
    import mlflow
    from mlflow.entities import SpanEvent, SpanType
    from mlflow.tracing.constant import TraceMetadataKey

    case_id = case_id_of(transcript, index)
    steps: list[dict[str, Any]] = list(transcript.get("steps") or [])
    total_ms = float(transcript.get("latency_ms") or 0.0)
    total_ms = max(total_ms, sum(float(s.get("latency_ms") or 0.0) for s in steps))
    # Traces carry durations but no wall-clock times: lay the steps end to end, ending now.
    start_ns = time.time_ns() - int(total_ms * 1e6)
    tags = {RUN_ID_TAG: summary.run_id, "agenteval.suite": summary.suite, "agenteval.case_id": case_id}
    if transcript.get("trial_index") is not None:
        tags["agenteval.trial_index"] = str(transcript["trial_index"])
    if transcript.get("passed") is not None:
        tags["agenteval.passed"] = "true" if transcript["passed"] else "false"
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
    return str(root.trace_id)


def log_feedback(trace_id: str, transcript: dict[str, Any]) -> None:
    """Each grader's verdict on the trace as a feedback assessment named after the grader
    (value: passed; rationale: its explanation; metadata: score, params, case and trial
    index), and the trial's own verdict as feedback ``passed``."""
    import mlflow
    from mlflow.entities import AssessmentError, AssessmentSource

    grades: list[dict[str, Any]] = list(transcript.get("grades") or [])
    base = {"case_id": case_id_of(transcript, 0)}
    if transcript.get("trial_index") is not None:
        base["trial_index"] = str(transcript["trial_index"])
    for grade in grades:
        name = str(grade.get("name") or "grader")
        error = grade.get("error")
        mlflow.log_feedback(
            trace_id=trace_id,
            name=name,
            value=bool(grade.get("passed")),
            rationale=str(grade.get("explanation") or "") or None,
            error=AssessmentError(error_code="GRADER_ERROR", error_message=str(error)) if error else None,
            source=AssessmentSource(
                source_type="LLM_JUDGE" if name in _LLM_JUDGES else "CODE", source_id=f"agenteval:{name}"
            ),
            metadata={
                **base,
                "score": repr(float(grade.get("score") or 0.0)),
                "params": json.dumps(grade.get("params") or {}, sort_keys=True, default=str),
            },
        )
    if transcript.get("passed") is not None:
        failed = [str(g.get("name")) for g in grades if not g.get("passed")]
        status = transcript.get("status") or "ok"
        if transcript["passed"]:
            why = "finished and every grader passed"
        elif status != "ok":
            why = f"the trial ended with status {status}"
        else:
            why = "failed: " + ", ".join(failed)
        mlflow.log_feedback(
            trace_id=trace_id,
            name=PASSED_FEEDBACK,
            value=bool(transcript["passed"]),
            rationale=why,
            source=AssessmentSource(source_type="CODE", source_id="agenteval"),
            metadata=base,
        )


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
