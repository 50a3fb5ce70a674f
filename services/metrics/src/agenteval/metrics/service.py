"""The metrics service's domain: record graded trials, publish progress and completion.

run.completed is published once per run: the summary goes out with a dedupe id
(``run.completed:<run>``) before the run is marked complete, so a crash in between
republishes the same event, which JetStream drops as a duplicate.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, NamedTuple

from agenteval.contracts.events import (
    Event,
    RunCompleted,
    RunProgressed,
    RunReported,
    RunSubmitted,
    TrialGraded,
    TrialResult,
    run_plan,
    trial_id_for,
)
from agenteval.contracts.subjects import Subjects
from agenteval.contracts.summary import RunSummary
from agenteval.contracts.trace import TrialError
from agenteval.metrics import instruments
from agenteval.metrics.repository import MetricsRepository
from agenteval.metrics.summary import summarize
from agenteval.runtime import telemetry
from agenteval.runtime.telemetry import event_span

Publisher = Callable[[str, Sequence[Event]], Awaitable[None]]

PROGRESS_INTERVAL_S = 0.2
REPORT_MAX_BYTES = 256 * 1024
"""A result-stream message carries graded trials up to about this size (the bus takes 1 MB)."""
MAX_REMEMBERED_RUNS = 64
MAX_REMEMBERED_TRIALS = 200_000
log = logging.getLogger("agenteval.metrics")
PLAN_WAITS, PLAN_WAIT_S = 30, 0.1
"""A graded trial of a run not seen yet waits this long for its run.submitted before its
message is handed back for a later try."""
_UNKNOWN: dict[str, int] = {}
"""A run this service has no record of (its run.submitted has not been seen)."""


class PlanPending(RuntimeError):
    """A graded trial of a run whose run.submitted has not arrived yet: try again later."""


class TrialCost(NamedTuple):
    usd: float
    """The agent's priced tokens plus grading."""
    known: bool
    """False when some of the agent's tokens could not be priced (no model named for them, or a
    model not in the price table): ``usd`` leaves them out, and the run says so."""


def trial_cost(g: TrialGraded) -> TrialCost:
    from agenteval.stats import cost_usd, unpriced_tokens

    agent_cost = sum(
        cost_usd(model, t.get("input_tokens", 0), t.get("output_tokens", 0)) for model, t in g.models.items()
    )
    known = unpriced_tokens(g.models, g.input_tokens, g.output_tokens) == 0
    return TrialCost(agent_cost + g.grading_cost_usd, known)


