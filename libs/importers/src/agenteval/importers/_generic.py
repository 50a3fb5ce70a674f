"""The generic trace shape of the requirement notes, in every form it is exported.

One trace per record: ``{"id", "agent_id", "input": {"messages": [...]}, "steps": [...],
"output", "rating"}`` bare, wrapped as ``{"trace": {...}, "rating": ...}``, with ``steps`` (or
the whole ``trace``) as a JSON string, or as a stored row ``{"id", "trace_id", "steps":
"<JSON>", "raw_data": {...} or "<JSON>", "source"/"agent_id", "rating"}``.

Steps are ``llm`` (model, content, tool_calls, usage), ``tool`` (name, tool_call_id, input,
output, error) and ``user`` (a later user turn); agenteval's own step types and chat-message
steps (role assistant with tool_calls, role tool with tool_call_id) are read too. An llm step's
tool_calls are matched to the tool steps that answer them, by tool_call_id, else by order and
name, so every call is one tool_call step holding its arguments, result and error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agenteval.contracts.trace import Step, Trace, TrialError, TrialStatus
from agenteval.importers._assemble import RecordError, agent_of, imported, to_int, usage_of
from agenteval.importers._labels import LABEL_NAMES, normalize_label
from agenteval.importers._messages import output_text, parse_arguments, text_of, to_messages, tool_requests
from agenteval.importers._model import ImportedTrace
from agenteval.importers._reader import Record

FORMAT = "generic"

_LLM_TYPES = {"llm", "llm_call", "generation", "chat", "completion", "model"}
_TOOL_TYPES = {"tool", "tool_call", "tool_result", "function", "function_call", "retriever", "retrieval"}
_MESSAGE_TYPES = {"user", "human", "system", "assistant", "ai", "message", "event"}
_ROLE_OF_TYPE = {
    "user": "user",
    "human": "user",
    "system": "system",
    "assistant": "assistant",
    "ai": "assistant",
}
# Label keys in the order they are tried: the two the notes use, then every other accepted name.
_LABEL_KEYS = ("label", "rating", *sorted(LABEL_NAMES - {"label", "rating"}))
# Where a request carries its call id, and where the tool step answering it names that id
# (a tool step's own "id" names the step, not the call).
_REQUEST_ID_KEYS = ("id", "call_id", "tool_call_id", "tool_use_id")
_ANSWER_ID_KEYS = ("tool_call_id", "call_id", "tool_use_id")
_ANSWER_KEYS = ("result", "output", "error", "is_error")
# Trace-level keys read into the Trace; every other key of the trace is kept in its metadata.
_TRACE_KEYS = {
    "id", "trace_id", "input", "messages", "steps", "output", "latency_ms", "usage", "metadata",
    "status", "error", "state", "raw_data", "trace", "comment", "rater", "agent_id", *_LABEL_KEYS,
}  # fmt: skip


def looks_generic(value: Any) -> bool:
    """Whether a record is in the generic shape (bare, wrapped, as a row), not another format's."""
    if not isinstance(value, dict):
        return False
    inner = value.get("trace")
    if isinstance(inner, str):  # the whole trace as a JSON string: no other format does this
        return True
    return _looks_generic_trace(inner if isinstance(inner, dict) else value)


def _looks_generic_trace(doc: dict[str, Any]) -> bool:
    steps = doc.get("steps")
    if isinstance(steps, str) or "raw_data" in doc:  # steps as a JSON string, a stored row
        return True
    given = doc.get("input")
    if isinstance(given, dict) and isinstance(given.get("messages"), list):
        return True
    return isinstance(steps, list) and any(_is_generic_step(s) for s in steps)


