"""Span trees (OTLP and MLflow) to steps.

Both formats are read into :class:`SpanView` first; a span is an LLM call or a tool call by
whichever convention it follows: OpenTelemetry GenAI (``gen_ai.*``, current and older),
MLflow (``mlflow.spanType``), OpenInference (``openinference.span.kind``) or OpenLLMetry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agenteval.contracts.trace import Message, Step
from agenteval.importers._assemble import Draft, span_ms, to_int
from agenteval.importers._messages import (
    maybe_json,
    output_text,
    parse_arguments,
    to_messages,
)
from agenteval.importers._span_view import (
    IO_INPUT_KEYS,
    IO_OUTPUT_KEYS,
    SpanView,
    first,
    llm_input,
    llm_output,
)

SpanKind = Literal["llm", "tool"]

_LLM_OPERATIONS = {"chat", "text_completion", "generate_content", "completion"}
_TOOL_OPERATIONS = {"execute_tool", "retrieval"}
_MLFLOW_LLM = {"LLM", "CHAT_MODEL"}
_MLFLOW_TOOL = {"TOOL", "RETRIEVER"}


@dataclass
class SpanParts:
    """What a span tree says about a trial, before format-specific labels and metadata."""

    root: SpanView
    input: list[Message]
    drafts: list[Draft]
    output: str | None
    latency_ms: float
    error: str | None
    unmapped: list[str]


def span_kind(span: SpanView) -> SpanKind | None:
    a = span.attributes
    operation = a.get("gen_ai.operation.name")
    if operation in _LLM_OPERATIONS:
        return "llm"
    if operation in _TOOL_OPERATIONS:
        return "tool"
    for key, llm, tool in (
        ("mlflow.spanType", _MLFLOW_LLM, _MLFLOW_TOOL),
        ("openinference.span.kind", {"LLM"}, {"TOOL", "RETRIEVER"}),
        ("traceloop.span.kind", {"llm"}, {"tool"}),
    ):
        value = a.get(key)
        if isinstance(value, str):
            if value in llm:
                return "llm"
            if value in tool:
                return "tool"
    if operation is None and "gen_ai.tool.name" in a:
        return "tool"
    if operation is None and ("gen_ai.request.model" in a or "llm.request.type" in a):
        return "llm"
    return None


def span_error(span: SpanView) -> str | None:
    """Why a failed span failed; None when it did not fail."""
    if not span.failed:
        return None
    if span.status_message:
        return span.status_message
    for event in span.events:
        if event.name == "exception":
            kind = event.attributes.get("exception.type")
            message = event.attributes.get("exception.message")
            if kind or message:
                return f"{kind}: {message}" if kind and message else str(kind or message)
    return str(span.attributes.get("error.type") or "the span ended with an error")


def root_of(spans: list[SpanView]) -> SpanView:
    ids = {s.span_id for s in spans if s.span_id}
    roots = [s for s in spans if not s.parent_id or s.parent_id not in ids] or spans
    return min(roots, key=lambda s: (s.start_ns is None, s.start_ns or 0, s.order))


def assemble_spans(spans: list[SpanView]) -> SpanParts:
    root = root_of(spans)
    drafts: list[Draft] = []
    unmapped: list[str] = []
    for span in spans:
        kind = span_kind(span)
        if kind == "llm":
            drafts.append(_llm_draft(span))
        elif kind == "tool":
            drafts.append(_tool_draft(span))
        elif span is not root:
            unmapped.append(span.name)
    root_kind = span_kind(root)
    raw_input = (
        llm_input(root)
        if root_kind == "llm"
        else first(root.attributes, "gen_ai.input.messages", *IO_INPUT_KEYS)
    )
    raw_output = (
        llm_output(root)
        if root_kind == "llm"
        else first(root.attributes, "gen_ai.output.messages", *IO_OUTPUT_KEYS)
    )
    if root.end_ns is not None and not root.parent_id:  # a partial trace spans all its spans
        latency = span_ms(root.start_ns, root.end_ns)
    else:
        starts = [s.start_ns for s in spans if s.start_ns is not None]
        ends = [s.end_ns for s in spans if s.end_ns is not None]
        latency = span_ms(min(starts), max(ends)) if starts and ends else 0.0
    return SpanParts(
        root=root,
        input=to_messages(maybe_json(raw_input)),
        drafts=drafts,
        output=output_text(maybe_json(raw_output)),
        latency_ms=latency,
        error=span_error(root),
        unmapped=unmapped,
    )


def _llm_draft(span: SpanView) -> Draft:
    a = span.attributes
    raw_in, raw_out = llm_input(span), llm_output(span)
    usage = a.get("mlflow.chat.tokenUsage")
    usage = usage if isinstance(usage, dict) else {}
    raw_usage = raw_out.get("usage") if isinstance(raw_out, dict) else None
    reported = raw_usage if isinstance(raw_usage, dict) else {}
    model = first(a, "gen_ai.response.model", "gen_ai.request.model", "mlflow.llm.model", "llm.model_name")
    if model is None and isinstance(raw_out, dict):
        model = raw_out.get("model")
    if model is None and isinstance(raw_in, dict):
        model = raw_in.get("model")
    step = Step(
        type="llm_call",
        model=str(model) if model is not None else None,
        input_tokens=to_int(
            first(a, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt")
            or usage.get("input_tokens")
            or first(reported, "input_tokens", "prompt_tokens")
        ),
        output_tokens=to_int(
            first(
                a,
                "gen_ai.usage.output_tokens",
                "gen_ai.usage.completion_tokens",
                "llm.token_count.completion",
            )
            or usage.get("output_tokens")
            or first(reported, "output_tokens", "completion_tokens")
        ),
        content=output_text(raw_out),
        latency_ms=span_ms(span.start_ns, span.end_ns),
    )
    if span.failed:
        step.error = span_error(span)
    return Draft(step, span.start_ns, span.order, raw_in, raw_out)


def _tool_draft(span: SpanView) -> Draft:
    a = span.attributes
    name = first(a, "gen_ai.tool.name", "tool.name") or span.name.removeprefix("execute_tool ").strip()
    step = Step(
        type="tool_call",
        name=str(name),
        arguments=parse_arguments(first(a, "gen_ai.tool.call.arguments", *IO_INPUT_KEYS)),
        result=maybe_json(first(a, "gen_ai.tool.call.result", *IO_OUTPUT_KEYS)),
        error=span_error(span),
        latency_ms=span_ms(span.start_ns, span.end_ns),
    )
    return Draft(step, span.start_ns, span.order)
