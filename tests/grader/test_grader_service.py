"""GraderService: grading one trial must not depend on the trials graded before it."""

from __future__ import annotations

from agenteval.contracts.events import TrialCompleted
from agenteval.contracts.suite import Case, GraderSpec
from agenteval.contracts.trace import Trace
from agenteval.grader.service import GraderService
from tests.fake_pools import CODE, RecordingPool


def completed(run_id: str, allowed_imports: list[str]) -> TrialCompleted:
    return TrialCompleted(
        event_id=f"trial.completed:{run_id}/c/0",
        run_id=run_id,
        trial_id=f"{run_id}/c/0",
        case=Case(id="c", input="x"),
        graders=[GraderSpec(name="eval_function", params={"code": CODE})],
        trial_index=0,
        trials_total=1,
        trace=Trace(output="x"),
        allowed_imports=allowed_imports,
    )


async def test_each_suites_allowed_imports_apply_to_its_own_trials_only() -> None:
    pool = RecordingPool()
    service = GraderService({"sandbox": pool})
    await service.grade(completed("run-a", []))
    await service.grade(completed("run-b", ["pathlib"]))
    await service.grade(completed("run-c", []))
    assert pool.allowed == [[], ["pathlib"], []]
