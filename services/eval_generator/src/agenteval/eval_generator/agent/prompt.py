"""What the eval-generation agent is told: system prompt, messages, tool schemas; reading its replies."""

from __future__ import annotations

import json
import re
from typing import Any

from agenteval.eval_generator.agent.tools import DEFAULT_LIMIT, MAX_LIMIT, MAX_TRACE_CHARS, defines_eval

WRAP_UP_MESSAGE = "Provide your final eval function now. No more tool calls allowed."
"""Sent (with tools withdrawn) when the loop nears its step limit."""

TRACE_SCHEMA = """\
The eval function receives one trace as a plain dict with these keys:
- input: list of {"role", "content"} dicts, the conversation given to the agent.
- steps: list of flat dicts, in order; "type" is "message", "tool_call" or "llm_call".
  - tool_call: "name", "arguments" (dict), "result" (any JSON value), "error" (str or None).
  - message: "role", "content".
  - llm_call: "model", "content", "input_tokens", "output_tokens".
  - every step: "latency_ms".
- tool_calls: the steps whose type is "tool_call" (the same dicts).
- output: the agent's final answer (str or None).
- state: the agent's final state (dict of what its tools changed).
- usage: {"input_tokens", "output_tokens", "models"}.
- latency_ms: wall time of the trial.
- status: "ok", "error" or "timeout"; error: None or {"code", "message", "retryable"}.
- metadata: a free-form dict.
Any field may be missing or None in imported traces: read with .get() and defaults."""


def system_prompt(name: str, *, target_accuracy: float, max_attempts: int) -> str:
    """The system prompt: a methodical process, the function's contract and the trace schema."""
    target = f"{target_accuracy:.0%}"
    return f"""\
You are an eval function generator. Your job is to write a Python function that tells \
good agent traces from bad ones, learned from traces that people labeled positive (good) \
or negative (bad).

## Your process
1. Fetch samples: use fetch_traces to get positive AND negative examples.
2. Analyze patterns: read several traces of each label in full with get_trace_details and \
find what distinguishes them (tools called or missing, tool errors, the output, the final \
state, the status, the number of steps...).
3. Write the eval: def eval_{name}(trace: dict, ctx=None) -> tuple[float, str]
4. Test: use test_eval_code (without trace_ids) to measure accuracy on all training traces.
5. Refine: if accuracy is below {target}, study the mismatches, inspect those traces and \
improve the function.

## Eval function requirements
- Exact signature: def eval_{name}(trace: dict, ctx=None) -> tuple[float, str]
- Return (score from 0.0 to 1.0, a short explanation string).
- Score >= 0.5 means positive (good quality); score < 0.5 means negative (bad quality).
- Allowed imports: json, re, typing, math, datetime, difflib. No I/O, no open/eval/exec, \
no dunder attributes.
- Never raise: handle missing fields and unexpected types. Be deterministic; ignore ctx.

## The trace dict
{TRACE_SCHEMA}

## Tips
- Focus on patterns that generalize, not trace-specific hacks: never match trace ids or \
text copied from a few traces. The function is scored afterwards on traces you never see.
- Prefer a few robust signals over many brittle ones.
- Use get_trace_details to inspect specific traces (mismatches especially).
- If context gets large, keep findings with write_note / read_note; track your plan with \
manage_todos.

## Success criteria
Stop when accuracy on all training traces is >= {target}. You have up to {max_attempts} \
test attempts (every test_eval_code call uses one). When you are done, reply with the \
final function in a single ```python block."""


def first_message(name: str, start_code: str | None = None) -> str:
    """The user message that starts the loop, with an optional starting point."""
    text = (
        f"Generate the eval function eval_{name}. The labeled training traces are available "
        "through fetch_traces (positive = good, negative = bad). Start by fetching examples "
        "of both labels to understand the patterns."
    )
    if start_code and start_code.strip():
        text += (
            "\n\nA simple rule-based synthesizer proposed this function as a starting point. "
            "It may be weak: test it, improve it or replace it.\n\n"
            f"```python\n{start_code.strip()}\n```"
        )
    return text


def wrap_up_message(name: str) -> str:
    """The wrap-up instruction, naming the function and the expected format."""
    return f"{WRAP_UP_MESSAGE} Reply with the complete eval_{name} function in a single ```python block."


def missing_code_message(name: str) -> str:
    """Sent after a wrap-up reply that held no usable function."""
    return (
        f"Your reply has no ```python block defining eval_{name}(trace, ctx=None). "
        "Reply with the complete final function in a single ```python block."
    )