def _is_generic_step(step: Any) -> bool:
    """A step only the generic shape writes: Langfuse observations have none of these keys."""
    if not isinstance(step, dict):
        return False
    kind = step.get("type")
    if kind == "user":
        return True
    if kind == "llm":
        return bool(step.keys() & {"content", "tool_calls"})
    if kind == "tool":
        return bool(step.keys() & {"tool_call_id", "output", "error"})
    # Chat messages as steps (role, tool_call_id): Langfuse observations carry a type instead.
    return kind is None and ("tool_call_id" in step or isinstance(step.get("role"), str))


def parse_record(record: Record) -> ImportedTrace:
    doc = record.value
    if not isinstance(doc, dict):
        raise RecordError(f"expected a trace: a JSON object with input, steps and output, got {_kind(doc)}")
    trace_doc = doc
    if doc.get("trace") is not None:
        trace_doc = _json_value(doc, "trace", dict, "a JSON object") or {}
    raw: dict[str, Any] = {}
    for holder in (trace_doc, doc):
        if "raw_data" in holder:
            raw = _json_value(holder, "raw_data", dict, "a JSON object") or {}
            break
    layers = [layer for layer in (doc, trace_doc, raw) if layer]
    trace_layers = [trace_doc, raw]

    steps_at = next((layer for layer in trace_layers if layer.get("steps") is not None), {})
    raw_steps = _json_value(steps_at, "steps", list, "a list of steps") or []
    steps, unmapped = _Steps().read(raw_steps)

    output_value = _first(trace_layers, "output")
    output = output_value if isinstance(output_value, str) else output_text(output_value)
    if output is None:
        output = _last_answer(steps)
    status, error = _status(trace_doc)
    usage = usage_of(steps)
    given_usage = trace_doc.get("usage")
    if isinstance(given_usage, dict) and (tokens := _tokens(given_usage)) != (0, 0):
        usage.input_tokens, usage.output_tokens = tokens
    state = trace_doc.get("state")
    trace = Trace(
        input=to_messages(_first(trace_layers, "input") or _first(trace_layers, "messages")),
        steps=steps,
        output=output,
        state=state if isinstance(state, dict) else {},
        usage=usage,
        latency_ms=_ms(_first(trace_layers, "latency_ms")),
        status=status,
        error=error,
        metadata=_metadata(doc, trace_doc, raw, unmapped),
    )
    label_value, comment, rater = _label(layers)
    return imported(
        trace,
        source_id=_source_id(doc, trace_doc, raw),
        label=normalize_label(label_value),
        comment=comment,
        rater=rater,
        source_format=FORMAT,
        agent=agent_of(*layers, *(_dict(layer.get("metadata")) for layer in layers)),
    )


# -- steps -----------------------------------------------------------------------------------


@dataclass
class _Call:
    """A tool call the model asked for, waiting for the tool step that answers it."""

    step: Step
    id: str | None
    name: str


