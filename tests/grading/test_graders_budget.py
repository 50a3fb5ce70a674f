"""max_steps, efficiency and latency_budget."""

from __future__ import annotations

import pytest

from tests.grading.conftest import call, grade, message, trace


def test_max_steps_counts_tool_calls_or_all_steps() -> None:
    t = trace(message("thinking"), call("a"), call("b"), message("done"))
    assert grade("max_steps", t, {"max": 2}).passed
    out = grade("max_steps", t, {"max": 3, "count": "steps"})
    assert not out.passed and out.score == pytest.approx(3 / 4)
    assert "4 steps, over the budget of 3" in out.explanation
    over = grade("max_steps", t, {"max": 1})
    assert over.score == pytest.approx(0.5) and "tool calls: a, b" in over.explanation
    assert grade("max_steps", trace(), {"max": 0}).passed
    assert grade("max_steps", t, {"max": 0}).score == 0.0


def test_efficiency_counts_identical_repeats_as_waste() -> None:
    t = trace(call("search", q="x"), call("search", q="x"), call("search", q="y"), call("search", q="x"))
    out = grade("efficiency", t, {})
    assert not out.passed and out.score == pytest.approx(2 / 4)
    assert "2 repeated identical calls" in out.explanation and 'search(q="x")' in out.explanation
    assert grade("efficiency", t, {"max_repeated_calls": 3}).passed
    assert grade("efficiency", t, {"min_score": 0.5}).passed


def test_efficiency_does_not_count_retries_after_a_failure() -> None:
    t = trace(call("search", error="timeout", q="x"), call("search", q="x"))
    assert grade("efficiency", t, {}).passed


def test_efficiency_step_budget() -> None:
    t = trace(call("a"), call("b"), call("c"), call("d"))
    out = grade("efficiency", t, {"max_steps": 3})
    assert (
        not out.passed and out.score == pytest.approx(3 / 4) and "1 over the budget of 3" in out.explanation
    )
    assert grade("efficiency", trace(), {"max_steps": 1}).passed


def test_latency_budget() -> None:
    fast = trace(latency_ms=900.0)
    assert grade("latency_budget", fast, {"max_ms": 1000}).passed
    slow = trace(call("search", latency_ms=4000.0), latency_ms=5000.0)
    out = grade("latency_budget", slow, {"max_ms": 2500})
    assert not out.passed and out.score == pytest.approx(0.5)
    assert "5,000 ms, over the budget of 2,500 ms" in out.explanation and "search 4,000 ms" in out.explanation


def test_latency_falls_back_to_step_latencies() -> None:
    t = trace(call("a", latency_ms=700.0), call("b", latency_ms=700.0))
    assert not grade("latency_budget", t, {"max_ms": 1000}).passed
