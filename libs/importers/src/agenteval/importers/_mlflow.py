"""MLflow trace JSON (``Trace.to_json()``: MLflow 3 info + spans, and the MLflow 2 shape)."""

from __future__ import annotations

import json
from typing import Any

from agenteval.contracts.trace import Message
from agenteval.importers._assemble import (
    RecordError,
    build_trace,
    imported,
    object_at,
    to_int,
    to_ns,
)
from agenteval.importers._labels import is_label_name, normalize_label
from agenteval.importers._messages import maybe_json, output_text, to_messages
from agenteval.importers._model import ImportedTrace
from agenteval.importers._reader import Record
from agenteval.importers._span_view import SpanEvent, SpanView
from agenteval.importers._spans import assemble_spans

FORMAT = "mlflow"
# Bookkeeping MLflow writes on every trace; the rest of tags and metadata is kept.
_INTERNAL_KEYS = {
    "mlflow.artifactLocation", "mlflow.traceName", "mlflow.traceInputs", "mlflow.traceOutputs",
    "mlflow.trace_schema.version",
}  # fmt: skip


def parse_record(record: Record) -> ImportedTrace:
    doc = record.value
    if not isinstance(doc, dict) or not isinstance(doc.get("info"), dict):
        raise RecordError("expected an MLflow trace: a JSON object with 'info' and 'data'")
    info: dict[str, Any] = doc["info"]
    data = object_at(doc, "data")
    raw_spans = data.get("spans") or []
    if not isinstance(raw_spans, list):
        raise RecordError("'data.spans' must be a list")
    spans = [_span_view(s, i) for i, s in enumerate(raw_spans)]
    tags = _str_dict(info.get("tags"))
    trace_metadata = _str_dict(info.get("trace_metadata", info.get("request_metadata")))
    state = info.get("state", info.get("status"))

    label_value, comment, rater, other_assessments = _assessments(info.get("assessments"))
    if label_value is None:
        label_value = next((v for k, v in tags.items() if is_label_name(k)), None)
    label = normalize_label(label_value)

    if spans:
        parts = assemble_spans(spans)
        message_in, drafts, output, latency = parts.input, parts.drafts, parts.output, parts.latency_ms
        error = parts.error
        unmapped = parts.unmapped
    else:
        message_in, drafts, output, latency, error, unmapped = [], [], None, 0.0, None, []
    if not message_in:
        message_in = _preview_input(info, trace_metadata)
    if output is None:
        output = output_text(
            maybe_json(info.get("response_preview") or trace_metadata.get("mlflow.traceOutputs"))
        )
    if not latency:
        latency = _duration_ms(info)
    if state == "ERROR" and error is None:
        error = "the MLflow trace ended in state ERROR"

    location = object_at(info, "trace_location")
    experiment = (location.get("mlflow_experiment") or {}).get("experiment_id") or info.get("experiment_id")
    source = {
        "format": FORMAT,
        "name": tags.get("mlflow.traceName"),
        "request_time": info.get("request_time", info.get("timestamp_ms")),
        "experiment_id": experiment,
        "client_request_id": info.get("client_request_id"),
        "tags": _leftovers(tags),
        "trace_metadata": _leftovers(trace_metadata),
        "assessments": other_assessments,
        "other_spans": unmapped,
    }
    trace = build_trace(
        input=message_in,
        drafts=drafts,
        output=output,
        latency_ms=latency,
        metadata={"source": {k: v for k, v in source.items() if v not in (None, "", {}, [])}},
        error_message=error,
    )
    return imported(
        trace,
        source_id=info.get("trace_id", info.get("request_id")),
        label=label,
        comment=comment,
        rater=rater,
        source_format=FORMAT,
    )


def _span_view(span: Any, order: int) -> SpanView:
    if not isinstance(span, dict):
        raise RecordError(f"span {order + 1} is not a JSON object")
    attrs = span.get("attributes") or {}
    if not isinstance(attrs, dict):
        raise RecordError(f"span {order + 1} ({span.get('name')!r}): 'attributes' must be an object")
    context = object_at(span, "context")  # MLflow 2
    status = object_at(span, "status")
    code = status.get("code", span.get("status_code"))
    return SpanView(
        span_id=span.get("span_id", context.get("span_id")),
        parent_id=span.get("parent_span_id", span.get("parent_id")) or None,
        name=str(span.get("name") or ""),
        start_ns=to_ns(span.get("start_time_unix_nano", span.get("start_time"))),
        end_ns=to_ns(span.get("end_time_unix_nano", span.get("end_time"))),
        # MLflow stores every attribute value JSON-encoded.
        attributes={str(k): _decode(v) for k, v in attrs.items()},
        events=[
            SpanEvent(str(e.get("name", "")), object_at(e, "attributes"))
            for e in span.get("events") or []
            if isinstance(e, dict)
        ],
        failed=code in ("STATUS_CODE_ERROR", "ERROR", 2),
        status_message=status.get("message", span.get("status_message")) or None,
        order=order,
    )


def _decode(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def _assessments(raw: Any) -> tuple[Any, Any, Any, list[dict[str, Any]]]:
    """(label value, comment, rater, the other assessments): the newest valid human label feedback wins."""
    candidates: list[tuple[bool, str, int, dict[str, Any]]] = []
    others: list[dict[str, Any]] = []
    for i, a in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(a, dict):
            continue
        name = a.get("assessment_name", a.get("name"))
        source = object_at(a, "source")
        raw_feedback = a.get("feedback")
        feedback = raw_feedback if isinstance(raw_feedback, dict) else None
        if a.get("valid") is False:
            continue
        if feedback is not None and "value" in feedback and is_label_name(name):
            human = source.get("source_type") == "HUMAN"
            candidates.append((human, str(a.get("last_update_time", "")), i, a))
            continue
        expectation = object_at(a, "expectation")
        entry = {
            "name": name,
            "value": (feedback or {}).get(
                "value", expectation.get("value", expectation.get("serialized_value"))
            ),
            "kind": "feedback" if feedback is not None else "expectation" if expectation else None,
            "rationale": a.get("rationale"),
            "source_type": source.get("source_type"),
            "source_id": source.get("source_id"),
        }
        others.append({k: v for k, v in entry.items() if v is not None})
    if not candidates:
        return None, None, None, others
    chosen = max(candidates, key=lambda c: c[:3])[3]
    source = object_at(chosen, "source")
    return chosen["feedback"]["value"], chosen.get("rationale"), source.get("source_id"), others


def _preview_input(info: dict[str, Any], trace_metadata: dict[str, Any]) -> list[Message]:
    return to_messages(maybe_json(info.get("request_preview") or trace_metadata.get("mlflow.traceInputs")))


def _duration_ms(info: dict[str, Any]) -> float:
    for key in ("execution_duration_ms", "execution_time_ms"):
        if info.get(key) is not None:
            return float(to_int(info[key]))
    duration = info.get("execution_duration")  # protobuf Duration JSON: "0.038s"
    if isinstance(duration, str) and duration.endswith("s"):
        try:
            return float(duration[:-1]) * 1000.0
        except ValueError:
            return 0.0
    return 0.0


def _str_dict(value: Any) -> dict[str, Any]:
    return {str(k): v for k, v in value.items()} if isinstance(value, dict) else {}


def _leftovers(values: dict[str, Any]) -> dict[str, Any]:
    return {
        k: v
        for k, v in values.items()
        if k not in _INTERNAL_KEYS and not k.startswith("mlflow.trace.") and v not in (None, "")
    }
