"""Token cost in USD from a price table (see `agenteval.stats.prices`)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agenteval.stats.prices import DEFAULT_PRICES, ModelPrice

PRICES_ENV = "AGENTEVAL_PRICES"

PriceTable = Mapping[str, ModelPrice | tuple[float, float]]

_loaded: dict[tuple[str, float], dict[str, ModelPrice]] = {}


def _parse_price(model: str, value: Any) -> ModelPrice:
    if isinstance(value, Mapping):
        return ModelPrice(float(value["input"]), float(value["output"]))
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return ModelPrice(float(value[0]), float(value[1]))
    raise ValueError(f"price of {model!r} must be {{input, output}} or [input, output], got {value!r}")


def load_prices(path: str | Path) -> dict[str, ModelPrice]:
    """Read a price file: a JSON or YAML mapping of model prefix to {input, output} or
    [input, output] in USD per million tokens."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    if p.suffix.lower() in (".yaml", ".yml"):
        import yaml  # only needed for YAML overrides

        data = yaml.safe_load(text)
    else:
        data = json.loads(text)
    if not isinstance(data, Mapping):
        raise ValueError(f"{p}: expected a mapping of model prefix to price")
    return {str(k): _parse_price(str(k), v) for k, v in data.items()}


def active_prices() -> dict[str, ModelPrice]:
    """The default table, overridden/extended by the file named in $AGENTEVAL_PRICES.

    The file is read on first use and again whenever its modification time changes.
    """
    table = dict(DEFAULT_PRICES)
    path = os.environ.get(PRICES_ENV)
    if path:
        key = (path, os.stat(path).st_mtime)
        if key not in _loaded:
            _loaded.clear()
            _loaded[key] = load_prices(path)
        table.update(_loaded[key])
    return table


def _normalize(model: str) -> str:
    # Provider-qualified ids: "anthropic/claude-...", "us.anthropic.claude-...-v1:0".
    name = model.strip().lower().rsplit("/", 1)[-1]
    if "anthropic." in name:
        name = name.split("anthropic.", 1)[1]
    return name


def _lookup(model: str, prices: PriceTable | None) -> ModelPrice | None:
    table = active_prices() if prices is None else prices
    name = _normalize(model)
    for prefix in sorted(table, key=len, reverse=True):
        p = prefix.lower()
        # A prefix must end at a separator: "o3" must not price "o3x", nor a
        # "gpt-4" entry price "gpt-4o". Longest prefix first picks the dated family.
        if name == p or (name.startswith(p) and not name[len(p)].isalnum()):
            value = table[prefix]
            return value if isinstance(value, ModelPrice) else ModelPrice(*value)
    return None


def known_model(model: str, prices: PriceTable | None = None) -> bool:
    """True when the model has a price in the table."""
    return _lookup(model, prices) is not None


def cost_usd(model: str, input_tokens: int, output_tokens: int, prices: PriceTable | None = None) -> float:
    """USD cost of the tokens at list price; 0.0 for a model not in the table
    (check with `known_model`). `prices` replaces the active table when given."""
    price = _lookup(model, prices)
    if price is None:
        return 0.0
    return (input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1_000_000


def unpriced_tokens(
    models: Mapping[str, Mapping[str, int]],
    input_tokens: int,
    output_tokens: int,
    prices: PriceTable | None = None,
) -> int:
    """Tokens of a trial that no price can be put on: those not attributed to any model (a
    usage reported without its model) and those of models missing from the price table. When
    it is above 0, the trial's cost is unknown, not $0."""
    attributed_in = attributed_out = unknown = 0
    for model, tokens in models.items():
        n_in, n_out = int(tokens.get("input_tokens", 0)), int(tokens.get("output_tokens", 0))
        attributed_in += n_in
        attributed_out += n_out
        if not known_model(model, prices):
            unknown += n_in + n_out
    return unknown + max(0, input_tokens - attributed_in) + max(0, output_tokens - attributed_out)
