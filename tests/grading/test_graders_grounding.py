"""grounding: numbers and quoted facts of the answer must come from tool results or the input."""

from __future__ import annotations

from decimal import Decimal

import pytest

from agenteval.grading.grounding import numbers_in
from tests.grading.conftest import call, grade, trace

LOOKUP = call("lookup_order", result={"id": "A1001", "total": 1234.5, "carrier": "Blue Dart", "eta_days": 14})


def test_supported_numbers_and_quotes_pass_with_normalization() -> None:
    t = trace(LOOKUP, output='Order A1001 totals $1,234.50 and ships with "blue dart" in 14 days (step 2).')
    out = grade("grounding", t, {})
    assert out.passed and out.score == 1.0, out.explanation


def test_unsupported_numbers_and_quotes_are_listed() -> None:
    t = trace(LOOKUP, output='The total is $1,300 and it ships with "FedEx" in 14 days.')
    out = grade("grounding", t, {})
    assert not out.passed and out.score == pytest.approx(1 / 3)
    assert "1,300" in out.explanation and '"FedEx"' in out.explanation


def test_input_counts_as_a_source_unless_excluded() -> None:
    t = trace(output="You asked about 250 units.", input=[{"role": "user", "content": "I need 250 units"}])
    assert grade("grounding", t, {}).passed
    assert not grade("grounding", t, {"include_input": False}).passed


def test_small_numbers_min_score_and_switches() -> None:
    t = trace(LOOKUP, output="3 options: total 1234.5, fee 99")
    assert grade("grounding", t, {}).score == pytest.approx(0.5)
    assert grade("grounding", t, {"min_score": 0.5}).passed
    assert grade("grounding", t, {"ignore_up_to": None}).score == pytest.approx(1 / 3)
    assert grade("grounding", t, {"check_numbers": False}).passed


def test_answer_without_facts_passes_and_no_answer_fails() -> None:
    assert grade("grounding", trace(output="All done!"), {}).passed
    assert not grade("grounding", trace(output=None), {}).passed


def test_number_extraction_rules() -> None:
    found = [v for _, v in numbers_in("A1001 costs $1,234.50, 3rd item, 20. Then 2024-01-15 and 0.5")]
    assert found == [
        Decimal("1234.5"),
        Decimal("20"),
        Decimal("2024"),
        Decimal("1"),
        Decimal("15"),
        Decimal("0.5"),
    ]
