"""Conversions between the pydantic contracts and their protobuf messages."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from google.protobuf.json_format import MessageToDict

from agenteval.contracts.summary import CaseSummary, LatencySummary, RunSummary
from agenteval.v1 import common_pb2, transcripts_pb2

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


def grades_from_pb(grades: Iterable[transcripts_pb2.TrialGrade]) -> list[dict[str, Any]]:
    """A trial's grades as ``GradeRecord``-shaped dicts (name, params, score, passed,
    explanation, error), for exports that carry verdicts on."""
    return [
        {
            "name": g.name,
            "params": json.loads(g.params_json) if g.params_json else {},
            "score": g.score,
            "passed": g.passed,
            "explanation": g.explanation,
            "error": g.error or None,
        }
        for g in grades
    ]
