"""Conversions between the pydantic contracts and their protobuf messages."""

from __future__ import annotations

import json
from typing import Any

from google.protobuf.json_format import MessageToDict

from agenteval.contracts.events import GradeRecord, RunReported, TrialResult
from agenteval.contracts.summary import CaseSummary, LatencySummary, RunSummary
from agenteval.v1 import common_pb2, runner_pb2, transcripts_pb2

TRIAL_STATUS_TO_PB = {
    "ok": common_pb2.TRIAL_STATUS_OK,
    "error": common_pb2.TRIAL_STATUS_ERROR,
    "timeout": common_pb2.TRIAL_STATUS_TIMEOUT,
}
TRIAL_STATUS_FROM_PB = {v: k for k, v in TRIAL_STATUS_TO_PB.items()}

RUN_STATUS_TO_PB = {
    "pending": common_pb2.RUN_STATUS_PENDING,
    "running": common_pb2.RUN_STATUS_RUNNING,
    "completed": common_pb2.RUN_STATUS_COMPLETED,
    "cancelled": common_pb2.RUN_STATUS_CANCELLED,
    "failed": common_pb2.RUN_STATUS_FAILED,
}
RUN_STATUS_FROM_PB = {v: k for k, v in RUN_STATUS_TO_PB.items()}


def latency_to_pb(lat: LatencySummary) -> common_pb2.LatencySummary:
    return common_pb2.LatencySummary(**lat.model_dump())


def _to_dict(msg: Any) -> dict[str, Any]:
    return MessageToDict(msg, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def latency_from_pb(msg: common_pb2.LatencySummary) -> LatencySummary:
    return LatencySummary.model_validate(_to_dict(msg))


def case_to_pb(c: CaseSummary) -> common_pb2.CaseSummary:
    d = c.model_dump()
    d["latency"] = latency_to_pb(c.latency)
    return common_pb2.CaseSummary(**d)


def case_from_pb(m: common_pb2.CaseSummary) -> CaseSummary:
    return CaseSummary.model_validate(_to_dict(m))


def summary_to_pb(s: RunSummary) -> common_pb2.RunSummary:
    d = s.model_dump(exclude={"cases", "latency", "tags"})
    return common_pb2.RunSummary(
        **d,
        latency=latency_to_pb(s.latency),
        cases=[case_to_pb(c) for c in s.cases],
        tags=[
            common_pb2.TagSummary(**t.model_dump(exclude={"latency"}), latency=latency_to_pb(t.latency))
            for t in s.tags
        ],
    )


def summary_from_pb(m: common_pb2.RunSummary) -> RunSummary:
    """Map keys come back as strings from JSON form; the pydantic models make them ints again."""
    return RunSummary.model_validate(_to_dict(m))


def grade_to_pb(g: GradeRecord) -> transcripts_pb2.TrialGrade:
    """One grader's verdict; its parameters travel as a JSON object (free-form user data)."""
    return transcripts_pb2.TrialGrade(
        name=g.name,
        params_json=json.dumps(g.params, sort_keys=True, default=str),
        score=g.score,
        passed=g.passed,
        explanation=g.explanation,
        error=g.error or "",
        input_tokens=g.input_tokens,
        output_tokens=g.output_tokens,
        cost_usd=g.cost_usd,
    )


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
        latency_ms=t.latency_ms,
        tags=t.tags,
        error_code=t.error.code if t.error else "",
        error_message=t.error.message if t.error else "",
    )


REPORT_KIND_TO_PB = {
    "submitted": runner_pb2.RUN_EVENT_TYPE_SUBMITTED,
    "trials": runner_pb2.RUN_EVENT_TYPE_TRIALS,
    "completed": runner_pb2.RUN_EVENT_TYPE_COMPLETED,
    "cancelled": runner_pb2.RUN_EVENT_TYPE_CANCELLED,
    "failed": runner_pb2.RUN_EVENT_TYPE_FAILED,
}


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
