"""Agent versions as failure profiles: how often the simulated model makes each kind of mistake.

A real LLM agent is not wrong at random: it has characteristic slips (acting on an earlier
request after the customer changed their mind, skipping a confirmation, papering over a
tool error). Each probability below is one such slip, drawn from the trial's seeded RNG
at the point where the model would make it.
"""

from __future__ import annotations

from dataclasses import dataclass

MODEL = "claude-haiku-4-5"


@dataclass(frozen=True)
class Profile:
    """One agent version: its name, its model and the probability of each slip."""

    name: str
    model: str = MODEL
    stale_intent: float = 0.4
    """Multi-turn change of mind: acts on the customer's first request instead of the latest."""
    skip_confirmation: float = 0.3
    """Issues a refund above the confirmation limit without asking first."""
    ignore_tool_error: float = 0.25
    """Answers as if a failed lookup had succeeded (makes the status up)."""
    retry_after_error: float = 0.5
    """Retries a failed call once before giving up (harmless, costs a step)."""
    skip_lookup: float = 0.1
    """Acts on an order (cancel, refund) without looking it up first."""
    skip_ownership_check: float = 0.15
    """Emails order documents to whoever asks, without matching the email on file."""
    sloppy_order_id: float = 0.08
    """First calls a tool with a malformed id ('#A1001'), then retries with the right one."""
    ask_for_order_id: float = 0.8
    """Asks the customer for an order number it could have found by searching their email.
    The suite's hard case: most models under-use search tools."""
    wrong_tool: float = 0.1
    """Searches the knowledge base for a stock question instead of checking inventory."""
    mental_math: float = 0.1
    """Does arithmetic in its head instead of with the calculator (and gets it wrong)."""
    forget_followup: float = 0.12
    """Forgets the second part of a two-part request (the confirmation email)."""
    reask_confirmation: float = 0.05
    """Asks for confirmation again although the customer just gave it."""
    no_escalation: float = 0.1
    """Tries to placate an angry customer who asked for a human instead of escalating."""
    answer_from_memory: float = 0.08
    """Answers a policy question from 'memory' (a generic, wrong answer) without the KB."""
    chitchat_tool: float = 0.05
    """Calls a tool for small talk that needs none."""
    narrate: float = 0.35
    """Says 'let me check' before its first tool call (style only)."""


V1 = Profile(name="v1")
"""The baseline: mostly right, with a few realistic weak spots."""

V2 = Profile(
    name="v2",
    stale_intent=0.7,
    skip_confirmation=0.6,
    ignore_tool_error=0.6,
    retry_after_error=0.2,
    forget_followup=0.35,
    chitchat_tool=0.25,
)
"""A regression: a shortened system prompt that lost the confirmation, error-handling and
multi-turn rules (same model, same tools)."""

PROFILES: dict[str, Profile] = {p.name: p for p in (V1, V2)}
