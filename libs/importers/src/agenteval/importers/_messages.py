"""Chat payloads of any common shape (OpenAI, Anthropic, OpenTelemetry GenAI, LangChain) read as
messages, answer text and tool calls."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agenteval.contracts.trace import Message

_ROLES = {
    "user": "user", "human": "user", "system": "system", "developer": "system", "assistant": "assistant",
    "ai": "assistant", "model": "assistant", "bot": "assistant", "tool": "tool", "function": "tool",
    "ipython": "tool",
}  # fmt: skip
_LANGCHAIN_TYPES = {"human", "ai", "system", "tool"}
_CALL_TYPES = {"tool_use", "tool_call", "function_call"}
_TEXT_PART_TYPES = {None, "text", "input_text", "output_text"}
# Keys whose value is the text a user gave, in the order they are tried.
_INPUT_KEYS = ("messages", "input", "query", "question", "prompt", "message", "text", "content", "user_input")
_OUTPUT_KEYS = ("output", "answer", "response", "final_answer", "result", "text", "content", "message")
_MAX_DEPTH = 8


@dataclass
class ToolRequest:
    """A tool call the model asked for in its output."""

    id: str | None
    name: str
    arguments: dict[str, Any]


def dumps(value: Any) -> str:
    """Stable, readable JSON text of a value."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def maybe_json(value: Any) -> Any:
    """Parse strings that hold a JSON object or array; leave everything else alone."""
    if isinstance(value, str) and value[:1] in ("{", "[") and value[-1:] in ("}", "]"):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def parse_arguments(value: Any) -> dict[str, Any]:
    """Tool arguments as a dict: JSON text is parsed, a non-dict lands under "input"."""
    value = maybe_json(value)
    if value is None or value == "":
        return {}
    if isinstance(value, dict):
        # Python tracing decorators record a call as {"args": [...], "kwargs": {...}}.
        if value.keys() <= {"args", "kwargs"} and isinstance(value.get("kwargs", {}), dict):
            merged = dict(value.get("kwargs") or {})
            if value.get("args"):
                merged["args"] = value["args"]
            return merged
        return value
    return {"input": value}


def text_of(content: Any) -> str:
    """Plain text of a message content: a string, a list of parts or a dict."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(t for t in (_part_text(part) for part in content) if t)
    if isinstance(content, dict):
        return _part_text(content) or dumps(content)
    return dumps(content)


def _type_of(d: dict[str, Any]) -> str | None:
    """A payload's "type" when it is a string (a list or object there is no type we know)."""
    kind = d.get("type")
    return kind if isinstance(kind, str) else None


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict) and _type_of(part) in _TEXT_PART_TYPES:
        for key in ("text", "content"):
            if isinstance(part.get(key), str):
                return part[key]
    return ""


def _message_text(message: dict[str, Any]) -> str:
    if "parts" in message:  # OpenTelemetry GenAI
        return text_of(message["parts"])
    if "content" in message:
        return text_of(message["content"])
    return text_of(message.get("text"))


def _role_of(message: dict[str, Any]) -> str | None:
    role = message.get("role")
    if role is None and _type_of(message) in _LANGCHAIN_TYPES:
        role = message["type"]
    return _ROLES.get(role.lower()) if isinstance(role, str) else None


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and _role_of(value) is not None


def to_messages(value: Any, depth: int = 0) -> list[Message]:
    """The conversation in an input payload; a bare string or value is one user message."""
    if value in (None, "", [], {}) or depth > _MAX_DEPTH:
        return []
    if isinstance(value, str):
        return [Message(role="user", content=value)]
    if isinstance(value, list):
        items = [
            m for item in value for m in (item if isinstance(item, list) else [item])
        ]  # LangChain batches
        if items and all(_is_message(m) for m in items):
            return [Message(role=_role_of(m), content=_message_text(m)) for m in items]
        if items and all(isinstance(m, str) for m in items):
            return [Message(role="user", content=m) for m in items]
        return [Message(role="user", content=dumps(value))]
    if isinstance(value, dict):
        if _is_message(value):
            return [Message(role=_role_of(value), content=_message_text(value))]
        for key in _INPUT_KEYS:
            if key in value and (found := to_messages(value[key], depth + 1)):
                system = value.get("system")  # Anthropic puts the system prompt beside the messages
                if key == "messages" and system:
                    found.insert(0, Message(role="system", content=text_of(system)))
                return found
        if len(value) == 1:
            return to_messages(next(iter(value.values())), depth + 1)
        return [Message(role="user", content=dumps(value))]
    return [Message(role="user", content=dumps(value))]