class MetricsService:
    def __init__(
        self,
        repo: MetricsRepository,
        subjects: Subjects,
        publish: Publisher,
        on_completed: Callable[[RunSummary], Awaitable[None]] | None = None,
    ) -> None:
        self.repo = repo
        self.subjects = subjects
        self.publish = publish
        self.on_completed = on_completed
        self._last_progress: dict[str, float] = {}
        self._plans: dict[str, dict[str, int] | None] = {}
        """Per run, its plan (cached; None for a run recorded before plans were kept)."""
        self._rows: dict[str, dict[str, dict[str, Any]]] = {}
        """Per run, the rows this process recorded (first one wins, as in the table): when it
        recorded them all, the summary is made from them instead of reading them back."""

    async def on_submitted(self, submitted: Sequence[RunSubmitted]) -> None:
        """Keep each run's plan: what it will have, so nothing else is counted in it."""
        for ev in submitted:
            plan = run_plan(ev)
            await self.repo.record_plan(
                ev.run_id, ev.suite.name, ev.agent_version, ev.agent, plan, ev.project
            )
            self._plans[ev.run_id] = plan

    async def _planned(self, graded: Sequence[TrialGraded], wait_for_plan: bool) -> list[TrialGraded]:
        """The trials their run asked for. A trial of a run whose plan has not arrived yet
        raises PlanPending (its message is tried again); a trial no run asked for (a forged or
        stray event: an unknown case, an index past the case's trials, a foreign id) is
        refused, logged and counted, never recorded."""
        for attempt in range(PLAN_WAITS + 1):
            missing = {g.run_id for g in graded if g.run_id not in self._plans}
            if not missing:
                break
            known = await self.repo.plans(sorted(missing))
            for run_id, plan in known.items():
                if len(self._plans) >= MAX_REMEMBERED_RUNS:
                    self._plans.pop(next(iter(self._plans)))
                self._plans[run_id] = plan
            if not (missing - known.keys()) or not wait_for_plan:
                break
            if attempt == PLAN_WAITS:  # the message is tried again later (backoff)
                raise PlanPending(f"runs not submitted (yet): {sorted(missing - known.keys())[:5]}")
            # run.submitted is consumed beside trial.graded: it is usually a moment behind.
            await asyncio.sleep(PLAN_WAIT_S)
        accepted = []
        for g in graded:
            plan = self._plans.get(g.run_id, _UNKNOWN)
            if plan is None:  # a run recorded before plans were kept
                accepted.append(g)
            elif (
                plan is not _UNKNOWN
                and 0 <= g.trial_index < plan.get(g.case_id, 0)
                and g.trial_id == trial_id_for(g.run_id, g.case_id, g.trial_index)
            ):
                accepted.append(g)
            else:
                log.warning(
                    "refused a graded trial its run never asked for",
                    extra={
                        "run_id": g.run_id[:200],
                        "trial_id": g.trial_id[:200],
                        "case_id": g.case_id[:200],
                    },
                )
                telemetry.count_rejected("metrics-trial-graded")
        return accepted

    async def on_graded(self, graded: Sequence[TrialGraded], *, wait_for_plan: bool = True) -> None:
        graded = await self._planned(graded, wait_for_plan)
        if not graded:
            return
        costs = [trial_cost(g) for g in graded]
        rows = await self.repo.record(graded, costs)
        self._remember(rows)
        by_run: dict[str, list[tuple[TrialGraded, TrialCost]]] = {}
        for g, cost in zip(graded, costs, strict=True):
            by_run.setdefault(g.run_id, []).append((g, cost))
        for run_id, items in by_run.items():
            with event_span("metrics.check", items[-1][0]):  # run.* events join the run's trace
                progress = await self.repo.progress(run_id)
                # Reported before completion, so a subscriber sees every trial before the end.
                await self._report_trials(run_id, items, progress)
                await self._check(run_id, progress)

    async def _report_trials(
        self, run_id: str, items: list[tuple[TrialGraded, TrialCost]], progress: tuple[int, int, int, bool]
    ) -> None:
        graded, passes, total, _ = progress
        first = items[0][0]
        chunks: list[list[TrialResult]] = [[]]
        size = 0
        for g, cost in items:
            result = TrialResult(
                trial_id=g.trial_id,
                case_id=g.case_id,
                trial_index=g.trial_index,
                status=g.status,
                passed=g.passed,
                score=g.score,
                grades=g.grades,
                input_tokens=g.input_tokens,
                output_tokens=g.output_tokens,
                cost_usd=cost.usd,
                cost_unknown=not cost.known,
                latency_ms=g.latency_ms,
                tags=g.tags,
                error=g.error,
            )
            weight = 400 + sum(len(r.explanation) + len(r.error or "") + 200 for r in g.grades)
            if chunks[-1] and size + weight > REPORT_MAX_BYTES:
                chunks.append([])
                size = 0
            chunks[-1].append(result)
            size += weight
        subject = self.subjects.run_reported(first.project, first.suite, first.agent_version, run_id)
        events = [
            RunReported(
                # The same batch redelivered is the same message: JetStream drops the copy.
                event_id=f"run.reported:{run_id}:trials:{_digest(r.trial_id for r in chunk)}",
                kind="trials",
                run_id=run_id,
                project=first.project,
                suite=first.suite,
                agent_version=first.agent_version,
                trials=chunk,
                trials_total=total,
                trials_graded=graded,
                passes=passes,
            )
            for chunk in chunks
        ]
        await self.publish(subject, events)

    async def _check(self, run_id: str, progress: tuple[int, int, int, bool]) -> None:
        graded, passes, total, completed = progress
        if completed:
            return
        if total and graded >= total:
            await self.complete(run_id)
            return
        now = time.monotonic()
        if now - self._last_progress.get(run_id, 0.0) >= PROGRESS_INTERVAL_S:
            self._last_progress[run_id] = now
            await self.publish(
                self.subjects.run_progressed,
                [
                    RunProgressed(
                        event_id=f"run.progressed:{run_id}:{graded}",
                        run_id=run_id,
                        trials_total=total,
                        trials_graded=graded,
                        passes=passes,
                    )
                ],
            )

    async def complete(self, run_id: str) -> RunSummary:
        summary = await self.summary(run_id)
        meta = await self.repo.run_meta(run_id)
        project = str(meta["project"]) if meta and meta.get("project") else "default"
        await self.publish(
            self.subjects.run_completed,
            [RunCompleted(event_id=f"run.completed:{run_id}", run_id=run_id, summary=summary)],
        )
        await self.publish(
            self.subjects.run_reported(project, summary.suite, summary.agent_version, run_id),
            [
                RunReported(
                    event_id=f"run.reported:{run_id}:completed",
                    kind="completed",
                    run_id=run_id,
                    project=project,
                    suite=summary.suite,
                    agent_version=summary.agent_version,
                    trials_total=summary.trials,
                    trials_graded=summary.trials,
                    passes=summary.passes,
                    summary=summary,
                )
            ],
        )
        await self.repo.mark_completed(run_id)
        self._last_progress.pop(run_id, None)
        self._rows.pop(run_id, None)
        instruments.observe_run(summary)
        if self.on_completed is not None:
            await self.on_completed(summary)
        return summary

    async def summary(self, run_id: str) -> RunSummary:
        meta = await self.repo.run_meta(run_id)
        mine = self._rows.get(run_id)
        if meta is not None and mine is not None and len(mine) >= meta["trials_total"] > 0:
            rows = list(mine.values())  # every trial passed through here (one replica, no restart)
        else:
            rows = await self.repo.trials(run_id)
        return summarize(run_id, rows, meta)

    def _remember(self, rows: Sequence[dict[str, Any]]) -> None:
        for row in rows:
            per_run = self._rows.get(row["run_id"])
            if per_run is None:
                if len(self._rows) >= MAX_REMEMBERED_RUNS:  # oldest first: a run that never completes
                    self._rows.pop(next(iter(self._rows)))
                per_run = self._rows[row["run_id"]] = {}
            if len(per_run) < MAX_REMEMBERED_TRIALS:
                per_run.setdefault(row["trial_id"], row)


def as_failed(g: TrialGraded, reason: str) -> TrialGraded:
    """A graded trial the metrics could not record as it was (after the delivery limit):
    counted as a failed trial with no usage, so its run still ends, and saying why."""
    return g.model_copy(
        update={
            "status": "error",
            "passed": False,
            "score": 0.0,
            "grades": [],
            "input_tokens": 0,
            "output_tokens": 0,
            "models": {},
            "grading_cost_usd": 0.0,
            "latency_ms": 0.0,
            "error": TrialError(
                code="not_recorded", message=f"the metrics service could not record this trial: {reason}"
            ),
        }
    )


def _digest(ids: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()[:24]
