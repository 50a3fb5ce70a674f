"""Small agents under test, used by the integration tests (python:tests.agents:NAME)."""

from __future__ import annotations

import asyncio
import time
from typing import Any


def _last_user(messages: list[dict[str, Any]]) -> str:
    return next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")


async def echo_tool(messages: list[dict[str, Any]], ctx: Any) -> str:
    """Calls the 'lookup' tool with the question, then answers with what it found."""
    question = _last_user(messages)
    found = await ctx.acall_tool("lookup", lambda query: {"answer": query.upper()}, query=question)
    ctx.record_llm_call("claude-haiku-4-5", input_tokens=100, output_tokens=20, latency_ms=1.0)
    return f"ANSWER: {found['answer']}"


async def coin(messages: list[dict[str, Any]], ctx: Any) -> str:
    """Says 'heads' or 'tails' from the trial's seeded RNG."""
    return "heads" if ctx.rng.random() < 0.5 else "tails"


def sync_agent(messages: list[dict[str, Any]], ctx: Any) -> str:
    """A synchronous agent that uses a sync tool."""
    n = ctx.call_tool("count", lambda text: len(text), text=_last_user(messages))
    return f"{n} characters"


async def raises(messages: list[dict[str, Any]], ctx: Any) -> str:
    raise RuntimeError("the agent broke")


async def slow(messages: list[dict[str, Any]], ctx: Any) -> str:
    await asyncio.sleep(30)
    return "too late"


def blocking_slow(messages: list[dict[str, Any]], ctx: Any) -> str:
    time.sleep(2)
    return "too late"


def returns_trace(messages: list[dict[str, Any]], ctx: Any) -> dict[str, Any]:
    return {
        "output": "done",
        "steps": [{"type": "tool_call", "name": "search", "arguments": {"q": "x"}, "result": [1, 2]}],
        "usage": {"input_tokens": 5, "output_tokens": 7},
    }


async def instant(messages: list[dict[str, Any]], ctx: Any) -> str:
    return "ok"


def huge_output(messages: list[dict[str, Any]], ctx: Any) -> str:
    """A tool that returns 3 MB: the transcript must still travel and be stored."""
    ctx.call_tool("dump", lambda: "x" * 3_000_000)
    return "done " + "y" * 2_000_000
