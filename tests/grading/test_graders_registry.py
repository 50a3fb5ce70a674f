"""Every grader is registered, bad parameters fail at suite load, and run_grader never raises."""

from __future__ import annotations

from typing import Any

import pytest

import agenteval.grading as graders
from agenteval.contracts.suite import GraderSpec
from agenteval.contracts.trace import Step, Trace
from agenteval.grading import GradeContext, UnknownGraderError, registered_graders, run_grader, validate_spec
from tests.grading.conftest import call, case, message, trace

# One valid parameter set per grader; also the list of graders this package must provide.
VALID_PARAMS: dict[str, dict[str, Any]] = {
    "tool_called": {"tool": "search", "args": {"q": {"regex": "x"}}},
    "tool_not_called": {"tool": "delete"},
    "tool_sequence": {"tools": ["search", "answer"], "mode": "strict"},
    "tool_args": {"tool": "search", "args": {"q": {"contains": "x"}, "n": {"one_of": [1, 2]}}},
    "tool_selection": {"expected": ["search"], "mode": "partial", "min_score": 0.5},
    "output_equals": {"value": "x"},
    "output_contains": {"texts": ["a", "b"], "match": "any"},
    "output_not_contains": {"texts": ["secret"]},
    "output_matches": {"pattern": "^a", "multiline": True},
    "output_json": {
        "schema": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    },
    "state_check": {"expected": {"orders.A1.status": "refunded"}, "absent": ["refunds.R9"]},
    "max_steps": {"max": 5},
    "efficiency": {"max_steps": 5},
    "latency_budget": {"max_ms": 1000},
    "termination": {"required_tools": ["search"]},
    "grounding": {"min_score": 0.5},
    "error_handling": {},
}


def test_every_code_grader_is_registered_with_a_description() -> None:
    registered = registered_graders()
    assert set(VALID_PARAMS) <= set(registered)
    for name in VALID_PARAMS:
        assert registered[name].description, f"{name} has no docstring"


def test_package_re_exports_the_registry_api() -> None:
    for name in (
        "grader",
        "Grade",
        "GradeOutcome",
        "GradeContext",
        "NoParams",
        "get_grader",
        "registered_graders",
        "validate_spec",
        "run_grader",
        "UnknownGraderError",
        "register_prefix",
    ):
        assert name in graders.__all__ and hasattr(graders, name)


@pytest.mark.parametrize("name", sorted(VALID_PARAMS))
def test_valid_params_load(name: str) -> None:
    validate_spec(GraderSpec(name=name, params=VALID_PARAMS[name]))


def test_unknown_grader_lists_known_ones() -> None:
    with pytest.raises(UnknownGraderError, match=r"known graders: .*tool_called"):
        validate_spec(GraderSpec(name="tool_caled", params={}))


