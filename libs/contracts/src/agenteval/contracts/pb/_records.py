"""What the services report: runs, stored trials and their grades, imported traces, eval tests."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from agenteval.contracts.errors import InvalidArgument
from agenteval.contracts.events import GradeRecord
from agenteval.contracts.pb._json import json_object_from_pb, json_object_to_pb
from agenteval.contracts.pb._summary import summary_from_pb, summary_to_pb
from agenteval.contracts.pb._trace import TRIAL_STATUS_FROM_PB, TRIAL_STATUS_TO_PB, trace_from_pb, trace_to_pb
from agenteval.contracts.records import (
    EvalCodeReport,
    EvalMismatch,
    ImportProblem,
    ImportReport,
    LabeledTrace,
    RunInfo,
    TraceInfo,
    TrialRecord,
)
from agenteval.v1 import common_pb2, grader_pb2, runner_pb2, trace_pb2, transcripts_pb2

RUN_STATUS_TO_PB = {
    "pending": common_pb2.RUN_STATUS_PENDING,
    "running": common_pb2.RUN_STATUS_RUNNING,
    "completed": common_pb2.RUN_STATUS_COMPLETED,
    "cancelled": common_pb2.RUN_STATUS_CANCELLED,
    "failed": common_pb2.RUN_STATUS_FAILED,
}
RUN_STATUS_FROM_PB = {v: k for k, v in RUN_STATUS_TO_PB.items()}

LABEL_TO_PB = {"positive": grader_pb2.LABEL_POSITIVE, "negative": grader_pb2.LABEL_NEGATIVE}
LABEL_FROM_PB = {v: k for k, v in LABEL_TO_PB.items()}


def _time_to_pb(t: datetime | None) -> str:
    return t.isoformat() if t is not None else ""


def _time_from_pb(text: str) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def run_to_pb(r: RunInfo) -> runner_pb2.Run:
    msg = runner_pb2.Run(
        run_id=r.run_id,
        suite=r.suite,
        agent=r.agent,
        agent_version=r.agent_version,
        k=r.k or 0,
        status=RUN_STATUS_TO_PB[r.status],
        trials_total=r.trials_total,
        trials_graded=r.trials_graded,
        created_at=_time_to_pb(r.created_at),
        completed_at=_time_to_pb(r.completed_at),
        error=r.error or "",
        suite_version=r.suite_version,
        suite_version_number=r.suite_version_number,
        tags=r.tags,
        project=r.project,
    )
    if r.summary is not None:
        msg.summary.CopyFrom(summary_to_pb(r.summary))
    return msg


def run_from_pb(m: runner_pb2.Run) -> RunInfo:
    return RunInfo(
        run_id=m.run_id,
        suite=m.suite,
        agent=m.agent,
        agent_version=m.agent_version,
        k=m.k or None,
        status=RUN_STATUS_FROM_PB.get(m.status, "pending"),
        trials_total=m.trials_total,
        trials_graded=m.trials_graded,
        created_at=_time_from_pb(m.created_at),
        completed_at=_time_from_pb(m.completed_at),
        summary=summary_from_pb(m.summary) if m.HasField("summary") else None,
        error=m.error or None,
        suite_version=m.suite_version,
        suite_version_number=m.suite_version_number,
        tags=list(m.tags),
        project=m.project or "default",
    )


def grade_to_pb(g: GradeRecord) -> transcripts_pb2.TrialGrade:
    return transcripts_pb2.TrialGrade(
        name=g.name,
        params_json=json_object_to_pb(g.params),
        score=g.score,
        passed=g.passed,
        explanation=g.explanation,
        error=g.error or "",
        input_tokens=g.input_tokens,
        output_tokens=g.output_tokens,
        cost_usd=g.cost_usd,
    )


def grade_from_pb(m: transcripts_pb2.TrialGrade) -> GradeRecord:
    return GradeRecord(
        name=m.name,
        params=json_object_from_pb(m.params_json, "grade.params_json"),
        score=m.score,
        passed=m.passed,
        explanation=m.explanation,
        error=m.error or None,
        input_tokens=m.input_tokens,
        output_tokens=m.output_tokens,
        cost_usd=m.cost_usd,
    )


def grades_from_pb(grades: Iterable[transcripts_pb2.TrialGrade]) -> list[dict[str, Any]]:
    """A trial's grades as ``GradeRecord``-shaped dicts, for exports that carry verdicts on."""
    return [grade_from_pb(g).model_dump() for g in grades]


def trial_to_pb(t: TrialRecord) -> transcripts_pb2.Trial:
    msg = transcripts_pb2.Trial(
        trial_id=t.trial_id,
        run_id=t.run_id,
        case_id=t.case_id,
        trial_index=t.trial_index,
        status=TRIAL_STATUS_TO_PB.get(t.status or "", common_pb2.TRIAL_STATUS_UNSPECIFIED),
        latency_ms=t.latency_ms,
        created_at=_time_to_pb(t.created_at),
        grades=[grade_to_pb(g) for g in t.grades],
    )
    if t.passed is not None:
        msg.passed = t.passed
    if t.score is not None:
        msg.score = t.score
    if t.trace is not None:
        msg.trace.CopyFrom(trace_to_pb(t.trace))
    return msg


