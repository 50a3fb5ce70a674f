"""Traces: messages, typed steps, usage, errors."""

from __future__ import annotations

from typing import Any

from agenteval.contracts.errors import InvalidArgument
from agenteval.contracts.pb._json import (
    dump_json,
    json_object_from_pb,
    json_object_to_pb,
    load_json,
    validate_as,
)
from agenteval.contracts.trace import Message, Step, Trace, TrialError, Usage
from agenteval.v1 import common_pb2, trace_pb2

TRIAL_STATUS_TO_PB = {
    "ok": common_pb2.TRIAL_STATUS_OK,
    "error": common_pb2.TRIAL_STATUS_ERROR,
    "timeout": common_pb2.TRIAL_STATUS_TIMEOUT,
}
TRIAL_STATUS_FROM_PB = {v: k for k, v in TRIAL_STATUS_TO_PB.items()}
ROLE_TO_PB = {
    "system": trace_pb2.ROLE_SYSTEM,
    "user": trace_pb2.ROLE_USER,
    "assistant": trace_pb2.ROLE_ASSISTANT,
    "tool": trace_pb2.ROLE_TOOL,
}
ROLE_FROM_PB = {v: k for k, v in ROLE_TO_PB.items()}


def message_to_pb(m: Message) -> trace_pb2.Message:
    return trace_pb2.Message(
        role=ROLE_TO_PB[m.role], content=m.content, extra_json=json_object_to_pb(m.model_extra)
    )


def message_dict(m: trace_pb2.Message, where: str) -> dict[str, Any]:
    extra = json_object_from_pb(m.extra_json, f"{where}.extra_json") if m.extra_json else {}
    return {**extra, "role": ROLE_FROM_PB.get(m.role, "user"), "content": m.content}


# The fields each kind of step has in its own message; a step's other fields that are set
# (a source may name a message, or time out an LLM call) travel in Step.extra_json.
_STEP_DEFAULTS: dict[str, Any] = {
    "name": None,
    "arguments": {},
    "result": None,
    "error": None,
    "role": None,
    "content": None,
    "model": None,
    "input_tokens": 0,
    "output_tokens": 0,
}
_OWN_FIELDS = {
    "message": ("role", "content", "name"),
    "tool_call": ("name", "arguments", "result", "error"),
    "llm_call": ("model", "input_tokens", "output_tokens", "content", "error"),
}
_OTHER_FIELDS = {kind: tuple(f for f in _STEP_DEFAULTS if f not in own) for kind, own in _OWN_FIELDS.items()}


def step_to_pb(s: Step) -> trace_pb2.Step:
    msg = trace_pb2.Step(latency_ms=s.latency_ms)
    if s.type == "tool_call":
        call = msg.tool_call
        call.SetInParent()
        if s.name is not None:
            call.name = s.name
        if s.arguments:
            call.arguments_json = dump_json(s.arguments)
        if s.result is not None:
            call.result_json = dump_json(s.result)
        if s.error is not None:
            call.error = s.error
    elif s.type == "llm_call":
        llm = msg.llm_call
        llm.SetInParent()
        if s.model is not None:
            llm.model = s.model
        llm.input_tokens = s.input_tokens
        llm.output_tokens = s.output_tokens
        if s.content is not None:
            llm.output = s.content
        if s.error is not None:
            llm.error = s.error
    else:
        said = msg.message
        said.SetInParent()
        if s.role is not None:
            said.role = s.role
        if s.content is not None:
            said.content = s.content
        if s.name is not None:
            said.name = s.name
    extra = dict(s.model_extra) if s.model_extra else {}
    values = s.__dict__
    for name in _OTHER_FIELDS[s.type]:
        value = values[name]
        if value != _STEP_DEFAULTS[name]:
            extra[name] = value
    if extra:
        msg.extra_json = dump_json(extra)
    return msg


