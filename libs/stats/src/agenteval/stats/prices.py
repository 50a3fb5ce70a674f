"""Default model prices, USD per million tokens (input, output).

This table is versioned with the code and meant to be edited: prices change, so check
the providers' pricing pages when you bump it. Keys are model-id prefixes; a dated id
such as "claude-sonnet-4-5-20250929" is priced by its longest matching prefix. A
deployment can override or extend the table without a release: point the env var
AGENTEVAL_PRICES at a JSON or YAML file (see `agenteval.stats.cost`).
Prompt-cache reads/writes and batch discounts are not modelled (list prices only).
"""

from __future__ import annotations

from typing import NamedTuple


class ModelPrice(NamedTuple):
    """List price in USD per million tokens."""

    input_per_mtok: float
    output_per_mtok: float


PRICES_VERSION = "2026-11"

DEFAULT_PRICES: dict[str, ModelPrice] = {
    # Anthropic
    "claude-opus-5-5": ModelPrice(4.0, 20.0),
    "claude-opus-5": ModelPrice(5.0, 25.0),
    "claude-sonnet-5-5": ModelPrice(2.0, 10.0),
    "claude-sonnet-5": ModelPrice(2.0, 10.0),
    "claude-opus-4-7": ModelPrice(5.0, 25.0),
    "claude-opus-4-6": ModelPrice(5.0, 25.0),
    "claude-opus-4-5": ModelPrice(5.0, 25.0),
    "claude-opus-4-1": ModelPrice(15.0, 75.0),
    "claude-opus-4": ModelPrice(15.0, 75.0),
    "claude-sonnet-4-6": ModelPrice(3.0, 15.0),
    "claude-sonnet-4-5": ModelPrice(3.0, 15.0),
    "claude-sonnet-4": ModelPrice(3.0, 15.0),
    "claude-haiku-4-5": ModelPrice(1.0, 5.0),
    "claude-3-7-sonnet": ModelPrice(3.0, 15.0),
    "claude-3-5-sonnet": ModelPrice(3.0, 15.0),
    "claude-3-5-haiku": ModelPrice(0.8, 4.0),
    "claude-3-opus": ModelPrice(15.0, 75.0),
    "claude-3-haiku": ModelPrice(0.25, 1.25),
    # OpenAI
    "gpt-5": ModelPrice(1.25, 10.0),
    "gpt-5-mini": ModelPrice(0.25, 2.0),
    "gpt-5-nano": ModelPrice(0.05, 0.4),
    "gpt-4.1": ModelPrice(2.0, 8.0),
    "gpt-4.1-mini": ModelPrice(0.4, 1.6),
    "gpt-4.1-nano": ModelPrice(0.1, 0.4),
    "gpt-4o": ModelPrice(2.5, 10.0),
    "gpt-4o-mini": ModelPrice(0.15, 0.6),
    "o3": ModelPrice(2.0, 8.0),
    "o4-mini": ModelPrice(1.1, 4.4),
    # Google (prompts up to 200k tokens)
    "gemini-2.5-pro": ModelPrice(1.25, 10.0),
    "gemini-2.5-flash": ModelPrice(0.3, 2.5),
}