def trial_from_pb(m: transcripts_pb2.Trial) -> TrialRecord:
    return TrialRecord(
        trial_id=m.trial_id,
        run_id=m.run_id,
        case_id=m.case_id,
        trial_index=m.trial_index,
        status=TRIAL_STATUS_FROM_PB.get(m.status),
        latency_ms=m.latency_ms,
        created_at=_time_from_pb(m.created_at),
        passed=m.passed if m.HasField("passed") else None,
        score=m.score if m.HasField("score") else None,
        grades=[grade_from_pb(g) for g in m.grades],
        trace=trace_from_pb(m.trace, f"trial {m.trial_id}: trace") if m.HasField("trace") else None,
    )


def trace_info_to_pb(t: TraceInfo) -> transcripts_pb2.TraceSummary:
    msg = transcripts_pb2.TraceSummary(
        trace_id=t.trace_id,
        dataset=t.dataset,
        label=t.label or "",
        summary=t.summary,
        step_count=t.step_count,
        has_tool_calls=t.has_tool_calls,
        comment=t.comment or "",
        rater=t.rater or "",
        dataset_version=t.dataset_version,
    )
    if t.trace is not None:
        msg.trace.CopyFrom(trace_to_pb(t.trace))
    return msg


def trace_info_from_pb(m: transcripts_pb2.TraceSummary, trace: trace_pb2.Trace | None = None) -> TraceInfo:
    """``trace``: the trace when it travels beside the summary (GetTraceResponse.trace)."""
    if trace is None and m.HasField("trace"):
        trace = m.trace
    label = m.label if m.label in LABEL_TO_PB else None
    return TraceInfo(
        trace_id=m.trace_id,
        dataset=m.dataset,
        label=label,
        summary=m.summary,
        step_count=m.step_count,
        has_tool_calls=m.has_tool_calls,
        comment=m.comment or None,
        rater=m.rater or None,
        dataset_version=m.dataset_version,
        trace=trace_from_pb(trace, f"trace {m.trace_id}") if trace is not None else None,
    )


def import_report_from_pb(m: transcripts_pb2.ImportTracesResponse) -> ImportReport:
    return ImportReport(
        dataset=m.dataset,
        dataset_version=m.dataset_version,
        imported=m.imported,
        duplicates=m.duplicates,
        problems=[ImportProblem(p.line, p.reason, p.unit or "line") for p in m.problems],  # type: ignore[arg-type]
        format=m.format,
    )


def import_report_to_pb(r: ImportReport) -> transcripts_pb2.ImportTracesResponse:
    return transcripts_pb2.ImportTracesResponse(
        dataset=r.dataset,
        dataset_version=r.dataset_version,
        imported=r.imported,
        duplicates=r.duplicates,
        problems=[
            transcripts_pb2.ImportProblem(line=p.line, reason=p.reason, unit=p.unit) for p in r.problems
        ],
        format=r.format,
    )


def labeled_trace_to_pb(t: LabeledTrace) -> grader_pb2.LabeledTrace:
    return grader_pb2.LabeledTrace(
        trace_id=t.trace_id, trace=trace_to_pb(t.trace), label=LABEL_TO_PB[t.label]
    )


def labeled_traces_from_pb(traces: Iterable[grader_pb2.LabeledTrace]) -> list[LabeledTrace]:
    """Labeled traces a client sent; raises InvalidArgument naming the first bad one."""
    out: list[LabeledTrace] = []
    for i, m in enumerate(traces):
        where = f"traces[{i}] ({m.trace_id or 'no id'})"
        label = LABEL_FROM_PB.get(m.label)
        if label is None:
            raise InvalidArgument(f"{where}: label is not set")
        if not m.HasField("trace"):
            raise InvalidArgument(f"{where}: trace is not set")
        out.append(
            LabeledTrace(trace_id=m.trace_id or str(i), trace=trace_from_pb(m.trace, where), label=label)
        )
    return out


def eval_report_to_pb(r: EvalCodeReport) -> grader_pb2.TestEvalCodeResponse:
    return grader_pb2.TestEvalCodeResponse(
        accuracy=r.accuracy,
        total=r.total,
        correct=r.correct,
        incorrect=r.incorrect,
        errors=r.errors,
        code_error=r.code_error or "",
        mismatches=[
            grader_pb2.Mismatch(
                trace_id=m.trace_id,
                expected=LABEL_TO_PB[m.expected],
                predicted=LABEL_TO_PB.get(m.predicted or "", grader_pb2.LABEL_UNSPECIFIED),
                score=m.score or 0.0,
                explanation=m.explanation,
                error=m.error or "",
            )
            for m in r.mismatches
        ],
    )


def eval_report_from_pb(m: grader_pb2.TestEvalCodeResponse) -> EvalCodeReport:
    return EvalCodeReport(
        accuracy=m.accuracy,
        total=m.total,
        correct=m.correct,
        incorrect=m.incorrect,
        errors=m.errors,
        code_error=m.code_error or None,
        mismatches=[
            EvalMismatch(
                trace_id=x.trace_id,
                expected=LABEL_FROM_PB.get(x.expected, "negative"),
                predicted=LABEL_FROM_PB.get(x.predicted),
                score=None if x.error else x.score,
                explanation=x.explanation,
                error=x.error or None,
            )
            for x in m.mismatches
        ],
    )
