"""The output_* graders: equality, containment, regex, JSON; and no answer at all."""

from __future__ import annotations

import pytest

from tests.grading.conftest import case, grade, trace

NO_ANSWER = trace(output=None, status="timeout", error={"code": "timeout", "message": "no answer in 30 s"})


@pytest.mark.parametrize(
    "name, params",
    [
        ("output_equals", {"value": "x"}),
        ("output_contains", {"text": "x"}),
        ("output_not_contains", {"texts": ["x"]}),
        ("output_matches", {"pattern": "x"}),
        ("output_json", {}),
    ],
)
def test_output_graders_fail_with_the_trial_status_when_there_is_no_answer(name: str, params: dict) -> None:
    out = grade(name, NO_ANSWER, params)
    assert not out.passed and out.score == 0.0
    assert "no final answer" in out.explanation and "timeout" in out.explanation


def test_output_equals_strips_and_respects_case() -> None:
    t = trace(output="  Paris\n")
    assert grade("output_equals", t, {"value": "Paris"}).passed
    assert not grade("output_equals", t, {"value": "Paris", "strip": False}).passed
    out = grade("output_equals", t, {"value": "paris"})
    assert (
        not out.passed
        and "'paris'" in out.explanation
        and "first difference at character 1" in out.explanation
    )
    assert grade("output_equals", t, {"value": "paris", "case_sensitive": False}).passed


def test_output_equals_defaults_to_the_case_expected_output() -> None:
    t = trace(output="42")
    assert grade("output_equals", t, {}, ctx_case=case(expected_output="42")).passed
    assert not grade("output_equals", t, {}, ctx_case=case(expected_output="41")).passed
    with pytest.raises(ValueError, match="expected_output"):
        grade("output_equals", t, {}, ctx_case=case())


def test_output_contains_all_and_any() -> None:
    t = trace(output="Your REFUND of $20 is on its way.")
    assert grade("output_contains", t, {"text": "refund"}).passed
    assert not grade("output_contains", t, {"text": "refund", "case_sensitive": True}).passed
    out = grade("output_contains", t, {"texts": ["refund", "tracking number"]})
    assert not out.passed and out.score == pytest.approx(0.5)
    assert "missing 'tracking number'" in out.explanation and "Your REFUND" in out.explanation
    assert grade("output_contains", t, {"texts": ["refund", "tracking number"], "match": "any"}).passed
    assert not grade("output_contains", t, {"texts": ["nope", "never"], "match": "any"}).passed


def test_output_not_contains_names_the_forbidden_text_in_context() -> None:
    t = trace(output="Done. Your password is hunter2.")
    assert grade("output_not_contains", t, {"texts": ["ssn", "credit card"]}).passed
    out = grade("output_not_contains", t, {"texts": ["PASSWORD", "ssn"]})
    assert not out.passed and out.score == pytest.approx(0.5)
    assert "'PASSWORD'" in out.explanation and "hunter2" in out.explanation


def test_output_matches_search_full_and_flags() -> None:
    t = trace(output="Order A1001\nstatus: REFUNDED")
    assert grade("output_matches", t, {"pattern": r"A\d{4}"}).passed
    assert not grade("output_matches", t, {"pattern": r"A\d{4}", "full": True}).passed
    assert not grade("output_matches", t, {"pattern": "refunded"}).passed
    assert grade("output_matches", t, {"pattern": "refunded", "ignore_case": True}).passed
    assert grade("output_matches", t, {"pattern": "^status", "multiline": True}).passed
    assert grade("output_matches", t, {"pattern": "Order.*REFUNDED", "dotall": True, "full": True}).passed
    out = grade("output_matches", t, {"pattern": "^status"})
    assert "/^status/" in out.explanation and "Order A1001" in out.explanation


SCHEMA = {
    "type": "object",
    "required": ["name", "tags", "price"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "minLength": 2, "pattern": "^[A-Z]"},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["new", "sale"]}, "maxItems": 3},
        "price": {"type": "number", "minimum": 0, "maximum": 100},
        "count": {"type": "integer"},
    },
}


def test_output_json_accepts_bare_json_and_fenced_blocks() -> None:
    good = '{"name": "Lamp", "tags": ["sale"], "price": 19.5, "count": 2.0}'
    assert grade("output_json", trace(output=good), {"schema": SCHEMA}).passed
    fenced = f"Here you go:\n```json\n{good}\n```\nAnything else?"
    assert grade("output_json", trace(output=fenced), {"schema": SCHEMA}).passed
    assert grade("output_json", trace(output="[1, 2]"), {}).passed


def test_output_json_lists_violations_with_paths_and_partial_score() -> None:
    bad = '{"name": "lamp", "tags": ["sale", "old"], "price": 120, "extra": 1}'
    out = grade("output_json", trace(output=bad), {"schema": SCHEMA})
    assert not out.passed and 0.0 < out.score < 1.0
    for fragment in ("$.name", "$.tags[1]", "above the maximum 100", "unexpected property 'extra'"):
        assert fragment in out.explanation, out.explanation


def test_output_json_type_mismatch_and_not_json() -> None:
    out = grade("output_json", trace(output='"just a string"'), {"schema": SCHEMA})
    assert not out.passed and "$: expected object, got string" in out.explanation
    not_json = grade("output_json", trace(output="The price is 20"), {"schema": SCHEMA})
    assert not not_json.passed and not_json.score == 0.0 and "not JSON" in not_json.explanation
    assert not grade(
        "output_json",
        trace(output='{"count": true}'),
        {"schema": {"properties": {"count": {"type": "integer"}}}},
    ).passed