@pytest.mark.parametrize(
    "name, params, fragment",
    [
        ("tool_called", {}, "tool: Field required"),
        ("tool_called", {"tool": "  "}, "tool: String should have at least 1 character"),
        ("tool_called", {"tool": "a", "min_times": 3, "max_times": 1}, "max_times"),
        ("tool_called", {"tool": "a", "args": {"q": {"regex": "(("}}}, "invalid regex"),
        ("tool_called", {"tol": "a"}, "tol: Extra inputs are not permitted"),
        ("tool_not_called", {"tool": 3}, "tool: Input should be a valid string"),
        ("tool_sequence", {"tools": []}, "tools"),
        ("tool_sequence", {"tools": ["a", ""]}, "tools.1"),
        ("tool_sequence", {"tools": ["a"], "mode": "exact"}, "mode"),
        ("tool_args", {"tool": "a", "args": {}}, "args"),
        ("tool_args", {"tool": "a", "args": {"x": {"one_of": []}}}, "one_of needs a non-empty list"),
        ("tool_args", {"tool": "a", "args": {"x": 1}, "call": "middle"}, "call"),
        ("tool_selection", {"expected": ["a"], "min_score": 0.5}, "min_score applies to mode 'partial'"),
        ("tool_selection", {"mode": "partial", "min_score": 2}, "min_score"),
        ("output_contains", {}, "give 'text' or 'texts'"),
        ("output_contains", {"texts": [""]}, "texts.0"),
        ("output_not_contains", {"texts": []}, "give 'texts' or 'text'"),
        ("output_matches", {"pattern": "[unclosed"}, "invalid regex"),
        ("output_matches", {}, "pattern: Field required"),
        ("output_json", {"schema": {"type": "thing"}}, "schema.type"),
        (
            "output_json",
            {"schema": {"properties": {"a": {"format": "email"}}}},
            "unsupported keyword 'format'",
        ),
        ("output_json", {"schema": {"properties": {"a": {"pattern": "("}}}}, "schema.properties.a.pattern"),
        ("output_json", {"schema": {"enum": []}}, "enum"),
        ("output_json", {"schema": {"minLength": -1}}, "minLength"),
        ("state_check", {}, "give 'expected' paths and/or 'absent' paths"),
        ("state_check", {"absent": ["a..b"]}, "invalid path"),
        ("state_check", {"expected": {"a": {"regex": "a", "x": 1}}}, "exactly one key"),
        ("max_steps", {}, "max: Field required"),
        ("max_steps", {"max": -1}, "max"),
        ("max_steps", {"max": "many"}, "max"),
        ("efficiency", {"max_repeated_calls": 0}, "max_repeated_calls"),
        ("latency_budget", {"max_ms": 0}, "max_ms"),
        ("termination", {"loop_threshold": 1}, "loop_threshold"),
        ("grounding", {"min_score": 1.5}, "min_score"),
        ("error_handling", {"acknowledgements": []}, "acknowledgements"),
    ],
)
def test_bad_params_fail_at_load_with_a_clear_message(
    name: str, params: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(ValueError, match=f"bad parameters for grader '{name}'") as exc:
        validate_spec(GraderSpec(name=name, params=params))
    assert fragment in str(exc.value)
    assert "Value error," not in str(exc.value)  # pydantic's prefix says nothing to a suite author


MALFORMED = [
    trace(),
    trace(output=None, status="error", error={"code": "agent_error", "message": "boom"}),
    trace(
        call(None), call("search", result=None, q=None, n={"deep": [None, 1.5]}), message("x", role="tool")
    ),
    trace(
        {"type": "llm_call", "model": "m", "content": None, "latency_ms": -5},
        call("search", result={"error": None, "items": [{"q": object.__name__}]}, error=""),
        output='```json\n{"a": 1}\n```',
        state={"orders": [1, 2], "refunds": None},
    ),
    # Bypasses validation: fields of the wrong type must not crash a grader either.
    Trace.model_construct(
        input=[],
        steps=[
            Step.model_construct(
                type="tool_call",
                name=None,
                arguments=None,
                result=None,
                error=None,
                latency_ms=0.0,
                role=None,
                content=None,
                model=None,
            )
        ],
        output=None,
        state=None,
        status="ok",
        error=None,
        latency_ms=0.0,
        metadata={},
    ),
]


@pytest.mark.parametrize("name", sorted(VALID_PARAMS))
async def test_run_grader_never_raises_on_odd_traces(name: str) -> None:
    spec = GraderSpec(name=name, params=VALID_PARAMS[name])
    for t in MALFORMED:
        result = await run_grader(spec, t, GradeContext(case=case()))
        assert 0.0 <= result.score <= 1.0
        assert result.error is None, f"{name} crashed on {t!r}: {result.error}"
        assert result.params == VALID_PARAMS[name] and result.explanation


async def test_run_grader_turns_errors_into_failed_grades() -> None:
    unknown = await run_grader(GraderSpec(name="nope", params={}), trace(), GradeContext())
    assert not unknown.passed and unknown.error and "unknown grader" in unknown.error
    bad = await run_grader(
        GraderSpec(name="output_matches", params={"pattern": "("}), trace(), GradeContext()
    )
    assert not bad.passed and bad.error and "invalid regex" in bad.error
    no_expectation = await run_grader(GraderSpec(name="tool_selection", params={}), trace(), GradeContext())
    assert not no_expectation.passed and no_expectation.error and "expected_tools" in no_expectation.error


async def test_missing_saved_eval_fails_the_grade_with_the_servers_reason() -> None:
    import grpc

    async def eval_source(name: str, version: int) -> str:
        raise grpc.aio.AioRpcError(
            grpc.StatusCode.NOT_FOUND,
            grpc.aio.Metadata(),
            grpc.aio.Metadata(),
            details=f"no saved eval {name!r} version {version}",
            debug_error_string="NOT_FOUND: internal debug text",
        )

    ctx = GradeContext(case=case(), services={"eval_source": eval_source})
    grade = await run_grader(GraderSpec(name="eval:nope@3", params={}), trace(), ctx)
    assert not grade.passed and grade.error == "LookupError: no saved eval 'nope' version 3", grade.error
    assert grade.explanation == f"grader could not run: {grade.error}"
