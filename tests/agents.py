"""Small agents under test, used by the integration tests (python:tests.agents:NAME)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
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


def huge_report(messages: list[dict[str, Any]], ctx: Any) -> str:
    """A 3 MB tool result whose one fact sits at its very end, and a 1 MB answer quoting it:
    only a grader that sees the whole transcript can check the answer."""
    report = ctx.call_tool("fetch_report", lambda: "filler line\n" * 250_000 + "order total: 987654.32\n")
    return "Summary follows. " + "z" * 1_000_000 + f" The order total is {report.split(': ')[-1].strip()}."


async def timed_nap(messages: list[dict[str, Any]], ctx: Any) -> dict[str, Any]:
    """Sleeps 50 ms and reports when it ran (wall clock), so a test can count trials at once."""
    import time

    started = time.time()
    await asyncio.sleep(0.05)
    return {"output": "ok", "metadata": {"started": started, "ended": time.time()}}


RUNS_DIR = "AGENTEVAL_TEST_RUNS_DIR"
"""Where :func:`counted_nap` counts executions: agents run in worker processes, so a count in
memory would not reach the test; a line per execution in ``$AGENTEVAL_TEST_RUNS_DIR/<case>`` does."""


def runs_in(directory: str | os.PathLike[str]) -> dict[str, int]:
    """How many times each case ran, as :func:`counted_nap` counted them in ``directory``."""
    return {p.name: len(p.read_text().splitlines()) for p in Path(directory).iterdir()}


async def counted_nap(messages: list[dict[str, Any]], ctx: Any) -> str:
    """Sleeps 2.5 s, counting each execution of its case."""
    with open(Path(os.environ[RUNS_DIR]) / ctx.case_id, "a") as f:
        f.write("ran\n")
    await asyncio.sleep(2.5)
    return "ok"


async def long_nap(messages: list[dict[str, Any]], ctx: Any) -> str:
    """Sleeps 2 s: long enough to be running when a test kills its runner."""
    await asyncio.sleep(2.0)
    return "ok"


async def odd_values(messages: list[dict[str, Any]], ctx: Any) -> str:
    """Reports values a 32-bit column or a careless recorder would not take, by the user's word:
    "huge" records 3,000,000,000 input tokens (fine: counts are 64-bit), "impossible" sets
    a count past 64 bits behind the recorder's back (the trial must end as an error)."""
    text = _last_user(messages)
    if text == "huge":
        ctx.record_llm_call("claude-haiku-4-5", input_tokens=3_000_000_000, output_tokens=7)
    elif text == "impossible":
        ctx.usage.input_tokens = 10**30
    return f"done: {text}"


async def coin_nap(messages: list[dict[str, Any]], ctx: Any) -> str:
    """A seeded coin after a nap of 0.2-0.4 s (long enough to break things mid-run)."""
    heads = ctx.rng.random() < 0.5
    await asyncio.sleep(0.2 + ctx.rng.random() * 0.2)
    return "heads" if heads else "tails"


def asks_weather(messages: list[dict[str, Any]], ctx: Any) -> str:
    """A sync agent that asks the 'weather' tool (which only a case's mock implements) about
    the city in the question, and answers with the forecast or the tool's error."""
    from agenteval.sdk import ToolError

    city = _last_user(messages).rsplit(" ", 1)[-1].strip("?")
    try:
        found = ctx.call_tool("weather", None, city=city)
    except ToolError as exc:
        return f"no forecast: {exc}"
    return f"{found['city']}: {found['forecast']} (pid {found['pid']})"
