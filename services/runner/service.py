"""The runner's domain: accept runs, expand them into trials, run trials, track runs."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from agenteval.contracts.errors import InvalidArgument, NotFound
from agenteval.contracts.events import (
    Event,
    RunCancelled,
    RunCompleted,
    RunProgressed,
    RunSubmitted,
    TrialCompleted,
    TrialRequested,
    trial_id_for,
)
from agenteval.contracts.subjects import Subjects
from agenteval.contracts.suite import Suite
from agenteval.runner import metrics
from agenteval.runner.agents import load_agent
from agenteval.runner.executor import run_trial, trial_seed
from agenteval.runner.repository import RunRecord, RunRepository
from agenteval.runner.settings import RunnerSettings
from agenteval.suites import SuiteError, filter_cases, validate_suite

log = logging.getLogger("agenteval.runner")

Publisher = Callable[[str, Sequence[Event]], Awaitable[None]]


def new_run_id() -> str:
    """Time-ordered, unique: ``run-<ms since epoch in hex>-<random>``."""
    return f"run-{int(time.time() * 1000):011x}-{secrets.token_hex(4)}"


@dataclass
class SubmitRunInput:
    suite: Suite
    agent: str = ""
    k: int | None = None
    agent_version: str = ""
    concurrency: int = 0
    seed: int = 0
    timeout_s: float | None = None
    tags: list[str] = field(default_factory=list)
    request_id: str = ""


class RunnerService:
    def __init__(
        self, repo: RunRepository, settings: RunnerSettings, subjects: Subjects, publish: Publisher
    ) -> None:
        self.repo = repo
        self.settings = settings
        self.subjects = subjects
        self.publish = publish
        self.cancelled: set[str] = set()
        self._run_limits: dict[str, asyncio.Semaphore] = {}

    # -- submitting --------------------------------------------------------------------
    async def submit(self, inp: SubmitRunInput) -> RunRecord:
        if inp.request_id:
            existing = await self.repo.by_request_id(inp.request_id)
            if existing is not None:
                return existing
        try:
            validate_suite(inp.suite)
            suite = filter_cases(inp.suite, inp.tags)
        except SuiteError as exc:
            raise InvalidArgument(str(exc)) from None
        agent = inp.agent or suite.agent or ""
        load_agent(agent)  # fail now, with a clear reason, not in every trial
        if inp.k is not None and not 1 <= inp.k <= 1000:
            raise InvalidArgument(f"k must be between 1 and 1000, got {inp.k}")
        if inp.timeout_s is not None and inp.timeout_s <= 0:
            raise InvalidArgument("timeout must be positive")
        seed = inp.seed or secrets.randbelow(2**31 - 1) + 1
        total = sum(suite.trials_for(c, inp.k) for c in suite.cases)
        rec = RunRecord(
            run_id=new_run_id(),
            request_id=inp.request_id or None,
            suite=suite.name,
            agent=agent,
            agent_version=inp.agent_version or agent,
            k=inp.k,
            seed=seed,
            concurrency=max(0, inp.concurrency),
            timeout_s=inp.timeout_s,
            status="pending",
            trials_total=total,
            trials_graded=0,
            passes=0,
            created_at=datetime.now(UTC),
            completed_at=None,
            suite_json=suite.model_dump_json(),
            summary_json=None,
            error=None,
        )
        await self.repo.insert(rec)
        event = RunSubmitted(
            event_id=f"run.submitted:{rec.run_id}",
            run_id=rec.run_id,
            suite=suite,
            agent=agent,
            agent_version=rec.agent_version,
            k=inp.k,
            seed=seed,
            timeout_s=inp.timeout_s,
            concurrency=rec.concurrency,
            trials_total=total,
        )
        await self.publish(self.subjects.run_submitted, [event])
        metrics.RUNS_SUBMITTED.inc()
        return rec

    # -- expanding a run into trials ---------------------------------------------------
    def trials_of(self, ev: RunSubmitted) -> list[TrialRequested]:
        suite = ev.suite
        timeout = ev.timeout_s or suite.timeout_s or self.settings.default_timeout_s
        out: list[TrialRequested] = []
        for case in suite.cases:
            graders = suite.graders_for(case)
            n = suite.trials_for(case, ev.k)
            for i in range(n):
                tid = trial_id_for(ev.run_id, case.id, i)
                out.append(
                    TrialRequested(
                        event_id=f"trial.requested:{tid}",
                        run_id=ev.run_id,
                        trial_id=tid,
                        case=case,
                        graders=graders,
                        trial_index=i,
                        trials_total=ev.trials_total,
                        agent=ev.agent,
                        agent_version=ev.agent_version,
                        suite=suite.name,
                        seed=trial_seed(ev.seed, case.id, i),
                        timeout_s=case.timeout_s or timeout,
                        allowed_imports=suite.allowed_imports,
                        concurrency=ev.concurrency,
                    )
                )
        return out

    async def expand(self, ev: RunSubmitted) -> None:
        # Even a run cancelled already is expanded: its trials complete at once as "cancelled",
        # so the run still ends with a summary and nobody waits on it forever.
        await self.publish(self.subjects.trial_requested, self.trials_of(ev))
        await self.repo.mark_running(ev.run_id)

    # -- running one trial -------------------------------------------------------------
    async def execute(self, req: TrialRequested) -> None:
        limit = self._limit_for(req)
        metrics.TRIALS_IN_FLIGHT.inc()
        try:
            if limit is None:
                trace = await run_trial(req, cancelled=req.run_id in self.cancelled)
            else:
                async with limit:
                    trace = await run_trial(req, cancelled=req.run_id in self.cancelled)
        finally:
            metrics.TRIALS_IN_FLIGHT.dec()
        metrics.TRIALS.labels(status=trace.status).inc()
        metrics.TRIAL_SECONDS.observe(trace.latency_ms / 1000.0)
        done = TrialCompleted(
            event_id=f"trial.completed:{req.trial_id}",
            run_id=req.run_id,
            trial_id=req.trial_id,
            case=req.case,
            graders=req.graders,
            trial_index=req.trial_index,
            trials_total=req.trials_total,
            agent_version=req.agent_version,
            suite=req.suite,
            trace=trace,
            allowed_imports=req.allowed_imports,
        )
        await self.publish(self.subjects.trial_completed, [done])

    def _limit_for(self, req: TrialRequested) -> asyncio.Semaphore | None:
        if req.concurrency <= 0 or req.concurrency >= self.settings.concurrency:
            return None
        sem = self._run_limits.get(req.run_id)
        if sem is None:
            if len(self._run_limits) > 1000:
                self._run_limits.clear()
            sem = self._run_limits[req.run_id] = asyncio.Semaphore(req.concurrency)
        return sem

    # -- following runs ----------------------------------------------------------------
    async def on_progress(self, events: Sequence[RunProgressed]) -> None:
        latest: dict[str, RunProgressed] = {}
        for ev in events:
            if ev.run_id not in latest or ev.trials_graded > latest[ev.run_id].trials_graded:
                latest[ev.run_id] = ev
        for ev in latest.values():
            await self.repo.set_progress(ev.run_id, ev.trials_graded, ev.passes)

    async def on_completed(self, events: Sequence[RunCompleted]) -> None:
        for ev in events:
            rec = await self.repo.get(ev.run_id)
            summary = ev.summary
            if rec is not None:  # metrics knows the run by its trials; the runner adds what it was asked
                summary = summary.model_copy(
                    update={"agent": rec.agent, "suite": rec.suite, "agent_version": rec.agent_version}
                )
            await self.repo.complete(ev.run_id, summary, ev.occurred_at)
            self._run_limits.pop(ev.run_id, None)

    async def cancel(self, run_id: str) -> RunRecord:
        rec = await self.get(run_id)
        if await self.repo.cancel(run_id):
            self.cancelled.add(run_id)
            await self.publish(
                self.subjects.run_cancelled, [RunCancelled(event_id=f"run.cancelled:{run_id}", run_id=run_id)]
            )
            rec = await self.get(run_id)
        return rec

    def on_cancelled(self, run_id: str) -> None:
        self.cancelled.add(run_id)

    async def get(self, run_id: str) -> RunRecord:
        rec = await self.repo.get(run_id)
        if rec is None:
            raise NotFound(f"no run {run_id!r}")
        return rec

    async def resolve(self, ref: str, suite: str | None = None) -> RunRecord:
        """A run by id, or the newest completed run of an agent version (on ``suite``)."""
        rec = await self.repo.get(ref)
        if rec is not None:
            return rec
        found = await self.repo.list(suite=suite, agent_version=ref, limit=1, completed_only=True)
        if not found:
            where = f" of suite {suite!r}" if suite else ""
            raise NotFound(f"no run with id {ref!r} and no completed run{where} with agent version {ref!r}")
        return found[0]
