"""How an LLM judge reads a transcript: task, steps, final answer, with long values cut."""

from __future__ import annotations

import json
from typing import Any

from agenteval.contracts.trace import Step, Trace

# Limits that keep a long transcript within a judge's context and budget.
MAX_VALUE_CHARS = 1500
MAX_MESSAGE_CHARS = 3000
MAX_OUTPUT_CHARS = 6000
MAX_STEPS_SHOWN = 80


def clip(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters, keeping its head and tail."""
    if len(text) <= limit:
        return text
    head = (limit * 2) // 3
    tail = limit - head
    return f"{text[:head]}…[{len(text) - head - tail} chars cut]…{text[len(text) - tail :]}"


def _value(value: Any, limit: int = MAX_VALUE_CHARS) -> str:
    text = (
        value
        if isinstance(value, str)
        else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    )
    return clip(text, limit)


def _render_step(index: int, step: Step) -> str:
    if step.type == "tool_call":
        lines = [
            f"[{index}] tool call: {step.name or '(unnamed tool)'}",
            f"    arguments: {_value(step.arguments)}",
        ]
        if step.error:
            lines.append(f"    error: {clip(step.error, MAX_VALUE_CHARS)}")
        else:
            lines.append(f"    result: {_value(step.result)}")
        return "\n".join(lines)
    if step.type == "llm_call":
        return (
            f"[{index}] model output ({step.model or 'model'}): {clip(step.content or '', MAX_MESSAGE_CHARS)}"
        )
    return f"[{index}] {step.role or 'assistant'} message: {clip(step.content or '', MAX_MESSAGE_CHARS)}"


def render_task(trace: Trace) -> str:
    """The conversation the agent was given."""
    if not trace.input:
        return "(no input recorded)"
    return "\n".join(f"[{m.role}] {clip(m.content, MAX_MESSAGE_CHARS)}" for m in trace.input)


def render_transcript(trace: Trace) -> str:
    """The transcript as the judge reads it: task, steps, final answer and status."""
    steps = list(enumerate(trace.steps, start=1))
    if len(steps) > MAX_STEPS_SHOWN:
        half = MAX_STEPS_SHOWN // 2
        cut = len(steps) - 2 * half
        shown = [_render_step(i, s) for i, s in steps[:half]]
        shown.append(f"… {cut} steps omitted …")
        shown += [_render_step(i, s) for i, s in steps[-half:]]
    else:
        shown = [_render_step(i, s) for i, s in steps]
    status: str = trace.status
    if trace.error is not None:
        status += f" ({trace.error.code}: {clip(trace.error.message, MAX_VALUE_CHARS)})"
    output = clip(trace.output, MAX_OUTPUT_CHARS) if trace.output is not None else "(no final answer)"
    return (
        f"<task>\n{render_task(trace)}\n</task>\n"
        f'<steps count="{len(trace.steps)}">\n{chr(10).join(shown) or "(no steps)"}\n</steps>\n'
        f"<final_answer>\n{output}\n</final_answer>\n"
        f"<status>{status}</status>"
    )
