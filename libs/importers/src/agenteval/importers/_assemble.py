"""Shared last mile of every importer: order steps, recover tool calls, sum usage, assign the id."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from agenteval.contracts.trace import Message, Step, Trace, TrialError, TrialStatus, Usage
from agenteval.importers._messages import (
    text_of,
    to_messages,
    tool_requests,
    tool_responses,
)
from agenteval.importers._model import ImportedTrace, Label


class RecordError(ValueError):
    """A record that cannot be imported; the message is the reason shown to the user."""


@dataclass
class Draft:
    """A step before ordering, with the raw model payloads kept to recover tool calls."""

    step: Step
    start_ns: int | None
    order: int
    raw_input: Any = None
    raw_output: Any = None


def order_drafts(drafts: list[Draft]) -> list[Draft]:
    """By start time; steps without one keep their place after the timed ones, in file order."""
    return sorted(drafts, key=lambda d: (d.start_ns is None, d.start_ns or 0, d.order))


def recover_tool_calls(drafts: list[Draft]) -> tuple[list[Draft], bool]:
    """When a source recorded no tool spans, rebuild tool calls from what the model asked for.

    Results are matched by call id against the tool messages of later model inputs.
    """
    if any(d.step.type == "tool_call" for d in drafts):
        return drafts, False
    responses: dict[str, tuple[Any, bool]] = {}
    for d in drafts:
        if d.step.type == "llm_call":
            responses.update(tool_responses(d.raw_input))
    out: list[Draft] = []
    recovered = False
    for d in drafts:
        out.append(d)
        if d.step.type != "llm_call":
            continue
        for request in tool_requests(d.raw_output):
            result, failed = responses.get(request.id or "", (None, False))
            step = Step(
                type="tool_call",
                name=request.name,
                arguments=request.arguments,
                result=None if failed else result,
                error=(text_of(result) or "tool call failed") if failed else None,
            )
            out.append(Draft(step, d.start_ns, d.order))
            recovered = True
    return out, recovered


def usage_of(steps: list[Step]) -> Usage:
    usage = Usage()
    for step in steps:
        if step.type != "llm_call":
            continue
        usage.input_tokens += step.input_tokens
        usage.output_tokens += step.output_tokens
        if step.model:
            per_model = usage.models.setdefault(step.model, {"input_tokens": 0, "output_tokens": 0})
            per_model["input_tokens"] += step.input_tokens
            per_model["output_tokens"] += step.output_tokens
    return usage


def build_trace(
    *,
    input: list[Message],
    drafts: list[Draft],
    output: str | None,
    latency_ms: float,
    metadata: dict[str, Any],
    error_message: str | None = None,
) -> Trace:
    """A Trace from ordered drafts; a final answer missing at the top is taken from the last LLM call."""
    drafts, recovered = recover_tool_calls(order_drafts(drafts))
    steps = [d.step for d in drafts]
    if recovered:
        metadata = {**metadata, "tool_calls_recovered_from": "llm_output"}
    status: TrialStatus = "ok"
    error = None
    if error_message is not None:
        status = "error"
        error = TrialError(code="agent_error", message=error_message)
    elif output is None:
        output = next((s.content for s in reversed(steps) if s.type == "llm_call" and s.content), None)
    if not input:
        input = _first_llm_input(drafts)
    return Trace(
        input=input,
        steps=steps,
        output=output,
        usage=usage_of(steps),
        latency_ms=max(latency_ms, 0.0),
        status=status,
        error=error,
        metadata=metadata,
    )


def _first_llm_input(drafts: list[Draft]) -> list[Message]:
    for d in drafts:
        if d.step.type == "llm_call" and (messages := to_messages(d.raw_input)):
            return messages
    return []


def content_id(trace: Trace) -> str:
    """sha256 of the trace's canonical JSON, 32 hex chars: the same content always gets the same id."""
    canonical = json.dumps(
        trace.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:32]


AGENT_KEYS = ("agent_id", "agent", "source")
"""Where a record names the agent (or source) it came from, in the order they are tried."""


def agent_of(*docs: dict[str, Any]) -> Any:
    """The agent a trace came from: agent_id, else agent, else source, in the first doc that has it."""
    for key in AGENT_KEYS:
        for doc in docs:
            value = doc.get(key)
            if value in (None, "") or (key == "source" and not isinstance(value, (str, int))):
                continue  # a "source" object describes an export, not an agent
            return value
    return None


def imported(
    trace: Trace,
    *,
    source_id: Any,
    label: Label | None,
    comment: Any,
    rater: Any,
    source_format: str,
    agent: Any = None,
) -> ImportedTrace:
    """The import record; refuses traces that carry nothing to learn from.

    The agent is kept on the trace too (``metadata.agent_id``), where eval functions see it.
    """
    if not trace.input and not trace.steps and trace.output is None:
        raise RecordError("the trace has no input, steps or output; nothing to import")
    agent_name = optional_text(agent, "agent_id")
    if agent_name is not None:
        agent_name = agent_name.strip()[:200] or None
    if agent_name is not None and trace.metadata.get("agent_id") != agent_name:
        trace.metadata = {**trace.metadata, "agent_id": agent_name}
    trace_id = str(source_id).strip() if source_id not in (None, "") else ""
    return ImportedTrace(
        trace_id=trace_id or content_id(trace),
        trace=trace,
        label=label,
        comment=optional_text(comment, "comment"),
        rater=optional_text(rater, "rater"),
        source_format=source_format,
        agent=agent_name,
    )


def optional_text(value: Any, what: str) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value)
    raise RecordError(f"{what} must be a string, got {type(value).__name__}")


def validation_reason(exc: ValidationError, prefix: str = "") -> str:
    """A one-line summary of a pydantic error: the first few fields and what is wrong with them."""
    errors = exc.errors()
    parts = [f"{prefix}{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in errors[:3]]
    if len(errors) > 3:
        parts.append(f"and {len(errors) - 3} more")
    return "; ".join(parts)


def object_at(doc: dict[str, Any], key: str) -> dict[str, Any]:
    """The JSON object under ``key``; an empty dict when it is missing or not an object."""
    value = doc.get(key)
    return value if isinstance(value, dict) else {}


def to_int(value: Any) -> int:
    """Token counts as sent by any exporter (ints, floats, numeric strings); 0 when absent or unreadable."""
    if isinstance(value, bool) or value is None:
        return 0
    if isinstance(value, int):
        return value
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0
    return int(number) if math.isfinite(number) else 0


def to_ns(value: Any) -> int | None:
    """Unix nanoseconds from an int, a digit string or an ISO 8601 timestamp."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return int(text)
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        delta = moment - datetime(1970, 1, 1, tzinfo=UTC)
        return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000
    return None


def span_ms(start_ns: int | None, end_ns: int | None) -> float:
    if start_ns is None or end_ns is None or end_ns < start_ns:
        return 0.0
    return (end_ns - start_ns) / 1e6
