"""tool_sequence and tool_selection: the order of calls and the set of tools used."""

from __future__ import annotations

import pytest

from agenteval.contracts.trace import Trace
from tests.grading.conftest import call, case, grade, trace


def calls_of(*names: str) -> Trace:
    return trace(*(call(n) for n in names))


def test_subsequence_allows_interleaving() -> None:
    out = grade(
        "tool_sequence", calls_of("search", "lookup", "log", "refund"), {"tools": ["lookup", "refund"]}
    )
    assert out.passed and out.score == 1.0


def test_subsequence_scores_longest_common_subsequence_and_names_what_is_missing() -> None:
    out = grade("tool_sequence", calls_of("log", "lookup", "email"), {"tools": ["lookup", "refund", "email"]})
    assert not out.passed and out.score == pytest.approx(2 / 3)
    assert "missing or out of order: refund" in out.explanation
    assert "the agent called: log, lookup, email" in out.explanation


def test_strict_needs_exactly_the_sequence() -> None:
    params = {"tools": ["lookup", "refund"], "mode": "strict"}
    assert grade("tool_sequence", calls_of("lookup", "refund"), params).passed
    extra = grade("tool_sequence", calls_of("lookup", "refund", "email"), params)
    assert not extra.passed and extra.score == pytest.approx(2 / 3)
    assert "extra calls after the sequence: email" in extra.explanation
    wrong = grade("tool_sequence", calls_of("lookup", "email"), params)
    assert wrong.score == pytest.approx(0.5) and "call 2 was 'email', expected 'refund'" in wrong.explanation
    short = grade("tool_sequence", calls_of("lookup"), params)
    assert short.score == pytest.approx(0.5) and "stopped after 1 of 2" in short.explanation
    interleaved = grade("tool_sequence", calls_of("lookup", "log", "refund"), params)
    assert not interleaved.passed


def test_sequence_on_empty_trace_scores_zero() -> None:
    for mode in ("strict", "subsequence"):
        out = grade("tool_sequence", trace(), {"tools": ["a"], "mode": mode})
        assert not out.passed and out.score == 0.0 and "no tools" in out.explanation


def test_selection_strict_is_set_equality_with_f1_score() -> None:
    t = calls_of("search", "search", "lookup")
    assert grade("tool_selection", t, {"expected": ["lookup", "search"]}).passed
    out = grade("tool_selection", t, {"expected": ["lookup", "refund"]})
    assert not out.passed and out.score == pytest.approx(0.5)
    assert "missing: refund" in out.explanation and "not expected: search" in out.explanation


def test_selection_partial_passes_at_min_score() -> None:
    t = calls_of("a", "b", "c", "d")
    params = {"expected": ["a", "b", "c"], "mode": "partial"}
    out = grade("tool_selection", t, params)  # precision 3/4, recall 1 -> F1 6/7 >= 0.8
    assert out.passed and out.score == pytest.approx(6 / 7)
    assert not grade("tool_selection", t, {**params, "min_score": 0.9}).passed
    assert not grade("tool_selection", calls_of("a"), params).passed  # F1 0.5


def test_selection_takes_expected_tools_from_the_case() -> None:
    t = calls_of("lookup")
    assert grade("tool_selection", t, {}, ctx_case=case(expected_tools=["lookup"])).passed
    assert not grade("tool_selection", t, {}, ctx_case=case(expected_tools=["refund"])).passed
    assert grade("tool_selection", trace(), {}, ctx_case=case(expected_tools=[])).passed


def test_selection_without_any_expectation_is_a_grader_error() -> None:
    with pytest.raises(ValueError, match="expected_tools") as exc:
        grade("tool_selection", calls_of("x"), {}, ctx_case=case())
    assert "tool_selection_judge" in str(exc.value)  # the judged scorer for cases without expectations
