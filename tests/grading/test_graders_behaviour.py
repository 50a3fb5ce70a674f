"""termination and error_handling."""

from __future__ import annotations

import pytest

from tests.grading.conftest import call, grade, trace


def test_termination_passes_on_a_clean_finish() -> None:
    t = trace(call("lookup", id=1), call("refund", id=1), output="Refunded.")
    out = grade("termination", t, {"required_tools": ["refund"]})
    assert out.passed and out.score == 1.0 and "required tools called" in out.explanation


def test_termination_detects_a_loop_of_identical_calls() -> None:
    t = trace(call("lookup", id=1), call("search", q="x"), call("search", q="x"), call("search", q="x"))
    out = grade("termination", t, {})
    assert not out.passed and out.score == pytest.approx(2 / 3)
    assert "looped" in out.explanation and "3 times in a row" in out.explanation
    assert grade("termination", t, {"loop_threshold": 4}).passed
    varied = trace(call("search", q="a"), call("search", q="b"), call("search", q="c"))
    assert grade("termination", varied, {}).passed


def test_termination_reports_early_stop_status_and_missing_answer() -> None:
    t = trace(call("lookup"), output="  ", status="error", error={"code": "agent_error", "message": "boom"})
    out = grade("termination", t, {"required_tools": ["refund"]})
    assert not out.passed and out.score == pytest.approx(1 / 4)
    assert "status 'error': agent_error: boom" in out.explanation
    assert "no final answer" in out.explanation
    assert "before calling the required refund" in out.explanation


def test_no_tool_errors_passes() -> None:
    out = grade("error_handling", trace(call("a", result=1)), {})
    assert out.passed and out.explanation == "no tool errors"


def test_a_successful_retry_handles_an_error() -> None:
    t = trace(call("search", error="503 unavailable"), call("search", result=["x"]), output="Found x.")
    assert grade("error_handling", t, {}).passed
    assert not grade("error_handling", t, {"allow_retry": False}).passed


def test_acknowledging_the_problem_handles_an_error() -> None:
    t = trace(call("refund", error="card declined"), output="Sorry, I couldn’t process the refund.")
    out = grade("error_handling", t, {})
    assert out.passed and "acknowledges" in out.explanation


def test_claiming_success_after_an_ignored_error_fails() -> None:
    t = trace(
        call("refund", error="card declined", order="A1"),
        call("email", result={"error": "smtp down"}),
        output="Your refund was issued and you'll get an email.",
    )
    out = grade("error_handling", t, {})
    assert not out.passed and out.score == 0.0
    assert "2 of 2 tool errors ignored" in out.explanation and "card declined" in out.explanation


def test_acknowledgement_words_are_whole_words_and_configurable() -> None:
    t = trace(call("refund", error="declined"), output="Terror averted: refund issued.")
    assert not grade("error_handling", t, {}).passed
    assert grade("error_handling", t, {"acknowledgements": ["averted"]}).passed


def test_error_without_answer_is_ignored_unless_retried() -> None:
    t = trace(call("a", error="x"), output=None, status="timeout")
    out = grade("error_handling", t, {})
    assert not out.passed and "no final answer" in out.explanation
