"""Run, case and tag statistics."""

from __future__ import annotations

from typing import Any

from google.protobuf.json_format import MessageToDict

from agenteval.contracts.summary import CaseSummary, LatencySummary, RunSummary
from agenteval.v1 import common_pb2


def _to_dict(msg: Any) -> dict[str, Any]:
    return MessageToDict(msg, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def latency_to_pb(lat: LatencySummary) -> common_pb2.LatencySummary:
    return common_pb2.LatencySummary(**lat.model_dump())


def latency_from_pb(msg: common_pb2.LatencySummary) -> LatencySummary:
    return LatencySummary.model_validate(_to_dict(msg))


def case_summary_to_pb(c: CaseSummary) -> common_pb2.CaseSummary:
    d = c.model_dump()
    d["latency"] = latency_to_pb(c.latency)
    return common_pb2.CaseSummary(**d)


def case_summary_from_pb(m: common_pb2.CaseSummary) -> CaseSummary:
    return CaseSummary.model_validate(_to_dict(m))


def summary_to_pb(s: RunSummary) -> common_pb2.RunSummary:
    d = s.model_dump(exclude={"cases", "latency", "tags"})
    return common_pb2.RunSummary(
        **d,
        latency=latency_to_pb(s.latency),
        cases=[case_summary_to_pb(c) for c in s.cases],
        tags=[
            common_pb2.TagSummary(**t.model_dump(exclude={"latency"}), latency=latency_to_pb(t.latency))
            for t in s.tags
        ],
    )


def summary_from_pb(m: common_pb2.RunSummary) -> RunSummary:
    """Map keys come back as strings from JSON form; the pydantic models make them ints again."""
    return RunSummary.model_validate(_to_dict(m))
