"""The comparison document and agenteval.v1.Comparison say the same, field for field."""

from __future__ import annotations

from agenteval.contracts import pb
from agenteval.contracts.summary import CaseSummary, RunSummary
from agenteval.reports import comparison_report
from agenteval.runner.compare import compare_summaries


def summary(run_id: str, version: str, passes: dict[str, int], errors: dict[str, int]) -> RunSummary:
    return RunSummary(
        run_id=run_id,
        suite="s",
        agent_version=version,
        k=10,
        cases=[
            CaseSummary(
                case_id=case,
                trials=10,
                passes=n,
                pass_rate=n / 10,
                errors=errors.get(case, 0),
                grader_scores={"exact": n / 10} if case != "c3" else {},
            )
            for case, n in passes.items()
        ],
    )


def test_a_comparison_survives_the_message_unchanged() -> None:
    baseline = summary("run-a", "v1", {"c1": 10, "c2": 9, "c3": 5, "gone": 3}, {})
    candidate = summary("run-b", "v2", {"c1": 0, "c2": 9, "c3": 6, "new": 1}, {"c2": 1})
    document = compare_summaries(baseline, candidate, changed=["c3"]).document
    assert document["regressions"] == ["c1"], "the example must exercise a regression"
    msg = pb.comparison_to_pb(document)
    assert msg.cases[0].verdict in ("regressed", "unchanged", "improved")
    assert [c.case_id for c in msg.cases if c.verdict == "regressed"] == ["c1"]
    back = pb.comparison_from_pb(type(msg).FromString(msg.SerializeToString()))
    assert back == document
    # ... and reads as the same report.
    assert comparison_report(back) == comparison_report(document)
