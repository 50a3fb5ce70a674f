"""Langfuse traces (API / export shape with observations and scores) and the generic "trace with steps"."""

from __future__ import annotations

from typing import Any

from agenteval.contracts.trace import Step
from agenteval.importers._assemble import (
    Draft,
    RecordError,
    agent_of,
    build_trace,
    imported,
    object_at,
    span_ms,
    to_int,
    to_ns,
)
from agenteval.importers._labels import is_label_name, normalize_label
from agenteval.importers._messages import (
    maybe_json,
    output_text,
    parse_arguments,
    text_of,
    to_messages,
    tool_requests,
)
from agenteval.importers._model import ImportedTrace
from agenteval.importers._reader import Record

FORMAT = "langfuse"
_LLM_TYPES = {"GENERATION", "LLM", "LLM_CALL", "CHAT", "COMPLETION"}
_TOOL_TYPES = {"TOOL", "TOOL_CALL", "RETRIEVER", "FUNCTION", "FUNCTION_CALL"}
_MESSAGE_TYPES = {"EVENT", "MESSAGE"}
_TOOL_PREFIXES = ("execute_tool ", "tool:", "tool.", "tool-", "tool ")
_TRACE_FIELDS = (
    "name",
    "timestamp",
    "sessionId",
    "userId",
    "tags",
    "release",
    "version",
    "environment",
    "metadata",
)


def parse_record(record: Record) -> ImportedTrace:
    doc = record.value
    if not isinstance(doc, dict):
        raise RecordError("expected a Langfuse trace: a JSON object with 'observations' or 'steps'")
    observations = doc.get("observations", doc.get("steps")) or []
    if not isinstance(observations, list):
        raise RecordError("'observations' (or 'steps') must be a list")
    observation_ids = [o for o in observations if isinstance(o, str)]  # list endpoints give ids only
    observations = [o for o in observations if isinstance(o, dict)]
    requested = {
        r.name for o in observations if _kind(o, set()) == "llm" for r in tool_requests(o.get("output"))
    }

    drafts: list[Draft] = []
    unmapped: list[str] = []
    errors: list[str] = []
    for order, obs in enumerate(observations):
        start = to_ns(obs.get("startTime", obs.get("timestamp")))
        kind = _kind(obs, requested)
        if obs.get("level") == "ERROR":
            errors.append(str(obs.get("statusMessage") or f"{obs.get('name') or 'a step'} failed"))
        if kind == "llm":
            drafts.append(_llm_draft(obs, start, order))
        elif kind == "tool":
            drafts.append(Draft(_tool_step(obs), start, order))
        elif kind == "message":
            drafts.append(Draft(_message_step(obs), start, order))
        for message in _list_at(obs, "messages_added"):  # generic steps carry messages and calls inline
            if isinstance(message, dict):
                drafts.append(Draft(_added_message(message), start, order))
        for call in _list_at(obs, "tool_calls"):
            if isinstance(call, dict):
                drafts.append(Draft(_inline_tool_step(call), start, order))
        if kind is None and not obs.get("tool_calls") and not obs.get("messages_added"):
            unmapped.append(str(obs.get("name") or obs.get("type") or "step"))

    label_value, comment, rater, other_scores = _scores(doc.get("scores"))
    if label_value is None:
        label_value, comment, rater = _inline_label(doc)
    label = normalize_label(label_value)

    output = output_text(doc.get("output"))
    error = errors[-1] if errors and output is None else None
    source: dict[str, Any] = {"format": FORMAT, **{k: doc.get(k) for k in _TRACE_FIELDS}}
    source.update(scores=other_scores, other_observations=unmapped, observation_ids=observation_ids)
    trace = build_trace(
        input=to_messages(doc.get("input")),
        drafts=drafts,
        output=output,
        latency_ms=_latency_ms(doc, observations),
        metadata={"source": {k: v for k, v in source.items() if v not in (None, "", {}, [])}},
        error_message=error,
    )
    return imported(
        trace,
        source_id=doc.get("id", doc.get("trace_id")),
        label=label,
        comment=comment,
        rater=rater,
        source_format=FORMAT,
        # Langfuse has no agent field: a generic record's own, or one its metadata names.
        agent=agent_of(doc, {k: object_at(doc, "metadata").get(k) for k in ("agent_id", "agent")}),
    )


def _list_at(obs: dict[str, Any], key: str) -> list[Any]:
    value = obs.get(key)
    return value if isinstance(value, list) else []


def _kind(obs: dict[str, Any], requested: set[str]) -> str | None:
    kind = str(obs.get("type") or "").upper()
    if kind in _LLM_TYPES or (not kind and obs.get("model")):
        return "llm"
    if kind in _TOOL_TYPES:
        return "tool"
    if kind in _MESSAGE_TYPES:
        return "message"
    if kind in ("SPAN", "") and _looks_like_tool(obs, requested):
        return "tool"
    return None


def _looks_like_tool(obs: dict[str, Any], requested: set[str]) -> bool:
    metadata = object_at(obs, "metadata")
    if str(metadata.get("type", "")).lower() in ("tool", "tool_call") or metadata.get("tool_name"):
        return True
    name = str(obs.get("name") or "")
    return name in requested or name.lower().startswith(_TOOL_PREFIXES) or name.lower() == "tool"


