"""CompareRuns: a candidate run against a baseline, with the statistics of agenteval.stats."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from agenteval.contracts.errors import Conflict, InvalidArgument
from agenteval.contracts.summary import RunSummary
from agenteval.runner.service import RunnerService


@dataclass
class CompareResult:
    baseline_run_id: str
    candidate_run_id: str
    passed: bool
    document: dict[str, Any]


def _jsonable(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {k: _jsonable(v) for k, v in dataclasses.asdict(obj).items()}
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    return obj


# What a case tests: a change to any of these makes two runs' pass rates answer different
# questions. Descriptions, tags, metadata and trial counts do not.
_DEFINING = (
    "input",
    "initial_state",
    "tool_mocks",
    "expected_tools",
    "expected_output",
    "graders",
    "timeout_s",
)


def case_fingerprints(suite_json: str) -> dict[str, str]:
    """A digest per case of what it tests (its defining fields and the suite-wide graders)."""
    try:
        suite = json.loads(suite_json)
    except ValueError:
        return {}
    if not isinstance(suite, dict):
        return {}
    shared = {"graders": suite.get("graders", []), "timeout_s": suite.get("timeout_s")}
    out = {}
    for case in suite.get("cases", []):
        if not isinstance(case, dict) or "id" not in case:
            continue
        defining = {key: case.get(key) for key in _DEFINING}
        text = json.dumps({"case": defining, "suite": shared}, sort_keys=True, default=str)
        out[str(case["id"])] = hashlib.sha256(text.encode()).hexdigest()
    return out


def changed_cases(baseline_suite_json: str, candidate_suite_json: str) -> list[str]:
    """Cases in both suites whose definitions differ."""
    b, c = case_fingerprints(baseline_suite_json), case_fingerprints(candidate_suite_json)
    return [case_id for case_id in c if case_id in b and b[case_id] != c[case_id]]


async def compare(
    service: RunnerService,
    baseline_ref: str,
    candidate_ref: str,
    threshold: float = 0.05,
    alpha: float = 0.05,
) -> CompareResult:
    if not baseline_ref or not candidate_ref:
        raise InvalidArgument("compare needs a baseline and a candidate (run id or agent version)")
    candidate = await service.resolve(candidate_ref)
    baseline = await service.resolve(baseline_ref, suite=candidate.suite)
    if baseline.run_id == candidate.run_id:  # a run compared with itself always "passes"
        raise InvalidArgument(f"baseline and candidate are the same run {baseline.run_id}")
    for rec in (baseline, candidate):
        if rec.summary is None:
            raise Conflict(f"run {rec.run_id} has no summary yet (status {rec.status})")
    assert baseline.summary is not None and candidate.summary is not None
    return compare_summaries(
        baseline.summary.model_copy(
            update={
                "run_id": baseline.run_id,
                "agent_version": baseline.agent_version,
                "suite": baseline.suite,
            }
        ),
        candidate.summary.model_copy(
            update={
                "run_id": candidate.run_id,
                "agent_version": candidate.agent_version,
                "suite": candidate.suite,
            }
        ),
        threshold=threshold,
        alpha=alpha,
        changed=changed_cases(baseline.suite_json, candidate.suite_json),
    )


def compare_summaries(
    baseline: RunSummary,
    candidate: RunSummary,
    threshold: float = 0.05,
    alpha: float = 0.05,
    changed: list[str] | None = None,
) -> CompareResult:
    """The comparison of two run summaries (what CompareRuns answers; also for summaries read
    from files, such as a previous CI run's artifact, where ``changed`` cases are unknown)."""
    from agenteval.stats import compare_grader_scores, compare_runs

    b, c = baseline, candidate
    comparison = compare_runs(
        {cs.case_id: (cs.passes, cs.trials) for cs in b.cases},
        {cs.case_id: (cs.passes, cs.trials) for cs in c.cases},
        threshold=threshold,
        alpha=alpha,
        baseline_errors={cs.case_id: (cs.errors, cs.timeouts) for cs in b.cases},
        candidate_errors={cs.case_id: (cs.errors, cs.timeouts) for cs in c.cases},
        baseline_suite=baseline.suite,
        candidate_suite=candidate.suite,
        changed_cases=changed or [],
    )
    doc = _jsonable(comparison)
    doc["grader_scores"] = _jsonable(
        compare_grader_scores(
            {cs.case_id: cs.grader_scores for cs in b.cases},
            {cs.case_id: cs.grader_scores for cs in c.cases},
        )
    )
    doc["baseline"] = {"run_id": b.run_id, "agent_version": b.agent_version, "suite": b.suite}
    doc["candidate"] = {"run_id": c.run_id, "agent_version": c.agent_version, "suite": c.suite}
    return CompareResult(b.run_id, c.run_id, bool(comparison.passed), doc)