def output_text(value: Any, depth: int = 0) -> str | None:
    """The answer text in an output payload; None when it holds no text (e.g. only tool calls)."""
    if value in (None, "", [], {}) or depth > _MAX_DEPTH:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        if value and all(isinstance(m, dict) and ("role" in m or "parts" in m) for m in value):
            answers = [m for m in value if _role_of(m) in ("assistant", None)] or value
            return output_text(answers[-1], depth + 1)
        if value and all(isinstance(m, str) for m in value):
            return "\n".join(value) or None
        if value and all(isinstance(m, dict) and isinstance(m.get("type"), str) for m in value):
            return text_of(value) or None  # content blocks: only their text is the answer
        if len(value) == 1:
            return output_text(value[0], depth + 1)
        return dumps(value) if value else None
    if isinstance(value, dict):
        if _type_of(value) in _CALL_TYPES:
            return None
        if isinstance(value.get("choices"), list) and value["choices"]:  # OpenAI
            choice = value["choices"][0]
            if isinstance(choice, dict):
                return output_text(choice.get("message", choice.get("text")), depth + 1)
        if "parts" in value or _is_message(value):
            return _message_text(value) or None
        if isinstance(value.get("generations"), list):  # LangChain LLMResult
            return output_text(value["generations"], depth + 1)
        for key in _OUTPUT_KEYS:
            if key in value and (found := output_text(value[key], depth + 1)):
                return found
        if len(value) == 1:
            return output_text(next(iter(value.values())), depth + 1)
        return dumps(value)
    return dumps(value)


def tool_requests(value: Any, depth: int = 0) -> list[ToolRequest]:
    """Tool calls a model output asks for (OpenAI tool_calls, Anthropic tool_use, OTel tool_call parts)."""
    found: list[ToolRequest] = []
    if depth > _MAX_DEPTH:
        return found
    if isinstance(value, list):
        for item in value:
            found.extend(tool_requests(item, depth + 1))
    elif isinstance(value, dict):
        request = _as_request(value)
        if request is not None:
            return [request]
        for item in value.values():
            if isinstance(item, (list, dict)):
                found.extend(tool_requests(item, depth + 1))
    return found


def _as_request(d: dict[str, Any]) -> ToolRequest | None:
    call_id = d.get("id") if isinstance(d.get("id"), str) else None
    function = d.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):  # OpenAI
        return ToolRequest(call_id, function["name"], parse_arguments(function.get("arguments")))
    kind = d.get("type")
    name = d.get("name")
    if not isinstance(name, str):
        return None
    if kind == "tool_use":  # Anthropic
        return ToolRequest(call_id, name, parse_arguments(d.get("input")))
    if kind in ("tool_call", "function_call"):  # OpenTelemetry GenAI parts, OpenAI Responses
        return ToolRequest(call_id or d.get("call_id"), name, parse_arguments(d.get("arguments")))
    if kind is None and "args" in d:  # LangChain
        return ToolRequest(call_id, name, parse_arguments(d.get("args")))
    if kind is None and "arguments" in d:  # flattened attributes (OpenLLMetry)
        return ToolRequest(call_id, name, parse_arguments(d.get("arguments")))
    return None


def tool_responses(value: Any, depth: int = 0) -> dict[str, tuple[Any, bool]]:
    """Tool results found in a model input, by call id: (result, is_error)."""
    found: dict[str, tuple[Any, bool]] = {}
    if depth > _MAX_DEPTH:
        return found
    if isinstance(value, list):
        for item in value:
            found.update(tool_responses(item, depth + 1))
    elif isinstance(value, dict):
        if isinstance(value.get("tool_call_id"), str):  # OpenAI tool message
            found[value["tool_call_id"]] = (maybe_json(value.get("content")), False)
        elif value.get("type") == "tool_result" and isinstance(value.get("tool_use_id"), str):  # Anthropic
            content = value.get("content")
            result = text_of(content) if isinstance(content, list) else maybe_json(content)
            found[value["tool_use_id"]] = (result, bool(value.get("is_error")))
        elif value.get("type") == "tool_call_response" and isinstance(value.get("id"), str):  # OTel GenAI
            found[value["id"]] = (maybe_json(value.get("response", value.get("result"))), False)
        else:
            for item in value.values():
                if isinstance(item, (list, dict)):
                    found.update(tool_responses(item, depth + 1))
    return found