def step_dict_from_pb(m: trace_pb2.Step, where: str = "step") -> dict[str, Any]:
    """A step message as the dict :class:`Step` validates (raises InvalidArgument on bad JSON)."""
    d: dict[str, Any] = json_object_from_pb(m.extra_json, f"{where}.extra_json") if m.extra_json else {}
    kind = m.WhichOneof("kind")
    if kind == "tool_call":
        call = m.tool_call
        d["type"] = "tool_call"
        d["name"] = call.name if call.HasField("name") else None
        d["arguments"] = json_object_from_pb(call.arguments_json, f"{where}.tool_call.arguments_json")
        d["result"] = (
            load_json(call.result_json, f"{where}.tool_call.result_json") if call.result_json else None
        )
        d["error"] = call.error if call.HasField("error") else None
    elif kind == "llm_call":
        llm = m.llm_call
        d["type"] = "llm_call"
        d["model"] = llm.model if llm.HasField("model") else None
        d["input_tokens"] = llm.input_tokens
        d["output_tokens"] = llm.output_tokens
        d["content"] = llm.output if llm.HasField("output") else None
        d["error"] = llm.error if llm.HasField("error") else None
    elif kind == "message":
        said = m.message
        d["type"] = "message"
        d["role"] = said.role if said.HasField("role") else None
        d["content"] = said.content if said.HasField("content") else None
        d["name"] = said.name if said.HasField("name") else None
    else:
        raise InvalidArgument(f"{where}: no kind set (message, tool_call or llm_call)")
    d["latency_ms"] = m.latency_ms
    return d


def step_from_pb(m: trace_pb2.Step, where: str = "step") -> Step:
    result: Step = validate_as(Step, step_dict_from_pb(m, where), where)
    return result


def usage_to_pb(u: Usage) -> trace_pb2.Usage:
    msg = trace_pb2.Usage(input_tokens=u.input_tokens, output_tokens=u.output_tokens)
    for model, counts in u.models.items():
        per = msg.models[model]
        for key, n in counts.items():
            if key == "input_tokens":
                per.input_tokens = n
            elif key == "output_tokens":
                per.output_tokens = n
            else:
                per.other_tokens[key] = n
    return msg


def _usage_dict(m: trace_pb2.Usage) -> dict[str, Any]:
    models: dict[str, dict[str, int]] = {}
    for model, per in m.models.items():
        counts = dict(per.other_tokens)
        if per.HasField("input_tokens"):
            counts["input_tokens"] = per.input_tokens
        if per.HasField("output_tokens"):
            counts["output_tokens"] = per.output_tokens
        models[model] = counts
    return {"input_tokens": m.input_tokens, "output_tokens": m.output_tokens, "models": models}


def trace_to_pb(t: Trace) -> trace_pb2.Trace:
    msg = trace_pb2.Trace(
        input=[message_to_pb(m) for m in t.input],
        steps=[step_to_pb(s) for s in t.steps],
        state_json=json_object_to_pb(t.state),
        usage=usage_to_pb(t.usage),
        latency_ms=t.latency_ms,
        status=TRIAL_STATUS_TO_PB[t.status],
        metadata_json=json_object_to_pb(t.metadata),
        extra_json=json_object_to_pb(t.model_extra),
    )
    if t.output is not None:
        msg.output = t.output
    if t.error is not None:
        msg.error.CopyFrom(
            trace_pb2.TrialError(code=t.error.code, message=t.error.message, retryable=t.error.retryable)
        )
    return msg


def trace_from_pb(m: trace_pb2.Trace, where: str = "trace") -> Trace:
    d: dict[str, Any] = json_object_from_pb(m.extra_json, f"{where}.extra_json") if m.extra_json else {}
    d.update(
        input=[message_dict(x, f"{where}.input[{i}]") for i, x in enumerate(m.input)],
        steps=[step_dict_from_pb(s, f"{where}.steps[{i}]") for i, s in enumerate(m.steps)],
        output=m.output if m.HasField("output") else None,
        state=json_object_from_pb(m.state_json, f"{where}.state_json"),
        usage=_usage_dict(m.usage),
        latency_ms=m.latency_ms,
        status=TRIAL_STATUS_FROM_PB.get(m.status, "ok"),
        error=(
            TrialError(code=m.error.code, message=m.error.message, retryable=m.error.retryable)
            if m.HasField("error")
            else None
        ),
        metadata=json_object_from_pb(m.metadata_json, f"{where}.metadata_json"),
    )
    result: Trace = validate_as(Trace, d, where)
    return result
