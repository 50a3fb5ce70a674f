"""The eval_function grader: what it asks of the sandbox, and how it turns the answer into a grade."""

from __future__ import annotations

from agenteval.contracts.suite import GraderSpec
from agenteval.grading import GradeContext, run_grader
from tests.fake_pools import CODE, RecordingPool
from tests.grading.conftest import trace


async def test_imports_the_trials_suite_allows_come_from_the_context_not_the_shared_services() -> None:
    pool = RecordingPool()
    # One grader process serves many suites: services is shared, so it must not decide.
    services = {"sandbox": pool, "allowed_imports": ["os"]}
    spec = GraderSpec(name="eval_function", params={"code": CODE, "allowed_imports": ["difflib"]})
    grade = await run_grader(spec, trace(), GradeContext(services=services, allowed_imports=["pathlib"]))
    assert grade.passed, grade.error
    legacy = await run_grader(spec, trace(), GradeContext(services=services))
    assert legacy.passed, legacy.error
    assert pool.allowed == [["pathlib", "difflib"], ["os", "difflib"]]


async def test_malformed_traces_reach_the_eval_function_in_their_plain_form() -> None:
    from agenteval.sandbox import SandboxPool
    from tests.grading.test_graders_registry import MALFORMED

    code = "def eval_n(trace, ctx=None):\n    return 1.0, f\"{len(trace['tool_calls'])} calls\"\n"
    spec = GraderSpec(name="eval_function", params={"code": code})
    async with SandboxPool(workers=1) as pool:
        for t in MALFORMED:
            grade = await run_grader(spec, t, GradeContext(services={"sandbox": pool}))
            assert grade.passed and grade.error is None, f"{t!r}: {grade.error}"
            assert grade.explanation == f"{len(t.tool_calls)} calls"
