"""The grader's domain: judge a completed trial with its graders."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from agenteval.contracts.events import GradeRecord, TrialCompleted, TrialGraded
from agenteval.contracts.suite import GraderSpec
from agenteval.grader import instruments
from agenteval.grading import GradeContext, run_grader
from agenteval.runtime import auth
from agenteval.runtime.telemetry import current_context, event_span


class GraderService:
    def __init__(self, services: dict[str, Any] | None = None) -> None:
        self.services: dict[str, Any] = services if services is not None else {}

    async def grade(self, done: TrialCompleted) -> TrialGraded:
        # Saved evals (eval:NAME) are looked up in the trial's project.
        auth.acting_as(auth.Caller("grader", done.project, frozenset({done.project}), chosen=True))
        with event_span("grader.grade", done, case_id=done.case.id):
            return await self._grade(done)

    async def _grade(self, done: TrialCompleted) -> TrialGraded:
        started = time.perf_counter()
        # Each trial's own suite decides what its eval functions may import: one grader serves many suites.
        ctx = GradeContext(case=done.case, services=self.services, allowed_imports=done.allowed_imports)
        trace = done.trace
        specs: Sequence[GraderSpec] = done.graders
        grades = [await run_grader(spec, trace, ctx) for spec in specs]
        finished = trace.status == "ok"
        passed = finished and all(g.passed for g in grades)
        score = (
            (sum(g.score for g in grades) / len(grades))
            if (grades and finished)
            else (1.0 if finished else 0.0)
        )
        for g in grades:
            instruments.GRADES.labels(
                grader=g.name if not g.name.startswith("eval:") else "eval",
                verdict="pass" if g.passed else "fail",
            ).inc()
        instruments.TRIALS_GRADED.labels(verdict="pass" if passed else "fail").inc()
        instruments.GRADING_SECONDS.observe(time.perf_counter() - started)
        return TrialGraded(
            event_id=f"trial.graded:{done.trial_id}",
            run_id=done.run_id,
            project=done.project,
            trial_id=done.trial_id,
            case_id=done.case.id,
            trial_index=done.trial_index,
            trials_total=done.trials_total,
            suite=done.suite,
            agent_version=done.agent_version,
            agent=done.agent,
            tags=done.case.tags,
            status=trace.status,
            passed=passed,
            score=score,
            grades=[GradeRecord(**g.model_dump()) for g in grades],
            latency_ms=trace.latency_ms,
            input_tokens=trace.usage.input_tokens,
            output_tokens=trace.usage.output_tokens,
            models=trace.usage.models,
            grading_cost_usd=sum(g.cost_usd for g in grades),
            error=trace.error,
            trace_context=current_context(),  # published later, as a batch: keep this span as parent
        )

    def grading_failed(self, done: TrialCompleted, reason: str) -> TrialGraded:
        """The verdict on a trial that could not be graded: failed, and the grade says why."""
        trace = done.trace
        return TrialGraded(
            event_id=f"trial.graded:{done.trial_id}",
            run_id=done.run_id,
            project=done.project,
            trial_id=done.trial_id,
            case_id=done.case.id,
            trial_index=done.trial_index,
            trials_total=done.trials_total,
            suite=done.suite,
            agent_version=done.agent_version,
            tags=done.case.tags,
            status=trace.status,
            passed=False,
            score=0.0,
            grades=[
                GradeRecord(
                    name="grading",
                    score=0.0,
                    passed=False,
                    explanation="this trial could not be graded",
                    error=reason,
                )
            ],
            latency_ms=trace.latency_ms,
            input_tokens=trace.usage.input_tokens,
            output_tokens=trace.usage.output_tokens,
            models=trace.usage.models,
            error=trace.error,
        )

    async def grade_many(self, batch: Sequence[TrialCompleted]) -> list[TrialGraded]:
        return list(await asyncio.gather(*(self.grade(done) for done in batch)))
