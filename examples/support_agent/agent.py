"""Entry points of the example support agent: ``python:examples.support_agent.agent:run``.

``run`` is version v1 (the baseline), ``run_v2`` a regressed version with the same tools and
model but more frequent slips, so two runs of the suite can be compared.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from examples.support_agent.parsing import parse_conversation
from examples.support_agent.playbook import respond
from examples.support_agent.profiles import V1, V2, Profile
from examples.support_agent.session import Session

if TYPE_CHECKING:
    from agenteval.sdk import AgentContext

Agent = Callable[[list[dict[str, Any]], "AgentContext"], Awaitable[str]]


async def answer_with(profile: Profile, messages: list[dict[str, Any]], ctx: AgentContext) -> str:
    """Run one trial of the agent with ``profile`` and return its final answer."""
    session = Session(messages, ctx, profile)
    return await respond(session, parse_conversation(messages))


def make_agent(profile: Profile) -> Agent:
    """An agent function (``agent(messages, ctx)``) for one profile."""

    async def agent(messages: list[dict[str, Any]], ctx: AgentContext) -> str:
        return await answer_with(profile, messages, ctx)

    agent.__name__ = f"run_{profile.name}"
    agent.__doc__ = f"The support agent, version {profile.name}."
    return agent


async def run(messages: list[dict[str, Any]], ctx: AgentContext) -> str:
    """The support agent, version v1 (baseline)."""
    return await answer_with(V1, messages, ctx)


async def run_v2(messages: list[dict[str, Any]], ctx: AgentContext) -> str:
    """The support agent, version v2 (a regression: skips confirmations, ignores tool errors more)."""
    return await answer_with(V2, messages, ctx)
