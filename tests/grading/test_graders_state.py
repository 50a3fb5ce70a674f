"""state_check and the dotted paths and patterns it shares with tool_args."""

from __future__ import annotations

import pytest

from agenteval.grading._match import MISSING, check_expected, resolve
from tests.grading.conftest import grade, trace

STATE = {
    "orders": {"A1": {"status": "refunded", "total": 20, "items": [{"sku": "LAMP"}]}},
    "refunds": {"R1": {"order": "A1", "amount": 20}},
    "config.v2": {"mode": "safe"},
    "flags": {"closed": None},
}


def test_expected_paths_and_patterns_pass() -> None:
    params = {
        "expected": {
            "orders.A1.status": "refunded",
            "orders.A1.items.0.sku": {"regex": "^LA"},
            "refunds.R1": {"amount": 20},
            "config.v2.mode": {"one_of": ["safe", "strict"]},
            "flags.closed": None,
        },
        "absent": ["refunds.R2", "orders.A2"],
    }
    out = grade("state_check", trace(state=STATE), params)
    assert out.passed and out.score == 1.0, out.explanation


def test_failures_say_what_was_expected_and_what_is_there() -> None:
    params = {
        "expected": {"orders.A1.status": "delivered", "orders.A9.status": "refunded"},
        "absent": ["refunds.R1"],
    }
    out = grade("state_check", trace(state=STATE), params)
    assert not out.passed and out.score == 0.0
    assert 'orders.A1.status: expected "delivered", got "refunded"' in out.explanation
    assert "'orders' has no key 'A9' (its keys: A1)" in out.explanation
    assert 'refunds.R1: expected absent, but it holds {"amount": 20' in out.explanation


def test_score_is_fraction_of_checks_held() -> None:
    params = {"expected": {"orders.A1.status": "refunded", "orders.A1.total": 25}, "absent": ["x"]}
    out = grade("state_check", trace(state=STATE), params)
    assert out.score == pytest.approx(2 / 3)


def test_empty_state_does_not_crash() -> None:
    out = grade("state_check", trace(state={}), {"expected": {"a.b": 1}, "absent": ["c"]})
    assert out.score == pytest.approx(0.5) and "has no key 'a'" in out.explanation


def test_resolve_walks_lists_dotted_keys_and_scalars() -> None:
    assert resolve(STATE, "orders.A1.items.0.sku") == "LAMP"
    assert resolve(STATE, "orders.A1.items.-1.sku") == "LAMP"
    assert resolve(STATE, "orders.A1.items.5") is MISSING
    assert resolve(STATE, "orders.A1.total.x") is MISSING
    assert resolve(STATE, "flags.closed") is None
    assert resolve({1: "int key"}, "1") == "int key"


@pytest.mark.parametrize(
    "bad, fragment",
    [
        ({"regex": "("}, "invalid regex"),
        ({"regex": 3}, "regex must be a string"),
        ({"one_of": []}, "one_of needs a non-empty list"),
        ({"regex": "a", "contains": "b"}, "exactly one key"),
        ([{"nested": {"one_of": "x"}}], "one_of"),
    ],
)
def test_malformed_patterns_are_rejected(bad: object, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        check_expected(bad)
