"""Agents for the report tests (python:tests.reports.agents:NAME): each answers a case's
input in upper case, which is what the suite's output_contains graders expect."""

from __future__ import annotations

from typing import Any

BROKEN = ("beta", "delta")
"""The cases `bad` always fails."""


def _question(messages: list[dict[str, Any]]) -> str:
    return next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")


def _answer(messages: list[dict[str, Any]], ctx: Any) -> str:
    ctx.record_llm_call("claude-haiku-4-5", input_tokens=100, output_tokens=20, latency_ms=1.0)
    return f"answer: {_question(messages).upper()}"


async def good(messages: list[dict[str, Any]], ctx: Any) -> str:
    """Always right."""
    return _answer(messages, ctx)


async def bad(messages: list[dict[str, Any]], ctx: Any) -> str:
    """Right, except on the BROKEN cases, which it always gets wrong."""
    if _question(messages) in BROKEN:
        return "answer: no idea"
    return _answer(messages, ctx)


async def noisy(messages: list[dict[str, Any]], ctx: Any) -> str:
    """Right with probability 0.7, from the trial's seeded RNG."""
    if ctx.rng.random() < 0.7:
        return _answer(messages, ctx)
    return "answer: no idea"


async def crashy(messages: list[dict[str, Any]], ctx: Any) -> str:
    """Right, except that it raises on "beta" (every trial of it is an error)."""
    if _question(messages) == "beta":
        raise RuntimeError("beta tool is down")
    return _answer(messages, ctx)


async def bad_crashy(messages: list[dict[str, Any]], ctx: Any) -> str:
    """Like `bad` (wrong on the BROKEN cases), but raising on "beta" instead of answering wrong."""
    if _question(messages) == "beta":
        raise RuntimeError("beta tool is down")
    return await bad(messages, ctx)


async def moody(messages: list[dict[str, Any]], ctx: Any) -> str:
    """Right on "gamma", right 70% of the time on "alpha", right on the BROKEN cases: a good day."""
    if _question(messages) == "alpha":
        return await noisy(messages, ctx)
    return _answer(messages, ctx)


async def moody_down(messages: list[dict[str, Any]], ctx: Any) -> str:
    """`moody` on a day a dependency is down for the whole run: the BROKEN cases go wrong.
    (Two functions, not a flag: agents run in worker processes, where a test's flag is not.)"""
    if _question(messages) in BROKEN:
        return "answer: no idea"
    return await moody(messages, ctx)
