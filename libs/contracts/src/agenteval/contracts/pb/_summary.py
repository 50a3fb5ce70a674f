"""Run, case and tag statistics.

A run's summary has a row per case (thousands in a large suite) and clients read it on every
GetRun, so pydantic reads the message's attributes itself (``from_attributes``): several times
faster than going through ``MessageToDict``'s JSON form, and map keys stay integers.
"""

from __future__ import annotations

from agenteval.contracts.summary import CaseSummary, LatencySummary, RunSummary
from agenteval.v1 import common_pb2


def latency_to_pb(lat: LatencySummary) -> common_pb2.LatencySummary:
    return common_pb2.LatencySummary(**lat.model_dump())


def latency_from_pb(msg: common_pb2.LatencySummary) -> LatencySummary:
    return LatencySummary.model_validate(msg, from_attributes=True)


def case_summary_to_pb(c: CaseSummary) -> common_pb2.CaseSummary:
    d = c.model_dump()
    d["latency"] = latency_to_pb(c.latency)
    return common_pb2.CaseSummary(**d)


def case_summary_from_pb(m: common_pb2.CaseSummary) -> CaseSummary:
    return CaseSummary.model_validate(m, from_attributes=True)


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
    return RunSummary.model_validate(m, from_attributes=True)
