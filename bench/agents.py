"""Agents under test of the benchmarks (``python:bench.agents:NAME``)."""

from __future__ import annotations

import asyncio
from typing import Any

from bench.transcripts import make_transcript

SLEEP_S = 0.2
"""How long :func:`sleeper` waits: W2's achieved concurrency is computed from it."""


async def instant(messages: list[dict[str, Any]], ctx: Any) -> str:
    """W1: answers at once, always the same."""
    return "ok"


async def sleeper(messages: list[dict[str, Any]], ctx: Any) -> str:
    """W2: waits 200 ms (an LLM call's worth of idle time), then answers."""
    await asyncio.sleep(SLEEP_S)
    return "ok"


async def transcript(messages: list[dict[str, Any]], ctx: Any) -> dict[str, Any]:
    """W3: reports a ~5 KB support-desk transcript (steps, usage, state) for its case."""
    index = int(ctx.case_id.rsplit("-", 1)[-1]) if ctx.case_id[-1:].isdigit() else 0
    return make_transcript(index)
