"""Result streams: the run's reported steps as WatchRun messages."""

from __future__ import annotations

from agenteval.contracts.events import RunReported, TrialResult
from agenteval.contracts.pb._records import grade_to_pb
from agenteval.contracts.pb._summary import summary_to_pb
from agenteval.contracts.pb._trace import TRIAL_STATUS_TO_PB
from agenteval.v1 import common_pb2, runner_pb2

REPORT_KIND_TO_PB = {
    "submitted": runner_pb2.RUN_EVENT_TYPE_SUBMITTED,
    "trials": runner_pb2.RUN_EVENT_TYPE_TRIALS,
    "completed": runner_pb2.RUN_EVENT_TYPE_COMPLETED,
    "cancelled": runner_pb2.RUN_EVENT_TYPE_CANCELLED,
    "failed": runner_pb2.RUN_EVENT_TYPE_FAILED,
}


def trial_result_to_pb(t: TrialResult) -> runner_pb2.TrialResult:
    return runner_pb2.TrialResult(
        trial_id=t.trial_id,
        case_id=t.case_id,
        trial_index=t.trial_index,
        status=TRIAL_STATUS_TO_PB.get(t.status, common_pb2.TRIAL_STATUS_UNSPECIFIED),
        passed=t.passed,
        score=t.score,
        grades=[grade_to_pb(g) for g in t.grades],
        input_tokens=t.input_tokens,
        output_tokens=t.output_tokens,
        cost_usd=t.cost_usd,
        cost_unknown=t.cost_unknown,
        latency_ms=t.latency_ms,
        tags=t.tags,
        error_code=t.error.code if t.error else "",
        error_message=t.error.message if t.error else "",
    )


def reported_to_pb(
    seq: int, ev: RunReported, trials: list[TrialResult] | None = None
) -> runner_pb2.WatchRunResponse:
    """A result-stream message as WatchRun sends it (``trials``: the ones not sent before)."""
    msg = runner_pb2.WatchRunResponse(
        type=REPORT_KIND_TO_PB[ev.kind],
        run_id=ev.run_id,
        seq=seq,
        trials_total=ev.trials_total,
        trials_graded=ev.trials_graded,
        trials_completed=ev.trials_graded,
        passes=ev.passes,
        trials=[trial_result_to_pb(t) for t in (ev.trials if trials is None else trials)],
        suite=ev.suite,
        agent_version=ev.agent_version,
        project=ev.project,
        reason=ev.reason,
    )
    if ev.summary is not None:
        msg.summary.CopyFrom(summary_to_pb(ev.summary))
    return msg