@dataclass
class _Steps:
    steps: list[Step] = field(default_factory=list)
    pending: list[_Call] = field(default_factory=list)
    unmapped: list[str] = field(default_factory=list)
    answer_ids: set[str] = field(default_factory=set)
    """Call ids some tool step answers: a request with one of them waits for that step."""

    def read(self, raw_steps: list[Any]) -> tuple[list[Step], list[str]]:
        self.answer_ids = {
            call_id
            for s in raw_steps
            if isinstance(s, dict) and _step_kind(s) == "tool" and (call_id := _call_id(s, _ANSWER_ID_KEYS))
        }
        for i, raw in enumerate(raw_steps):
            where = f"steps[{i}]"
            if not isinstance(raw, dict):
                raise RecordError(f"{where} must be a JSON object, got {_kind(raw)}")
            kind = _step_kind(raw)
            if kind == "llm":
                self.steps.append(_llm_step(raw, where))
            elif kind == "tool":
                self._answer(raw, where)
            elif kind == "message":
                self.steps.append(_message_step(raw))
            elif not raw.get("tool_calls") and not raw.get("messages_added"):
                self.unmapped.append(str(raw.get("type") or raw.get("name") or "step"))
            added = raw.get("messages_added")
            for message in added if isinstance(added, list) else []:  # messages carried inline
                if isinstance(message, dict):
                    self.steps.append(_message_step(message))
            if kind in ("llm", None):
                self._request(raw, where)
        return self.steps, self.unmapped

    def _request(self, raw: dict[str, Any], where: str) -> None:
        """The calls a step asks for: each becomes its tool_call step now, answered later or inline."""
        calls = raw.get("tool_calls")
        if calls is None and isinstance(raw.get("content"), list):  # Anthropic tool_use blocks
            for request in tool_requests(raw["content"]):
                self._add_call(request.id, request.name, request.arguments, None)
            return
        if calls is None:
            return
        if not isinstance(calls, list):
            raise RecordError(f"{where}.tool_calls must be a list, got {_kind(calls)}")
        for j, call in enumerate(calls):
            self._add_call(*_call_parts(call, f"{where}.tool_calls[{j}]"))

    def _add_call(
        self, call_id: str | None, name: str, arguments: dict[str, Any], inline: dict[str, Any] | None
    ) -> None:
        step = Step(type="tool_call", name=name, arguments=arguments)
        self.steps.append(step)
        if inline is not None and any(inline.get(k) is not None for k in _ANSWER_KEYS):
            _fill(step, inline)  # executed and answered in the same record
        else:
            self.pending.append(_Call(step, call_id, name))

    def _answer(self, raw: dict[str, Any], where: str) -> None:
        """A tool step: it completes the call it answers, or is a call of its own."""
        call = self._match(_call_id(raw, _ANSWER_ID_KEYS), _tool_name(raw))
        if call is None:
            name = _tool_name(raw)
            if name is None:
                raise RecordError(f"{where} is a tool step without a tool name")
            step = Step(type="tool_call", name=name, arguments=_tool_arguments(raw))
            _fill(step, raw)
            self.steps.append(step)
            return
        self.pending.remove(call)
        if not call.step.arguments:
            call.step.arguments = _tool_arguments(raw)
        _fill(call.step, raw)

    def _match(self, call_id: str | None, name: str | None) -> _Call | None:
        if call_id:
            for call in self.pending:
                if call.id == call_id:
                    return call
        for call in self.pending:
            if call.id and call.id in self.answer_ids:
                continue  # its own answer comes by id
            if name and call.name != name:
                continue
            return call
        return None


def _step_kind(raw: dict[str, Any]) -> str | None:
    """llm, tool or message; None for a step of a kind the Trace has no place for."""
    kind = str(raw.get("type") or "").strip().lower()
    role = str(raw.get("role") or "").strip().lower()
    if kind in _LLM_TYPES:
        return "llm"
    if kind in _TOOL_TYPES:
        return "tool"
    if kind == "message":  # agenteval's own message step, whoever speaks
        return "tool" if "tool_call_id" in raw else "message"
    if kind in _MESSAGE_TYPES or (not kind and role):
        if role == "tool" or "tool_call_id" in raw:
            return "tool"  # a chat tool message answers a call
        if kind in ("assistant", "ai") or (not kind and role in ("assistant", "ai", "model")):
            return "llm"  # what the model said (and asked for) is a model turn
        return "message"
    if kind:
        return None
    if "tool_call_id" in raw:
        return "tool"
    if "model" in raw:
        return "llm"
    return None


def _llm_step(raw: dict[str, Any], where: str) -> Step:
    content = raw.get("content")
    if content is None:
        content = raw.get("output", raw.get("text", raw.get("completion")))
    if isinstance(content, str):
        text: str | None = content
    else:
        text = (text_of(content) or None) if isinstance(content, list) else output_text(content)
    input_tokens, output_tokens = _tokens(_dict(raw.get("usage")) or _dict(raw.get("usageDetails")))
    model = raw.get("model") or raw.get("model_name")
    return Step(
        type="llm_call",
        model=str(model) if model else None,
        content=text,
        input_tokens=input_tokens or to_int(raw.get("input_tokens")),
        output_tokens=output_tokens or to_int(raw.get("output_tokens")),
        latency_ms=_ms(raw.get("latency_ms", raw.get("duration_ms"))),
        error=_error_text(raw.get("error")),
    )


