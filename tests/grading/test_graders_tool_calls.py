"""tool_called, tool_not_called and tool_args: which tools were called, how often, with what."""

from __future__ import annotations

import pytest

from tests.grading.conftest import call, grade, message, trace

REFUND_FLOW = trace(
    call("lookup_order", result={"id": "A1", "total": 20}, order_id="A1"),
    call("issue_refund", result={"ok": True}, order_id="A1", amount=20, reason="damaged item"),
    message("Refunded."),
)


def test_tool_called_passes_when_called() -> None:
    out = grade("tool_called", REFUND_FLOW, {"tool": "issue_refund"})
    assert out.passed and out.score == 1.0


def test_tool_called_failure_names_the_tools_the_agent_did_call() -> None:
    out = grade("tool_called", REFUND_FLOW, {"tool": "refund_order"})
    assert not out.passed and out.score == 0.0
    assert "'refund_order'" in out.explanation
    assert "lookup_order, issue_refund" in out.explanation


def test_tool_called_counts_against_min_and_max_times() -> None:
    t = trace(call("search", q="a"), call("search", q="b"), call("search", q="c"))
    assert grade("tool_called", t, {"tool": "search", "min_times": 3}).passed
    few = grade("tool_called", t, {"tool": "search", "min_times": 4})
    assert not few.passed and few.score == pytest.approx(3 / 4)
    many = grade("tool_called", t, {"tool": "search", "max_times": 2})
    assert not many.passed and many.score == pytest.approx(2 / 3)
    assert "at most 2 times" in many.explanation and "3 times" in many.explanation


def test_tool_called_with_args_counts_only_matching_calls_and_shows_the_closest() -> None:
    assert grade("tool_called", REFUND_FLOW, {"tool": "issue_refund", "args": {"amount": 20}}).passed
    out = grade("tool_called", REFUND_FLOW, {"tool": "issue_refund", "args": {"amount": 25}})
    assert not out.passed
    assert "amount: expected 25, got 20" in out.explanation


def test_tool_not_called_passes_and_fails() -> None:
    assert grade("tool_not_called", REFUND_FLOW, {"tool": "delete_account"}).passed
    out = grade("tool_not_called", REFUND_FLOW, {"tool": "issue_refund"})
    assert not out.passed and out.score == 0.0
    assert "must not be called" in out.explanation and "step 2" in out.explanation


def test_tool_not_called_with_args_forbids_only_matching_calls() -> None:
    assert grade(
        "tool_not_called", REFUND_FLOW, {"tool": "issue_refund", "args": {"amount": {"regex": "^9"}}}
    ).passed
    assert not grade("tool_not_called", REFUND_FLOW, {"tool": "issue_refund", "args": {"amount": 20}}).passed


@pytest.mark.parametrize(
    "expected",
    [
        {"order_id": "A1", "amount": 20.0},
        {"order_id": {"regex": "^A\\d$"}},
        {"amount": {"one_of": [10, 20]}},
        {"reason": {"contains": "DAMAGED"}},
        {"order_id": {"equals": "A1"}},
    ],
)
def test_tool_args_accepts_literals_and_patterns(expected: dict[str, object]) -> None:
    out = grade("tool_args", REFUND_FLOW, {"tool": "issue_refund", "args": expected})
    assert out.passed, out.explanation


def test_tool_args_partial_score_is_fraction_of_matching_arguments() -> None:
    out = grade("tool_args", REFUND_FLOW, {"tool": "issue_refund", "args": {"order_id": "A1", "amount": 30}})
    assert not out.passed and out.score == pytest.approx(0.5)
    assert "amount: expected 30, got 20" in out.explanation


def test_tool_args_distinguishes_types_and_missing_arguments() -> None:
    out = grade("tool_args", REFUND_FLOW, {"tool": "issue_refund", "args": {"amount": "20", "note": "x"}})
    assert out.score == 0.0
    assert 'expected "20", got 20' in out.explanation and "note: missing" in out.explanation


def test_tool_args_which_call_is_checked() -> None:
    t = trace(call("search", q="first"), call("search", q="second"))
    assert grade("tool_args", t, {"tool": "search", "args": {"q": "second"}}).passed
    assert not grade("tool_args", t, {"tool": "search", "args": {"q": "second"}, "call": "first"}).passed
    assert grade("tool_args", t, {"tool": "search", "args": {"q": "second"}, "call": "last"}).passed
    every = grade("tool_args", t, {"tool": "search", "args": {"q": "second"}, "call": "all"})
    assert not every.passed and every.score == pytest.approx(0.5)
    assert "1 of 2 calls" in every.explanation
    assert grade("tool_args", t, {"tool": "search", "args": {"q": {"regex": "s"}}, "call": "all"}).passed


def test_tool_args_nested_mapping_is_a_subset_match() -> None:
    t = trace(call("ship", address={"city": "Paris", "zip": "75001"}))
    assert grade("tool_args", t, {"tool": "ship", "args": {"address": {"city": "Paris"}}}).passed
    exact = {"tool": "ship", "args": {"address": {"equals": {"city": "Paris"}}}}
    assert not grade("tool_args", t, exact).passed


def test_tool_args_when_tool_never_called() -> None:
    out = grade("tool_args", REFUND_FLOW, {"tool": "send_email", "args": {"to": "x"}})
    assert not out.passed and "lookup_order, issue_refund" in out.explanation


def test_malformed_calls_do_not_crash() -> None:
    odd = trace(call(None, result=None), call("search", result=None, q=None, n=[1, {"a": None}]), output=None)
    assert not grade("tool_called", odd, {"tool": "lookup"}).passed
    assert grade("tool_not_called", odd, {"tool": "lookup"}).passed
    out = grade("tool_args", odd, {"tool": "search", "args": {"q": {"regex": "x"}, "n": {"contains": 1}}})
    assert out.score == pytest.approx(0.5)
    assert grade("tool_called", trace(), {"tool": "x", "min_times": 0}).passed