def _tool_name(obs: dict[str, Any]) -> str:
    metadata = object_at(obs, "metadata")
    if metadata.get("tool_name"):
        return str(metadata["tool_name"])
    name = str(obs.get("name") or "tool")
    for prefix in _TOOL_PREFIXES:
        if name.lower().startswith(prefix) and len(name) > len(prefix):
            return name[len(prefix) :].strip()
    return name


def _error_of(obs: dict[str, Any]) -> str | None:
    if obs.get("level") == "ERROR":
        return str(obs.get("statusMessage") or "failed")
    error = obs.get("error")
    return text_of(error) if error else None


def _llm_draft(obs: dict[str, Any], start: int | None, order: int) -> Draft:
    usage = obs.get("usageDetails") or obs.get("usage") or {}
    usage = usage if isinstance(usage, dict) else {}
    step = Step(
        type="llm_call",
        model=str(obs["model"]) if obs.get("model") else None,
        input_tokens=to_int(
            usage.get("input")
            or usage.get("promptTokens")
            or usage.get("input_tokens")
            or obs.get("promptTokens")
        ),
        output_tokens=to_int(
            usage.get("output")
            or usage.get("completionTokens")
            or usage.get("output_tokens")
            or obs.get("completionTokens")
        ),
        content=output_text(obs.get("output")),
        latency_ms=_step_ms(obs, start),
        error=_error_of(obs),
    )
    return Draft(step, start, order, obs.get("input"), obs.get("output"))


def _tool_step(obs: dict[str, Any]) -> Step:
    return Step(
        type="tool_call",
        name=_tool_name(obs),
        arguments=parse_arguments(obs.get("input", obs.get("arguments"))),
        result=maybe_json(obs.get("output", obs.get("result"))),
        error=_error_of(obs),
        latency_ms=_step_ms(obs, to_ns(obs.get("startTime", obs.get("timestamp")))),
    )


def _inline_tool_step(call: dict[str, Any]) -> Step:
    error = call.get("error")
    return Step(
        type="tool_call",
        name=str(call.get("tool_name") or call.get("name") or "tool"),
        arguments=parse_arguments(call.get("arguments", call.get("args", call.get("input")))),
        result=maybe_json(call.get("result", call.get("output"))),
        error=text_of(error) if error else None,
    )


def _message_step(obs: dict[str, Any]) -> Step:
    content = obs.get("output") if obs.get("output") is not None else obs.get("input")
    role = obs.get("role") if isinstance(obs.get("role"), str) else "event"
    name = obs.get("name")
    return Step(
        type="message",
        name=str(name) if name is not None else None,
        role=role,
        content=text_of(maybe_json(content)) or None,
    )


def _added_message(message: dict[str, Any]) -> Step:
    role = message.get("role", message.get("type"))
    return Step(type="message", role=str(role) if role else None, content=text_of(message.get("content")))


def _step_ms(obs: dict[str, Any], start: int | None) -> float:
    ms = span_ms(start, to_ns(obs.get("endTime")))
    if not ms and isinstance(obs.get("latency"), (int, float)):
        ms = float(obs["latency"]) * 1000.0  # Langfuse reports seconds
    return ms


def _latency_ms(doc: dict[str, Any], observations: list[dict[str, Any]]) -> float:
    if isinstance(doc.get("latency"), (int, float)) and not isinstance(doc.get("latency"), bool):
        return float(doc["latency"]) * 1000.0
    starts = [t for o in observations if (t := to_ns(o.get("startTime"))) is not None]
    ends = [t for o in observations if (t := to_ns(o.get("endTime"))) is not None]
    return span_ms(min(starts), max(ends)) if starts and ends else 0.0


def _scores(raw: Any) -> tuple[Any, Any, Any, list[dict[str, Any]]]:
    """(label value, comment, rater, other scores): the newest human-annotated label score wins."""
    candidates: list[tuple[bool, str, int, dict[str, Any]]] = []
    others: list[dict[str, Any]] = []
    for i, score in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(score, dict):
            continue
        if is_label_name(score.get("name")) and (score.get("stringValue") is not None or "value" in score):
            annotated = score.get("source") == "ANNOTATION"
            candidates.append((annotated, str(score.get("timestamp", "")), i, score))
            continue
        keep = ("name", "value", "stringValue", "dataType", "source", "comment", "observationId")
        others.append({k: score[k] for k in keep if score.get(k) is not None})
    if not candidates:
        return None, None, None, others
    chosen = max(candidates, key=lambda c: c[:3])[3]
    value = chosen.get("stringValue") if chosen.get("stringValue") is not None else chosen.get("value")
    return value, chosen.get("comment"), chosen.get("authorUserId"), others


def _inline_label(doc: dict[str, Any]) -> tuple[Any, Any, Any]:
    """Generic exports put the verdict on the trace: "label"/"rating", or "feedback": {"rating", "comment"}."""
    for key in ("label", "rating"):
        if doc.get(key) is not None:
            return doc[key], doc.get("comment"), doc.get("rater")
    feedback = doc.get("feedback")
    if isinstance(feedback, dict):
        value = feedback.get("rating", feedback.get("label", feedback.get("value")))
        return value, feedback.get("comment", feedback.get("notes")), feedback.get("rater")
    return feedback, doc.get("comment"), doc.get("rater")
