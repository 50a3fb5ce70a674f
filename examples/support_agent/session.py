"""One trial of the support agent: its simulated model turns, tool calls and randomness.

Every model turn is recorded as an ``llm_call`` step (tokens grow with the context, as
with a real chat model), every tool call goes through the AgentContext, and every
random choice comes from ``ctx.rng`` so a trial replays exactly from its seed.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from examples.support_agent.profiles import Profile
from examples.support_agent.tools import SupportTools

if TYPE_CHECKING:
    from agenteval.sdk import AgentContext

LATENCY_SCALE_ENV = "AGENTEVAL_EXAMPLE_LATENCY_SCALE"
SYSTEM_PROMPT_TOKENS = 412
"""The system prompt plus the JSON schemas of eleven tools."""
TURN_LATENCY_MS = (1.0, 4.0)
"""Simulated model latency per turn, before scaling: a few ms keeps a 75-trial demo fast."""

T = TypeVar("T")


def latency_scale() -> float:
    """Multiplier of the simulated latency, from AGENTEVAL_EXAMPLE_LATENCY_SCALE (0 = no waiting)."""
    raw = os.environ.get(LATENCY_SCALE_ENV, "1.0")
    try:
        scale = float(raw)
    except ValueError:
        raise ValueError(f"{LATENCY_SCALE_ENV} must be a number, got {raw!r}") from None
    if scale < 0:
        raise ValueError(f"{LATENCY_SCALE_ENV} must not be negative, got {raw!r}")
    return scale


def count_tokens(text: str) -> int:
    """Rough token count: about four characters per token."""
    return max(1, len(text) // 4)


class Session:
    """The agent's working memory for one trial."""

    def __init__(self, messages: list[dict[str, Any]], ctx: AgentContext, profile: Profile) -> None:
        self.ctx = ctx
        self.profile = profile
        self.rng = ctx.rng
        self.tools = SupportTools(ctx.state)
        self._scale = latency_scale()
        self._context_tokens = SYSTEM_PROMPT_TOKENS + sum(
            4 + count_tokens(str(m.get("content") or "")) for m in messages
        )
        self._narrated = False

    # -- randomness --------------------------------------------------------------------
    def slips(self, mistake: str) -> bool:
        """Whether the model makes ``mistake`` (a Profile field) this time."""
        return self.rng.random() < getattr(self.profile, mistake)

    def pick(self, options: Sequence[T]) -> T:
        """One of several equally good wordings or choices."""
        return options[self.rng.randrange(len(options))]

    # -- model turns and tools ---------------------------------------------------------
    async def think(self, decision: str) -> None:
        """One model turn whose output is ``decision`` (a tool call or the answer)."""
        # Hidden reasoning tokens vary from turn to turn, like a real model's.
        output_tokens = count_tokens(decision) + self.rng.randint(8, 40)
        wait_ms = self.rng.uniform(*TURN_LATENCY_MS) * self._scale
        started = time.perf_counter()
        if wait_ms > 0:
            await asyncio.sleep(wait_ms / 1000.0)
        self.ctx.record_llm_call(
            self.profile.model,
            input_tokens=self._context_tokens,
            output_tokens=output_tokens,
            latency_ms=(time.perf_counter() - started) * 1000.0,
            output=decision,
        )
        self._context_tokens += output_tokens

    async def call(self, name: str, **arguments: Any) -> Any:
        """A model turn that decides to call tool ``name``, then the call (ToolError when it fails)."""
        if not self._narrated:
            self._narrated = True
            if self.slips("narrate"):
                self.ctx.say(self.pick(["Let me check that for you.", "One moment, I'm looking into it."]))
        await self.think(f"tool_use {name} {json.dumps(arguments, sort_keys=True)}")
        try:
            result = await self.ctx.acall_tool(name, getattr(self.tools, name), **arguments)
        except Exception as exc:
            self._context_tokens += 12 + count_tokens(str(exc))
            raise
        self._context_tokens += count_tokens(json.dumps(result, default=str))
        return result

    async def answer(self, text: str) -> str:
        """The last model turn: the final answer."""
        await self.think(text)
        return text