def cut_off_message(max_tokens: int) -> str:
    """Sent after a reply that was cut off at the token limit (its tool calls were not run)."""
    return (
        f"Your last reply was cut off at the limit of {max_tokens} output tokens, so none of it "
        "was run. Reply again, shorter: less explanation, one tool call or one compact function."
    )


def _schema(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return {"name": name, "description": description, "input_schema": schema}


TOOL_SCHEMAS: list[dict[str, Any]] = [
    _schema(
        "fetch_traces",
        "List labeled training traces as summaries (the first 200 characters of the output, the "
        "number of steps, whether tools were called, the agent it came from when known) with the "
        "total count, by rating and agent. Use get_trace_details to read a trace in full.",
        {
            "rating": {
                "type": "string",
                "enum": ["positive", "negative", "all"],
                "description": "Which label to list (default all).",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "description": f"How many traces (default {DEFAULT_LIMIT}, at most {MAX_LIMIT}).",
            },
            "offset": {"type": "integer", "minimum": 0, "description": "How many to skip (default 0)."},
            "agent_id": {
                "type": "string",
                "description": "Only traces from this agent (the agent_id a listed trace shows; default all).",
            },
        },
        [],
    ),
    _schema(
        "get_trace_details",
        "The full trace dict of one training trace, exactly what the eval function receives "
        f"(very long values are shortened to keep it under about {MAX_TRACE_CHARS // 1000} KB).",
        {"trace_id": {"type": "string", "description": "A trace_id from fetch_traces or a mismatch."}},
        ["trace_id"],
    ),
    _schema(
        "test_eval_code",
        "Run an eval function on labeled training traces: accuracy, counts and the mismatches "
        "(expected vs predicted label, score, explanation, error). Every call uses one of your "
        "limited attempts; only a test on all traces (no trace_ids) counts toward the target.",
        {
            "code": {
                "type": "string",
                "description": "Complete Python source defining def eval_NAME(trace: dict, ctx=None) -> tuple[float, str].",
            },
            "trace_ids": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Test only these traces (default: all training traces).",
            },
        },
        ["code"],
    ),
    _schema(
        "write_note",
        "Save a note (replaces a note of the same name): findings, hypotheses, drafts.",
        {"name": {"type": "string"}, "content": {"type": "string"}},
        ["name", "content"],
    ),
    _schema("read_note", "Read a saved note.", {"name": {"type": "string"}}, ["name"]),
    _schema("list_notes", "List the saved notes with their sizes.", {}, []),
    _schema(
        "manage_todos",
        "Replace your todo list (to plan and track the work); returns it.",
        {
            "todos": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "task": {"type": "string"},
                        "status": {"type": "string", "enum": ["pending", "in_progress", "done"]},
                    },
                    "required": ["task"],
                },
            }
        },
        ["todos"],
    ),
]
"""The tools in the Messages API's format."""


_CODE_BLOCK = re.compile(r"```[ \t]*(?:python|py)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)


def extract_eval_code(text: str, name: str) -> str | None:
    """The last fenced code block in ``text`` that defines ``eval_<name>``, if any."""
    blocks = [b.strip() for b in _CODE_BLOCK.findall(text)]
    found = [b for b in blocks if defines_eval(b, name)]
    return found[-1] if found else None


def append_user_text(messages: list[dict[str, Any]], text: str) -> None:
    """Add ``text`` to the last user turn (after its tool results), or as a new user turn."""
    last = messages[-1] if messages else None
    if last is None or last["role"] != "user":
        messages.append({"role": "user", "content": text})
        return
    content = last["content"]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    last["content"] = [*blocks, {"type": "text", "text": text}]


def as_text_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation with its tool calls and results written out as text."""
    names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            out.append({"role": message["role"], "content": content})
            continue
        parts: list[str] = []
        for block in content:
            kind = block.get("type")
            if kind == "text":
                parts.append(block["text"])
            elif kind == "tool_use":
                names[block["id"]] = block["name"]
                parts.append(
                    f"[called {block['name']} with {json.dumps(block['input'], ensure_ascii=False)}]"
                )
            elif kind == "tool_result":
                tool = names.get(block["tool_use_id"], "a tool")
                label = "error from" if block.get("is_error") else "result of"
                parts.append(f"[{label} {tool}]\n{block['content']}")
        out.append({"role": message["role"], "content": "\n\n".join(parts) or "(empty)"})
    return out


__all__ = [
    "TOOL_SCHEMAS",
    "TRACE_SCHEMA",
    "WRAP_UP_MESSAGE",
    "append_user_text",
    "as_text_messages",
    "cut_off_message",
    "extract_eval_code",
    "first_message",
    "missing_code_message",
    "system_prompt",
    "wrap_up_message",
]
