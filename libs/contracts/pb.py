"""Conversions between the pydantic contracts and their protobuf messages."""

from __future__ import annotations

from agenteval.contracts.summary import CaseSummary, LatencySummary, RunSummary, TagSummary
from agenteval.v1 import common_pb2

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


def latency_from_pb(msg: common_pb2.LatencySummary) -> LatencySummary:
    return LatencySummary(
        p50_ms=msg.p50_ms, p95_ms=msg.p95_ms, p99_ms=msg.p99_ms, mean_ms=msg.mean_ms, max_ms=msg.max_ms
    )


def case_to_pb(c: CaseSummary) -> common_pb2.CaseSummary:
    d = c.model_dump()
    d["latency"] = latency_to_pb(c.latency)
    return common_pb2.CaseSummary(**d)


def case_from_pb(m: common_pb2.CaseSummary) -> CaseSummary:
    return CaseSummary(
        case_id=m.case_id,
        trials=m.trials,
        passes=m.passes,
        pass_rate=m.pass_rate,
        pass_rate_low=m.pass_rate_low,
        pass_rate_high=m.pass_rate_high,
        pass_at_k=dict(sorted(m.pass_at_k.items())),
        pass_pow_k=dict(sorted(m.pass_pow_k.items())),
        latency=latency_from_pb(m.latency),
        errors=m.errors,
        timeouts=m.timeouts,
        input_tokens=m.input_tokens,
        output_tokens=m.output_tokens,
        cost_usd=m.cost_usd,
        tags=list(m.tags),
        grader_scores=dict(m.grader_scores),
        flaky=m.flaky,
    )


def summary_to_pb(s: RunSummary) -> common_pb2.RunSummary:
    d = s.model_dump(exclude={"cases", "latency", "tags"})
    return common_pb2.RunSummary(
        **d,
        latency=latency_to_pb(s.latency),
        cases=[case_to_pb(c) for c in s.cases],
        tags=[common_pb2.TagSummary(**t.model_dump()) for t in s.tags],
    )


def summary_from_pb(m: common_pb2.RunSummary) -> RunSummary:
    return RunSummary(
        run_id=m.run_id,
        suite=m.suite,
        agent=m.agent,
        agent_version=m.agent_version,
        k=m.k,
        trials=m.trials,
        passes=m.passes,
        pass_rate=m.pass_rate,
        pass_rate_low=m.pass_rate_low,
        pass_rate_high=m.pass_rate_high,
        pass_at_k=dict(sorted(m.pass_at_k.items())),
        pass_pow_k=dict(sorted(m.pass_pow_k.items())),
        latency=latency_from_pb(m.latency),
        errors=m.errors,
        timeouts=m.timeouts,
        input_tokens=m.input_tokens,
        output_tokens=m.output_tokens,
        cost_usd=m.cost_usd,
        cases=[case_from_pb(c) for c in m.cases],
        tags=[
            TagSummary(
                tag=t.tag,
                cases=t.cases,
                trials=t.trials,
                passes=t.passes,
                pass_rate=t.pass_rate,
                pass_rate_low=t.pass_rate_low,
                pass_rate_high=t.pass_rate_high,
                pass_at_k=dict(sorted(t.pass_at_k.items())),
                pass_pow_k=dict(sorted(t.pass_pow_k.items())),
            )
            for t in m.tags
        ],
    )
