"""OpenTelemetry OTLP JSON (GenAI semantic conventions): spans grouped by traceId, one trace each.

Reads both the OTLP/JSON encoding (hex ids, lowerCamelCase, integer enums) and protobuf's
canonical JSON (base64 ids, enum names, or snake_case field names).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Any

from agenteval.importers._assemble import RecordError, build_trace, imported, to_ns
from agenteval.importers._labels import is_label_name, normalize_label
from agenteval.importers._model import ImportedTrace, ImportProblem
from agenteval.importers._reader import Record
from agenteval.importers._span_view import SpanEvent, SpanView, first
from agenteval.importers._spans import assemble_spans

FORMAT = "otlp"
_HEX_ID = re.compile(r"[0-9a-fA-F]{16}|[0-9a-fA-F]{32}")
_ERROR_CODES = (2, "2", "STATUS_CODE_ERROR", "ERROR")
# Only namespaced keys count on spans below the root, where a bare "label" may mean something else.
_SPAN_LABEL_KEYS = ("agenteval.label", "feedback.rating", "feedback.label")
_LABEL_KEYS = (
    "agenteval.label",
    "label",
    "feedback.rating",
    "feedback.label",
    "user_feedback",
    "rating",
    "feedback",
)
_COMMENT_KEYS = ("agenteval.comment", "feedback.comment", "comment")
_RATER_KEYS = ("agenteval.rater", "feedback.rater", "rater")
# Root attributes already carried by the Trace itself, left out of metadata.
_CONSUMED = {
    "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions",
    *_LABEL_KEYS, *_COMMENT_KEYS, *_RATER_KEYS,
}  # fmt: skip


@dataclass
class _Collected:
    span: SpanView
    resource: dict[str, Any]
    scope: str | None


def parse(records: list[Record]) -> tuple[list[tuple[Record, ImportedTrace]], list[ImportProblem]]:
    problems: list[ImportProblem] = []
    by_trace: dict[str, list[_Collected]] = {}
    first_record: dict[str, Record] = {}
    order = 0
    for record in records:
        try:
            for trace_id, collected in _spans_of(record, problems, order):
                order += 1
                by_trace.setdefault(trace_id, []).append(collected)
                first_record.setdefault(trace_id, record)
        except RecordError as exc:
            problems.append(record.problem(str(exc)))
        except Exception as exc:  # a shape no rule foresaw must not sink the whole file
            problems.append(record.problem(_reason(exc)))
    traces: list[tuple[Record, ImportedTrace]] = []
    for trace_id, spans in by_trace.items():
        record = first_record[trace_id]
        try:
            traces.append((record, _to_imported(trace_id, spans)))
        except Exception as exc:  # one bad trace must not stop the others
            problems.append(record.problem(f"trace {trace_id}: {_reason(exc)}"))
    return traces, problems


def _reason(exc: Exception) -> str:
    return str(exc) if isinstance(exc, ValueError) else f"cannot read it ({type(exc).__name__}: {exc})"


def _spans_of(record: Record, problems: list[ImportProblem], order: int) -> list[tuple[str, _Collected]]:
    doc = record.value
    if not isinstance(doc, dict):
        raise RecordError("expected an OTLP export request (a JSON object with 'resourceSpans')")
    resource_spans = _get(doc, "resourceSpans", "resource_spans")
    if resource_spans is None and ("scopeSpans" in doc or "scope_spans" in doc):
        resource_spans = [doc]
    if not isinstance(resource_spans, list):
        raise RecordError("expected an OTLP export request (a JSON object with 'resourceSpans')")
    found: list[tuple[str, _Collected]] = []
    for rs in resource_spans:
        if not isinstance(rs, dict):
            raise RecordError("an entry of 'resourceSpans' is not a JSON object")
        resource_doc = rs.get("resource")
        resource = attributes(resource_doc.get("attributes")) if isinstance(resource_doc, dict) else {}
        scope_spans = _get(rs, "scopeSpans", "scope_spans", "instrumentationLibrarySpans") or []
        for ss in scope_spans if isinstance(scope_spans, list) else []:
            if not isinstance(ss, dict):
                continue
            scope = _get(ss, "scope", "instrumentationLibrary") or {}
            scope_name = scope.get("name") if isinstance(scope, dict) else None
            for span in ss.get("spans") or []:
                try:
                    trace_id, view = _span_view(span, order + len(found))
                except (RecordError, TypeError, ValueError, AttributeError) as exc:
                    name = span.get("name") if isinstance(span, dict) else None
                    problems.append(record.problem(f"span {name or '(unnamed)'!r} skipped: {exc}"))
                    continue
                found.append((trace_id, _Collected(view, resource, scope_name)))
    if not found and not problems:
        raise RecordError("the OTLP export request holds no spans")
    return found


def _span_view(span: Any, order: int) -> tuple[str, SpanView]:
    if not isinstance(span, dict):
        raise RecordError("not a JSON object")
    trace_id = otlp_id(_get(span, "traceId", "trace_id"))
    if not trace_id:
        raise RecordError("it has no traceId")
    status = span.get("status") or {}
    events = [
        SpanEvent(str(e.get("name", "")), attributes(e.get("attributes")))
        for e in span.get("events") or []
        if isinstance(e, dict)
    ]
    view = SpanView(
        span_id=otlp_id(_get(span, "spanId", "span_id")),
        parent_id=otlp_id(_get(span, "parentSpanId", "parent_span_id")),
        name=str(span.get("name") or ""),
        start_ns=to_ns(_get(span, "startTimeUnixNano", "start_time_unix_nano")),
        end_ns=to_ns(_get(span, "endTimeUnixNano", "end_time_unix_nano")),
        attributes=attributes(span.get("attributes")),
        events=events,
        failed=status.get("code") in _ERROR_CODES if isinstance(status, dict) else False,
        status_message=(status.get("message") or None) if isinstance(status, dict) else None,
        order=order,
    )
    return trace_id, view


def _to_imported(trace_id: str, collected: list[_Collected]) -> ImportedTrace:
    seen: set[str] = set()
    unique: list[_Collected] = []
    for c in collected:  # the same span exported twice counts once
        if c.span.span_id is None or c.span.span_id not in seen:
            seen.add(c.span.span_id or "")
            unique.append(c)
    spans = [c.span for c in unique]
    parts = assemble_spans(spans)
    root = next(c for c in unique if c.span is parts.root)
    label_value, comment, rater = _label_source(parts.root, spans)
    label = normalize_label(label_value)
    source = {
        "format": FORMAT,
        "root_span": parts.root.name,
        "resource": root.resource,
        "scope": root.scope,
        "attributes": {k: v for k, v in parts.root.attributes.items() if k not in _CONSUMED},
        "other_spans": parts.unmapped,
    }
    trace = build_trace(
        input=parts.input,
        drafts=parts.drafts,
        output=parts.output,
        latency_ms=parts.latency_ms,
        metadata={"source": {k: v for k, v in source.items() if v not in (None, {}, [])}},
        error_message=parts.error,
    )
    return imported(
        trace, source_id=trace_id, label=label, comment=comment, rater=rater, source_format=FORMAT
    )


def _label_source(root: SpanView, spans: list[SpanView]) -> tuple[Any, Any, Any]:
    """The label with its comment and rater: root attributes first, then any span, then evaluation events."""
    for span in [root, *(s for s in spans if s is not root)]:
        value = first(span.attributes, *(_LABEL_KEYS if span is root else _SPAN_LABEL_KEYS))
        if value is not None:
            return value, first(span.attributes, *_COMMENT_KEYS), first(span.attributes, *_RATER_KEYS)
    for span in spans:
        for event in span.events:
            a = event.attributes
            if event.name == "gen_ai.evaluation.result" and is_label_name(a.get("gen_ai.evaluation.name")):
                value = first(a, "gen_ai.evaluation.score.label", "gen_ai.evaluation.score.value")
                return value, a.get("gen_ai.evaluation.explanation"), None
    return None, None, None


def attributes(raw: Any) -> dict[str, Any]:
    """OTLP ``[{"key", "value": {"stringValue": ...}}]`` as a plain dict (plain dicts pass through)."""
    if isinstance(raw, dict):
        return {str(k): any_value(v) for k, v in raw.items()}
    if not isinstance(raw, list):
        return {}
    return {str(kv["key"]): any_value(kv.get("value")) for kv in raw if isinstance(kv, dict) and "key" in kv}


def any_value(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "string_value", "boolValue", "bool_value", "bytesValue", "bytes_value"):
        if key in value:
            return value[key]
    for key in ("intValue", "int_value"):
        if key in value:
            try:
                return int(value[key])
            except (TypeError, ValueError):
                return value[key]
    for key in ("doubleValue", "double_value"):
        if key in value:
            try:
                return float(value[key])
            except (TypeError, ValueError):
                return value[key]
    for key in ("arrayValue", "array_value"):
        if key in value:
            return [any_value(v) for v in (value[key] or {}).get("values") or []]
    for key in ("kvlistValue", "kvlist_value"):
        if key in value:
            return attributes((value[key] or {}).get("values"))
    return None if not value else value


def otlp_id(value: Any) -> str | None:
    """Trace and span ids as lowercase hex, whether sent as hex (OTLP/JSON) or base64 (protobuf JSON)."""
    if not isinstance(value, str) or not value:
        return None
    if _HEX_ID.fullmatch(value):
        return value.lower()
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return value
    return raw.hex() if len(raw) in (8, 16) else value


def _get(d: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if key in d:
            return d[key]
    return None
