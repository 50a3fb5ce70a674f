"""Summaries survive the trip through protobuf unchanged (what clients see is what metrics computed)."""

from agenteval.contracts.pb import summary_from_pb, summary_to_pb
from agenteval.contracts.summary import CaseSummary, LatencySummary, RunSummary, TagSummary


def test_summary_roundtrip() -> None:
    s = RunSummary(
        run_id="r",
        suite="s",
        agent="a",
        agent_version="v",
        k=2,
        trials=4,
        passes=3,
        pass_rate=0.75,
        pass_rate_low=0.3,
        pass_rate_high=0.95,
        pass_at_k={1: 0.75, 2: 1.0},
        pass_pow_k={1: 0.75, 2: 0.5},
        latency=LatencySummary(p50_ms=1.5, p95_ms=2.5, p99_ms=3.0, mean_ms=1.7, max_ms=3.1),
        errors=1,
        input_tokens=10,
        cost_unknown_trials=2,
        output_tokens=5,
        cost_usd=0.25,
        cases=[
            CaseSummary(
                case_id="c",
                trials=4,
                passes=3,
                pass_rate=0.75,
                pass_at_k={1: 0.75},
                tags=["fast"],
                grader_scores={"x": 0.5},
                flaky=True,
                cost_unknown_trials=2,
            )
        ],
        tags=[
            TagSummary(
                tag="fast",
                cases=1,
                trials=4,
                passes=3,
                pass_rate=0.75,
                pass_at_k={1: 0.75},
                latency=LatencySummary(p50_ms=5.0, p95_ms=9.0, p99_ms=9.5),
                input_tokens=400,
                output_tokens=40,
                cost_usd=0.002,
                cost_unknown_trials=2,
                grader_scores={"x": 0.5},
            )
        ],
    )
    assert summary_from_pb(summary_to_pb(s)) == s