def _message_step(raw: dict[str, Any]) -> Step:
    kind = str(raw.get("type") or "").lower()
    role = raw.get("role") if isinstance(raw.get("role"), str) else _ROLE_OF_TYPE.get(kind)
    if role is None and kind not in ("", "message"):
        role = kind  # an "event" keeps its kind as the speaker
    content = raw.get("content", raw.get("text", raw.get("message", raw.get("input"))))
    return Step(type="message", role=role, content=text_of(content))


def _call_parts(call: Any, where: str) -> tuple[str | None, str, dict[str, Any], dict[str, Any]]:
    """(call id, tool name, arguments, the call itself) of one entry of an llm step's tool_calls."""
    if not isinstance(call, dict):
        raise RecordError(f"{where} must be a JSON object, got {_kind(call)}")
    function = _dict(call.get("function"))  # OpenAI: {"id", "type": "function", "function": {...}}
    name = function.get("name") or call.get("name") or call.get("tool_name") or call.get("tool")
    if not isinstance(name, str) or not name:
        raise RecordError(f"{where} has no tool name")
    if function:
        arguments = function.get("arguments")
    else:
        arguments = next((call[k] for k in ("arguments", "args", "input") if k in call), None)
    return _call_id(call, _REQUEST_ID_KEYS), name, parse_arguments(arguments), call


