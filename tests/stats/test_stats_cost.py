import json

import pytest

from agenteval.stats import (
    DEFAULT_PRICES,
    PRICES_ENV,
    ModelPrice,
    active_prices,
    cost_usd,
    known_model,
    unpriced_tokens,
)


@pytest.mark.parametrize(
    "model,expected",
    [
        ("claude-opus-4-1-20250805", 15 + 75),
        ("claude-opus-4-20250514", 15 + 75),
        ("claude-sonnet-4-5-20250929", 3 + 15),
        ("claude-sonnet-4-20250514", 3 + 15),
        ("claude-haiku-4-5", 1 + 5),
        ("claude-3-5-haiku-20241022", 0.8 + 4),
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", 3 + 15),
        ("anthropic/claude-haiku-4-5", 1 + 5),
        ("gpt-4o-mini-2024-07-18", 0.15 + 0.6),
        ("gpt-4o", 2.5 + 10),
    ],
)
def test_default_prices_per_million(model, expected):
    assert cost_usd(model, 1_000_000, 1_000_000) == pytest.approx(expected)
    assert known_model(model)


def test_cost_scales_with_tokens():
    assert cost_usd("claude-sonnet-4-5", 2000, 500) == pytest.approx((2000 * 3 + 500 * 15) / 1e6)


def test_unknown_model_costs_nothing_and_is_flagged():
    assert cost_usd("my-local-llama", 10**6, 10**6) == 0.0
    assert not known_model("my-local-llama")
    assert not known_model("o3x"), "a prefix must end at a separator"


def test_explicit_price_table_replaces_defaults():
    prices = {"house-model": (1.0, 2.0)}
    assert cost_usd("house-model-v2", 10**6, 10**6, prices=prices) == pytest.approx(3.0)
    assert cost_usd("claude-haiku-4-5", 10**6, 0, prices=prices) == 0.0


def test_env_file_overrides_and_extends(tmp_path, monkeypatch):
    f = tmp_path / "prices.json"
    f.write_text(json.dumps({"claude-haiku-4-5": {"input": 2, "output": 10}, "house": [0.5, 1.0]}))
    monkeypatch.setenv(PRICES_ENV, str(f))
    assert cost_usd("claude-haiku-4-5", 10**6, 0) == pytest.approx(2.0)
    assert cost_usd("house-1", 0, 10**6) == pytest.approx(1.0)
    assert cost_usd("claude-sonnet-4-5", 10**6, 0) == pytest.approx(3.0)
    y = tmp_path / "prices.yaml"
    y.write_text("house:\n  input: 4\n  output: 8\n")
    monkeypatch.setenv(PRICES_ENV, str(y))
    assert active_prices()["house"] == ModelPrice(4.0, 8.0)
    assert DEFAULT_PRICES["claude-haiku-4-5"] == ModelPrice(1.0, 5.0), "overrides must not mutate defaults"


def test_bad_price_file_raises(tmp_path, monkeypatch):
    f = tmp_path / "p.json"
    f.write_text(json.dumps({"x": "cheap"}))
    monkeypatch.setenv(PRICES_ENV, str(f))
    with pytest.raises(ValueError):
        cost_usd("x", 1, 1)


def test_tokens_without_a_model_or_a_price_are_unpriced_never_free() -> None:
    sonnet = {"claude-sonnet-4-5": {"input_tokens": 100, "output_tokens": 10}}
    assert unpriced_tokens(sonnet, 100, 10) == 0
    assert unpriced_tokens({}, 0, 0) == 0, "no tokens: nothing to price, cost is known ($0)"
    assert unpriced_tokens({}, 100, 10) == 110, "usage without its model"
    assert unpriced_tokens(sonnet, 150, 10) == 50, "more usage than the models account for"
    assert unpriced_tokens({"in-house-llm": {"input_tokens": 7, "output_tokens": 3}}, 7, 3) == 10
    assert (
        unpriced_tokens({"in-house-llm": {"input_tokens": 7, "output_tokens": 3}}, 7, 3, {"in-house": (1, 2)})
        == 0
    )
