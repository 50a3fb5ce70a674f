"""One span, whatever format it came from, and where each GenAI convention keeps its payloads.

Conventions read: OpenTelemetry GenAI (``gen_ai.input.messages`` and the older span events),
OpenLLMetry's flattened ``gen_ai.prompt.N.*`` attributes, OpenInference and MLflow span I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agenteval.importers._messages import maybe_json

_EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
# Where each convention keeps a span's raw input and output.
IO_INPUT_KEYS = ("mlflow.spanInputs", "input.value", "traceloop.entity.input")
IO_OUTPUT_KEYS = ("mlflow.spanOutputs", "output.value", "traceloop.entity.output")


@dataclass
class SpanEvent:
    """A span event (the older GenAI convention records messages as events)."""

    name: str
    attributes: dict[str, Any]


@dataclass
class SpanView:
    """One span, whatever format it came from, with decoded attribute values."""

    span_id: str | None
    parent_id: str | None
    name: str
    start_ns: int | None
    end_ns: int | None
    attributes: dict[str, Any]
    events: list[SpanEvent] = field(default_factory=list)
    failed: bool = False
    status_message: str | None = None
    order: int = 0


def first(attrs: dict[str, Any], *keys: str) -> Any:
    """The value of the first key that holds something."""
    for key in keys:
        value = attrs.get(key)
        if value not in (None, "", [], {}):
            return value
    return None


def llm_input(span: SpanView) -> Any:
    """The messages sent to the model, in the span's own shape."""
    a = span.attributes
    messages = maybe_json(a.get("gen_ai.input.messages"))
    if messages:
        system = maybe_json(a.get("gen_ai.system_instructions"))
        if system and isinstance(messages, list):
            messages = [{"role": "system", "parts": system}, *messages]
        return messages
    from_events = _event_messages(span, output=False)
    if from_events:
        return from_events
    indexed = indexed_attributes(a, "gen_ai.prompt") or _unwrap(indexed_attributes(a, "llm.input_messages"))
    if indexed:
        return indexed
    return maybe_json(first(a, *IO_INPUT_KEYS))


def llm_output(span: SpanView) -> Any:
    """What the model answered, in the span's own shape."""
    a = span.attributes
    messages = maybe_json(a.get("gen_ai.output.messages"))
    if messages:
        return messages
    from_events = _event_messages(span, output=True)
    if from_events:
        return from_events
    indexed = indexed_attributes(a, "gen_ai.completion") or _unwrap(
        indexed_attributes(a, "llm.output_messages")
    )
    if indexed:
        return [{"role": "assistant", **m} if isinstance(m, dict) and "role" not in m else m for m in indexed]
    return maybe_json(first(a, *IO_OUTPUT_KEYS))


def _event_messages(span: SpanView, *, output: bool) -> list[Any]:
    """Messages of the older GenAI convention, recorded as span events."""
    found: list[Any] = []
    for event in span.events:
        attrs = dict(event.attributes)
        content = maybe_json(attrs.pop("gen_ai.event.content", None))
        if isinstance(content, dict):
            attrs.update(content)
        if output and event.name == "gen_ai.choice":
            message = maybe_json(attrs.get("message"))
            message = dict(message) if isinstance(message, dict) else {"content": attrs.get("content")}
            message.setdefault("role", "assistant")
            if "tool_calls" in attrs and "tool_calls" not in message:
                message["tool_calls"] = maybe_json(attrs["tool_calls"])
            found.append(message)
        elif output and event.name == "gen_ai.content.completion":
            found.append(maybe_json(attrs.get("gen_ai.completion")))
        elif not output and event.name in _EVENT_ROLES:
            message = maybe_json(attrs.get("message"))
            content = attrs.get("content", message.get("content") if isinstance(message, dict) else message)
            entry: dict[str, Any] = {"role": _EVENT_ROLES[event.name], "content": content}
            if "id" in attrs:
                entry["tool_call_id"] = attrs["id"]
            if "tool_calls" in attrs:
                entry["tool_calls"] = maybe_json(attrs["tool_calls"])
            found.append(entry)
        elif not output and event.name == "gen_ai.content.prompt":
            found.append(maybe_json(attrs.get("gen_ai.prompt")))
    return found


def indexed_attributes(attrs: dict[str, Any], prefix: str) -> list[Any]:
    """Flattened lists such as ``gen_ai.prompt.0.role`` / ``gen_ai.prompt.0.content`` as a list of dicts."""
    tree: dict[str, Any] = {}
    start = prefix + "."
    for key, value in attrs.items():
        if not key.startswith(start):
            continue
        parts = key[len(start) :].split(".")
        if not parts[0].isdigit() or len(parts) < 2:
            continue
        node = tree
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                break
            node = child
        else:
            node[parts[-1]] = value
    listed = _listify(tree)
    return listed if isinstance(listed, list) else []


def _listify(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    items = {k: _listify(v) for k, v in node.items()}
    if items and all(k.isdigit() for k in items):
        return [items[k] for k in sorted(items, key=int)]
    return items


def _unwrap(messages: list[Any]) -> list[Any]:
    """OpenInference nests each message under "message"."""
    return [
        m["message"] if isinstance(m, dict) and isinstance(m.get("message"), dict) else m for m in messages
    ]