def _call_id(raw: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = raw.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            return str(value)
    return None


def _tool_name(raw: dict[str, Any]) -> str | None:
    function = _dict(raw.get("function"))
    name = raw.get("name") or raw.get("tool_name") or raw.get("tool") or function.get("name")
    return str(name) if isinstance(name, (str, int)) and name != "" else None


def _tool_arguments(raw: dict[str, Any]) -> dict[str, Any]:
    for key in ("input", "arguments", "args"):
        if key in raw:
            return parse_arguments(raw[key])
    return parse_arguments(_dict(raw.get("function")).get("arguments"))


def _fill(step: Step, raw: dict[str, Any]) -> None:
    """A tool's answer on its call step: the result as given, the error when it failed."""
    for key in ("output", "result", "content"):
        if key in raw:
            step.result = raw[key]
            break
    error = _error_text(raw.get("error"))
    if error is None and (raw.get("is_error") is True or str(raw.get("status", "")).lower() == "error"):
        error = text_of(step.result) or "tool call failed"
    step.error = error
    if (ms := _ms(raw.get("latency_ms", raw.get("duration_ms")))) > 0:
        step.latency_ms = ms


def _last_answer(steps: list[Step]) -> str | None:
    for step in reversed(steps):
        if step.type == "llm_call" and step.content:
            return step.content
    for step in reversed(steps):
        if step.type == "message" and step.role == "assistant" and step.content:
            return step.content
    return None


# -- trace-level fields ----------------------------------------------------------------------


def _json_value(doc: dict[str, Any], key: str, kind: type, expected: str) -> Any:
    """``doc[key]`` as ``kind``, parsed when it is a JSON string (as stored rows keep it)."""
    value = doc.get(key)
    if isinstance(value, str):
        if not value.strip():
            return None
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            where = f"line {exc.lineno} column {exc.colno}" if exc.lineno > 1 else f"column {exc.colno}"
            raise RecordError(
                f"'{key}' is a string but not valid JSON ({exc.msg} at {where}); it must hold {expected}"
            ) from None
        except RecursionError:
            raise RecordError(f"'{key}' holds JSON nested too deeply to read") from None
    if value is None or isinstance(value, kind):
        return value
    raise RecordError(f"'{key}' must be {expected} (or a JSON string holding one), got {_kind(value)}")


def _first(layers: list[dict[str, Any]], key: str) -> Any:
    return next((layer[key] for layer in layers if layer.get(key) is not None), None)


def _status(doc: dict[str, Any]) -> tuple[TrialStatus, TrialError | None]:
    """ok, or error / timeout with why: from "error" (text or {code, message}) and "status"."""
    error = doc.get("error")
    status: TrialStatus = "timeout" if str(doc.get("status") or "").lower() == "timeout" else "error"
    message = _error_text(error)
    if message is None and str(doc.get("status") or "").lower() not in ("error", "timeout"):
        return "ok", None
    code = error.get("code") if isinstance(error, dict) else None
    default_code = "timeout" if status == "timeout" else "agent_error"
    return status, TrialError(
        code=code if isinstance(code, str) and code else default_code,
        message=message or f"the agent ended with status {status}",
        retryable=isinstance(error, dict) and error.get("retryable") is True,
    )


def _metadata(
    doc: dict[str, Any], trace_doc: dict[str, Any], raw: dict[str, Any], unmapped: list[str]
) -> dict[str, Any]:
    """The trace's own metadata, then what else the record said that the Trace has no field for."""
    metadata: dict[str, Any] = {**_dict(raw.get("metadata")), **_dict(trace_doc.get("metadata"))}
    for layer in (doc, trace_doc) if doc is not trace_doc else (doc,):
        for key, value in layer.items():
            if key not in _TRACE_KEYS and value is not None:
                metadata.setdefault(key, value)
    leftover = {k: v for k, v in raw.items() if k not in _TRACE_KEYS and k != "observations"}
    if leftover:
        metadata["raw_data"] = leftover
    if "raw_data" in doc and doc.get("trace_id") not in (None, "") and doc.get("id") not in (None, ""):
        metadata["row_id"] = doc["id"]  # the stored row's own id; the trace keeps its trace_id
    if unmapped:
        metadata["unmapped_steps"] = unmapped
    return metadata


def _source_id(doc: dict[str, Any], trace_doc: dict[str, Any], raw: dict[str, Any]) -> Any:
    # A stored row's id is the database's; its trace_id is the trace's own.
    keys = ("trace_id", "id") if "raw_data" in doc else ("id", "trace_id")
    for layer in (doc, trace_doc, raw):
        for key in keys:
            value = layer.get(key)
            if value in (None, ""):
                continue
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                raise RecordError(f"'{key}' must be a string, got {_kind(value)}")
            return value
    return None


def _label(layers: list[dict[str, Any]]) -> tuple[Any, Any, Any]:
    """(label value, comment, rater): the first layer that has a label, under any accepted name."""
    for layer in layers:
        for key in _LABEL_KEYS:
            value = layer.get(key)
            comment, rater = layer.get("comment"), layer.get("rater")
            if isinstance(value, dict):  # "feedback": {"rating": "good", "comment": "..."}
                comment = value.get("comment", value.get("notes", comment))
                rater = value.get("rater", rater)
                value = next((value[k] for k in ("rating", "label", "value") if k in value), None)
            if value is not None and value != "":
                return value, comment, rater
    return None, _first(layers, "comment"), _first(layers, "rater")


def _tokens(usage: dict[str, Any]) -> tuple[int, int]:
    def pick(*keys: str) -> int:
        return next((n for k in keys if (n := to_int(usage.get(k)))), 0)

    return (
        pick("input_tokens", "prompt_tokens", "input", "promptTokens"),
        pick("output_tokens", "completion_tokens", "output", "completionTokens"),
    )


def _error_text(error: Any) -> str | None:
    if error is None or error is False or error == "":
        return None
    if error is True:
        return "failed"
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    return text_of(error) or None


def _ms(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return float(value) if value > 0 and value == value and value != float("inf") else 0.0


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")
