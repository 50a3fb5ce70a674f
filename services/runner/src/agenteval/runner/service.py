"""The runner's domain: accept runs, expand them into trials, run trials, track runs."""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import logging
import math
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from agenteval.contracts.errors import InvalidArgument, NotFound, Unavailable
from agenteval.contracts.events import (
    Event,
    ReportKind,
    RunCancelled,
    RunCompleted,
    RunProgressed,
    RunReported,
    RunSubmitted,
    TraceRef,
    TrialCompleted,
    TrialRequested,
    trial_id_for,
)
from agenteval.contracts.subjects import Subjects
from agenteval.contracts.suite import Suite
from agenteval.contracts.summary import RunSummary
from agenteval.contracts.trace import Trace, TrialError
from agenteval.grading.eval_function import SAVED_EVAL
from agenteval.runner import instruments
from agenteval.runner.agents import FUNCTION_AGENTS, check_allowed, function_mocks, resolve_registered
from agenteval.runner.executor import fit_trace, fits_bus, trial_seed, unserializable
from agenteval.runner.repository import RunRecord, RunRepository
from agenteval.runner.settings import RunnerSettings
from agenteval.runner.trials import TrialRunner
from agenteval.runtime import auth
from agenteval.runtime.coalesce import Coalescer
from agenteval.suites import SuiteError, filter_cases, parse_ref, suite_digest, validate_suite

if TYPE_CHECKING:
    from agenteval.runner.webhooks import Webhooks
    from agenteval.runtime.run_windows import RunWindows
    from agenteval.runtime.transcript_bucket import TranscriptBucket

log = logging.getLogger("agenteval.runner")

Publisher = Callable[[str, Sequence[Event]], Awaitable[None]]

StoredSuiteLookup = Callable[[str, str, str], Awaitable["StoredSuite"]]
"""Fetches stored suite NAME at VERSION ("" for the current one) from the suite store: raises
NotFound / InvalidArgument as the store does, Unavailable when it cannot be reached."""

SavedEvalLookup = Callable[[str, int, str], Awaitable[None]]
"""Checks that saved eval NAME exists (at VERSION, 0 for the newest): raises NotFound when it
does not, anything else when the eval generator cannot say."""

EXPAND_CHUNK = 64
"""Trials published at a time when a run is expanded."""
MIN_ID_PREFIX = 6
"""Shortest run id prefix taken for the run it begins ("run-1a" would be most of them)."""
RELEASE_PUBLISH_ATTEMPTS = 10
"""Tries (each with the bus's own retries, ~16 s) to publish trials a window move let out."""


def new_run_id() -> str:
    """Time-ordered, unique: ``run-<ms since epoch in hex>-<random>``."""
    return f"run-{int(time.time() * 1000):011x}-{secrets.token_hex(4)}"


@dataclass
class StoredSuite:
    """A suite version from the suite store."""

    suite: Suite
    digest: str
    version: int


@dataclass
class SubmitRunInput:
    suite: Suite | None = None
    """The suite sent inline; or ``suite_ref`` names a stored one."""
    suite_ref: str = ""
    """NAME or NAME@VERSION of a stored suite."""
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
        self,
        repo: RunRepository,
        settings: RunnerSettings,
        subjects: Subjects,
        publish: Publisher,
        transcripts: TranscriptBucket | None = None,
        windows: RunWindows | None = None,
        trials: TrialRunner | None = None,
    ) -> None:
        self.repo = repo
        self.settings = settings
        self.subjects = subjects
        self.publish = publish
        self.transcripts = transcripts
        """Where traces too large for the bus go whole (None: they are only cut)."""
        self.windows = windows
        """Where limited runs' windows are kept when replicas share the limit."""
        self.webhooks: Webhooks | None = None
        """Told when runs complete or regress (set by the component)."""
        self.trials = trials or TrialRunner(settings)
        """Where agents run: agent worker processes, unless the settings trust them."""
        self.cancelled: set[str] = set()
        self.agent_modules: str | None = settings.agent_modules if settings.agent_modules is not None else "*"
        self.agent_paths: bool = settings.agent_paths or settings.agent_modules is None
        self.registered_agents: dict[str, str] = {}
        """Agents the operator registered by name (``agent:NAME``), always allowed."""
        """Which python: agents callers may run (the component narrows it when it listens beyond loopback)."""
        self._progress_seen: dict[str, tuple[int, float]] = {}
        """Per active run, (trials graded, when that count was first seen) for the watchdog."""
        self._run_limits: dict[str, asyncio.Semaphore] = {}
        self._completed: Coalescer[TrialCompleted] = Coalescer(
            lambda events: publish(subjects.trial_completed, events)
        )
        # One window move at a time from this replica: they all compare-and-set one key.
        self._releases: Coalescer[str] = Coalescer(self._release, serial=True)
        self._windows: dict[str, RunSubmitted] = {}

    # -- submitting --------------------------------------------------------------------
    saved_evals: SavedEvalLookup | None = None
    """Asks the eval generator about eval:NAME graders at submit (None: they are not checked)."""
    stored_suites: StoredSuiteLookup | None = None
    """Fetches stored suites from the suite store (None: only inline suites can run)."""

    async def _suite_of(self, inp: SubmitRunInput, project: str) -> tuple[Suite, str, int]:
        """The suite to run, its version digest (of the whole suite, before any tag filter) and its
        number in the suite store (0 when sent inline)."""
        if inp.suite is not None and inp.suite_ref:
            raise InvalidArgument("give suite_json or suite_ref, not both")
        if inp.suite is not None:
            return inp.suite, suite_digest(inp.suite), 0
        if not inp.suite_ref:
            raise InvalidArgument("give the suite to run: suite_json, or suite_ref naming a stored suite")
        ref = parse_ref(inp.suite_ref, "suite_ref")
        if self.stored_suites is None:
            raise Unavailable("this runner has no suite store to take stored suites from")
        stored = await self.stored_suites(ref.name, ref.version, project)
        return stored.suite, stored.digest, stored.version

    async def submit(self, inp: SubmitRunInput) -> RunRecord:
        if inp.request_id:
            existing = await self.repo.by_request_id(inp.request_id)
            if existing is not None:
                return existing
        project = auth.current().project
        whole, digest, number = await self._suite_of(inp, project)
        try:
            validate_suite(whole)
            suite = filter_cases(whole, inp.tags)
        except SuiteError as exc:
            raise InvalidArgument(str(exc)) from None
        agent = inp.agent or suite.agent or ""
        registered = resolve_registered(agent, self.registered_agents)
        if registered is None:
            check_allowed(agent, self.agent_modules, self.agent_paths)
        runnable = registered or agent  # the run shows agent:NAME; its trials run what it stands for
        await self.trials.check(runnable)  # fail now, with a clear reason, not in every trial
        if runnable.strip().startswith(FUNCTION_AGENTS):
            for spec, label in function_mocks(suite.cases).items():
                check_allowed(spec, self.agent_modules, self.agent_paths, label)
                try:
                    await self.trials.check(spec)
                except InvalidArgument as exc:  # said of an agent: say it of the mock
                    raise InvalidArgument(f"{label}: {str(exc).removeprefix(f'agent {spec!r}: ')}") from None
        if inp.k is not None and not 1 <= inp.k <= 1000:
            raise InvalidArgument(f"k must be between 1 and 1000, got {inp.k}")
        if inp.timeout_s is not None and not (math.isfinite(inp.timeout_s) and 0 < inp.timeout_s <= 3600):
            raise InvalidArgument(
                f"timeout_s must be a number of seconds in (0, 3600], got {inp.timeout_s!r}"
            )
        if inp.concurrency < 0:
            raise InvalidArgument(f"concurrency must be 0 (the default) or more, got {inp.concurrency}")
        for name, value, most in (
            ("agent_version", inp.agent_version, 200),
            ("agent", agent, 500),
            ("request_id", inp.request_id, 200),
        ):
            if len(value) > most:
                raise InvalidArgument(f"{name} is {len(value)} characters long; the most is {most}")
        for i, tag in enumerate(inp.tags):
            if len(tag) > 200:
                raise InvalidArgument(f"tags[{i}] is {len(tag)} characters long; the most is 200")
        size = len(suite.model_dump_json())
        if size > self.settings.max_suite_bytes:
            raise InvalidArgument(
                f"the suite is {size:,} bytes as JSON; a run carries at most {self.settings.max_suite_bytes:,} "
                "(AGENTEVAL_RUNNER_MAX_SUITE_BYTES): split it, or keep large data out of the cases"
            )
        await self._check_saved_evals(suite, project)
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
            suite_version=digest,
            suite_version_number=number,
            tags_json=json.dumps(sorted(set(inp.tags))),
            project=project,
        )
        await self.repo.insert(rec)
        try:
            await self._announce(rec, suite, runnable, inp, seed, total)
        except Exception as exc:  # a run nobody will ever expand must not stay pending
            await self.repo.delete(rec.run_id)
            log.exception("run %s could not be submitted; rolled back", rec.run_id)
            raise Unavailable(
                f"the run could not be submitted (the bus did not take it: {exc}); nothing was kept"
            ) from None
        instruments.RUNS_SUBMITTED.inc()
        return rec

    async def _announce(
        self, rec: RunRecord, suite: Suite, agent: str, inp: SubmitRunInput, seed: int, total: int
    ) -> None:
        event = RunSubmitted(
            event_id=f"run.submitted:{rec.run_id}",
            run_id=rec.run_id,
            project=rec.project,
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
        await self._report(rec, "submitted")

    async def _report(self, rec: RunRecord, kind: ReportKind, reason: str = "") -> None:
        """A step of the run's result stream (WatchRun) that the runner knows first."""
        await self.publish(
            self.subjects.run_reported(rec.project, rec.suite, rec.agent_version, rec.run_id),
            [
                RunReported(
                    event_id=f"run.reported:{rec.run_id}:{kind}",
                    kind=kind,
                    run_id=rec.run_id,
                    project=rec.project,
                    suite=rec.suite,
                    agent_version=rec.agent_version,
                    trials_total=rec.trials_total,
                    trials_graded=rec.trials_graded,
                    passes=rec.passes,
                    reason=reason,
                )
            ],
        )

    async def _check_saved_evals(self, suite: Suite, project: str) -> None:
        """Reject a suite that grades with a saved eval that does not exist, rather than fail the
        grade of every trial. When the eval generator cannot say, the run goes on: its grades will."""
        if self.saved_evals is None:
            return
        cases_of: dict[str, list[str]] = {}
        for case in suite.cases:
            for spec in suite.graders_for(case):
                if SAVED_EVAL.match(spec.name) and case.id not in cases_of.get(spec.name, []):
                    cases_of.setdefault(spec.name, []).append(case.id)
        problems: list[str] = []
        for grader, cases in cases_of.items():
            match = SAVED_EVAL.match(grader)
            assert match is not None
            try:
                await self.saved_evals(match.group(1), int(match.group(2) or 0), project)
            except NotFound as exc:
                shown = ", ".join(repr(c) for c in cases[:5])
                more = f" and {len(cases) - 5} more" if len(cases) > 5 else ""
                problems.append(
                    f"case{'s' if len(cases) > 1 else ''} {shown}{more}: grader {grader!r}: {exc}"
                )
            except Exception as exc:
                log.warning(
                    "could not check the suite's saved evals; a missing one will fail its grades",
                    extra={"suite": suite.name, "grader": grader, "error": f"{type(exc).__name__}: {exc}"},
                )
                return  # the next ones would wait on the same unreachable service
        if problems:
            raise InvalidArgument("\n".join(problems))

    # -- expanding a run into trials ---------------------------------------------------
    def trials_of(
        self, ev: RunSubmitted, start: int = 0, stop: int | None = None
    ) -> Iterator[TrialRequested]:
        """The run's trials in their fixed order (case by case), from position ``start`` to ``stop``."""
        suite = ev.suite
        timeout = ev.timeout_s or suite.timeout_s or self.settings.default_timeout_s
        stop = ev.trials_total if stop is None else stop
        first = 0  # position of the case's first trial
        for case in suite.cases:
            n = suite.trials_for(case, ev.k)
            if first >= stop:
                return
            if first + n <= start:
                first += n
                continue
            graders = suite.graders_for(case)
            for i in range(max(0, start - first), min(n, stop - first)):
                tid = trial_id_for(ev.run_id, case.id, i)
                yield (
                    TrialRequested(
                        event_id=f"trial.requested:{tid}",
                        run_id=ev.run_id,
                        project=ev.project,
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
            first += n

    async def expand(self, ev: RunSubmitted) -> None:
        # Even a run cancelled already is expanded: its trials complete at once as "cancelled",
        # so the run still ends with a summary and nobody waits on it forever.
        # Built and published in chunks, so the first trials run while the rest are prepared.
        trials = self.trials_of(ev)
        if self._windowed(ev.concurrency):  # the rest follow as trials finish (release)
            first = min(ev.concurrency, ev.trials_total)
            assert self.windows is not None
            await self.windows.open(ev.run_id, first)
            trials = self.trials_of(ev, 0, first)
        while chunk := list(itertools.islice(trials, EXPAND_CHUNK)):
            await self.publish(self.subjects.trial_requested, chunk)
        await self.repo.mark_running(ev.run_id)

    # -- running one trial -------------------------------------------------------------
    async def execute(self, req: TrialRequested) -> None:
        limit = self._limit_for(req)
        instruments.TRIALS_IN_FLIGHT.inc()
        try:
            if limit is None:
                trace = await self.trials.run(req, cancelled=req.run_id in self.cancelled)
            else:
                async with limit:
                    trace = await self.trials.run(req, cancelled=req.run_id in self.cancelled)
        finally:
            instruments.TRIALS_IN_FLIGHT.dec()
        # Let the trials that wait for the slot just freed start before this one is published.
        await asyncio.sleep(0)
        bad = trace.problem()
        if bad is not None:  # stored and sent as it is, it would be refused downstream
            trace = Trace(
                input=trace.input,
                status="error",
                latency_ms=trace.latency_ms if math.isfinite(trace.latency_ms) else 0.0,
                error=TrialError(
                    code="bad_agent_output", message=f"the agent recorded an invalid value: {bad}"
                ),
                metadata=trace.metadata,
            )
        instruments.TRIALS.labels(status=trace.status).inc()
        instruments.TRIAL_SECONDS.observe(trace.latency_ms / 1000.0)
        trace, full = await self._fit(req.trial_id, trace)
        done = completed_event(req, trace, full)
        if self._windowed(req.concurrency):
            # The run's next trial goes out while this one is published (a failure of either
            # redelivers this trial, which lets out again what the window has not yet counted;
            # at worst one more trial is released than finished).
            await asyncio.gather(self._completed.add(done), self._releases.add(req.run_id))
        else:
            await self._completed.add(done)

    def _windowed(self, concurrency: int) -> bool:
        return self.settings.shared_limit and concurrency > 0 and self.windows is not None

    async def _release(self, run_ids: list[str]) -> None:
        """Finished trials of windowed runs: publish as many of each run's next trials."""
        assert self.windows is not None
        for run_id, n in Counter(run_ids).items():
            ev = await self._window_of(run_id)
            if ev is None:
                continue
            await self.windows.release(
                run_id, n, ev.trials_total, functools.partial(self._publish_released, ev)
            )

    async def _publish_released(self, ev: RunSubmitted, start: int, stop: int) -> None:
        """The run's trials at positions ``start`` to ``stop``, let out by the window: they go
        out before it counts them (its counter moves only once they are on the stream), so
        none is lost to a runner that dies between the two. Their ids dedupe repeats."""
        run_id, trials = ev.run_id, list(self.trials_of(ev, start, stop))
        for attempt in range(RELEASE_PUBLISH_ATTEMPTS):
            try:
                await self.publish(self.subjects.trial_requested, trials)
                return
            except Exception as exc:
                if attempt == RELEASE_PUBLISH_ATTEMPTS - 1:
                    raise
                log.warning(
                    "run %s: publishing %d released trials failed (%s); again", run_id, len(trials), exc
                )
                await asyncio.sleep(2.0)

    async def _window_of(self, run_id: str) -> RunSubmitted | None:
        """The run as submitted, rebuilt from the runner's table (kept while the run goes on)."""
        ev = self._windows.get(run_id)
        if ev is None:
            rec = await self.repo.get(run_id)
            if rec is None:
                return None
            if len(self._windows) > 256:
                self._windows.clear()
            ev = self._windows[run_id] = RunSubmitted(
                event_id=f"run.submitted:{run_id}",
                run_id=run_id,
                project=rec.project,
                suite=Suite.model_validate_json(rec.suite_json),
                agent=rec.agent,
                agent_version=rec.agent_version,
                k=rec.k,
                seed=rec.seed,
                timeout_s=rec.timeout_s,
                concurrency=rec.concurrency,
                trials_total=rec.trials_total,
            )
        return ev

    async def _fit(self, trial_id: str, trace: Trace) -> tuple[Trace, TraceRef | None]:
        """The trace to put in trial.completed and, when it is too large for the bus, the
        reference to the whole of it in the transcripts bucket (the event carries a cut copy).
        Should the bucket fail, the cut copy travels alone: the trial is never lost."""
        try:
            fits = fits_bus(trace)
        except Exception as exc:  # an agent's value JSON cannot hold: this trial fails, not its batch
            trace = unserializable(trace, exc)
            fits = fits_bus(trace)
        if fits:
            return trace, None
        ref = None
        if self.transcripts is not None:
            try:
                ref = await self.transcripts.put(trial_id, trace)
            except Exception as exc:
                log.warning(
                    "could not store a full trace; its trial.completed carries only a cut copy",
                    extra={"trial_id": trial_id, "error": f"{type(exc).__name__}: {exc}"},
                )
        instruments.OVERSIZED_TRACES.labels(sent="cut_only" if ref is None else "by_reference").inc()
        return fit_trace(trace), ref

    def _limit_for(self, req: TrialRequested) -> asyncio.Semaphore | None:
        if req.concurrency <= 0 or req.concurrency >= self.settings.concurrency:
            return None
        sem = self._run_limits.get(req.run_id)
        if sem is None:
            if len(self._run_limits) > 1000:
                self._run_limits.clear()
            sem = self._run_limits[req.run_id] = asyncio.Semaphore(req.concurrency)
        return sem

    async def close(self) -> None:
        """Stop the agent workers (trials still running in them are handed back)."""
        await self.trials.close()

    # -- following runs ----------------------------------------------------------------
    async def on_progress(self, events: Sequence[RunProgressed]) -> None:
        latest: dict[str, RunProgressed] = {}
        for ev in events:
            if ev.run_id not in latest or ev.trials_graded > latest[ev.run_id].trials_graded:
                latest[ev.run_id] = ev
        for ev in latest.values():
            await self.repo.set_progress(ev.run_id, ev.trials_graded, ev.passes)

    async def on_completed(self, events: Sequence[RunCompleted]) -> list[RunSummary]:
        """Record completed runs; their summaries as stored (with what the runner was asked)."""
        out: list[RunSummary] = []
        for ev in events:
            rec = await self.repo.get(ev.run_id)
            summary = ev.summary
            if rec is not None:  # metrics knows the run by its trials; the runner adds what it was asked
                summary = summary.model_copy(
                    update={"agent": rec.agent, "suite": rec.suite, "agent_version": rec.agent_version}
                )
            await self.repo.complete(ev.run_id, summary, ev.occurred_at)
            self._run_limits.pop(ev.run_id, None)
            self._windows.pop(ev.run_id, None)
            out.append(summary)
        return out

    async def tell_webhooks(self, summary: RunSummary) -> None:
        """Webhooks: the run completed; and, when it fell back from the suite's previous agent
        version by the comparison's statistics, it regressed."""
        if self.webhooks is None or not self.webhooks.targets:
            return
        from agenteval.runner.compare import changed_cases, compare_summaries
        from agenteval.runner.webhooks import completed_payload

        await self.webhooks.notify("run.completed", summary.run_id, completed_payload(summary))
        this = await self.repo.get(summary.run_id)
        if this is None:
            return
        earlier = await self.repo.list(suite=this.suite, limit=50, completed_only=True)
        baseline = next(
            (
                r
                for r in earlier
                if r.agent_version != this.agent_version
                and r.summary is not None
                and r.created_at <= this.created_at
            ),
            None,
        )
        if baseline is None or baseline.summary is None:
            return
        result = compare_summaries(
            baseline.summary.model_copy(
                update={"run_id": baseline.run_id, "agent_version": baseline.agent_version}
            ),
            summary,
            changed=changed_cases(baseline.suite_json, this.suite_json),
        )
        if not result.passed:
            await self.webhooks.notify(
                "regression.detected",
                summary.run_id,
                {
                    "baseline_run_id": baseline.run_id,
                    "candidate_run_id": summary.run_id,
                    "comparison": result.document,
                },
            )

    async def cancel(self, run_id: str) -> RunRecord:
        rec = await self.get(run_id)
        run_id = rec.run_id  # a prefix names the run it begins
        if await self.repo.cancel(run_id):
            self.cancelled.add(run_id)
            await self.publish(
                self.subjects.run_cancelled, [RunCancelled(event_id=f"run.cancelled:{run_id}", run_id=run_id)]
            )
            rec = await self.get(run_id)
            await self._report(rec, "cancelled", "cancelled by a client")
        return rec

    # -- failures are data -------------------------------------------------------------
    async def fail_trial(self, payload: bytes, reason: str) -> None:
        """A trial.requested that could not be run after the delivery limit: an error trial."""
        req = TrialRequested.model_validate_json(payload)
        trace = Trace(
            input=req.case.input,
            status="error",
            error=TrialError(code="runner_failed", message=f"the runner could not run this trial: {reason}"),
            metadata={"agent": req.agent, "agent_version": req.agent_version, "seed": req.seed},
        )
        await self.publish(self.subjects.trial_completed, [completed_event(req, trace, None)])
        if self._windowed(req.concurrency):  # it ended, as an error: the run's next trial may start
            await self._releases.add(req.run_id)

    async def fail_run(self, run_id: str, reason: str) -> None:
        """End a run as failed (it cannot go on): recorded, and reported to its subscribers."""
        if await self.repo.fail(run_id, reason, datetime.now(UTC)):
            self._run_limits.pop(run_id, None)
            self._windows.pop(run_id, None)
            log.error("run failed: %s", reason, extra={"run_id": run_id})
        rec = await self.repo.get(run_id)
        if rec is not None and rec.status == "failed":
            await self._report(rec, "failed", rec.error or reason)

    async def watchdog(self, now: float) -> list[str]:
        """End every run in which nothing was graded for ``settings.stall_s``; the ids ended.

        Each replica runs it; ending a run is conditional on it still going on, so two
        replicas cannot both end it. A runner that just started gives every run a full
        ``stall_s`` from its first look."""
        ended = []
        active = await self.repo.active()
        seen = {run_id for run_id, _ in active}
        for run_id in [r for r in self._progress_seen if r not in seen]:
            del self._progress_seen[run_id]
        for run_id, graded in active:
            last = self._progress_seen.get(run_id)
            if last is None or last[0] != graded:
                self._progress_seen[run_id] = (graded, now)
                continue
            if now - last[1] >= self.settings.stall_s:
                await self.fail_run(
                    run_id,
                    f"no trial was graded for {self.settings.stall_s:g} s ({graded} graded so far): "
                    "the run stalled (AGENTEVAL_RUNNER_STALL_S)",
                )
                await self.cancel_remaining(run_id)
                ended.append(run_id)
        return ended

    async def cancel_remaining(self, run_id: str) -> None:
        """Trials of an ended run that have not started are skipped, on every replica."""
        self.cancelled.add(run_id)
        await self.publish(
            self.subjects.run_cancelled, [RunCancelled(event_id=f"run.cancelled:{run_id}", run_id=run_id)]
        )

    async def fail_submitted(self, payload: bytes, reason: str) -> None:
        """A run.submitted that could not be expanded after the delivery limit."""
        ev = RunSubmitted.model_validate_json(payload)
        await self.fail_run(ev.run_id, f"its trials could not be created: {reason}")

    def on_cancelled(self, run_id: str) -> None:
        self.cancelled.add(run_id)

    async def get(self, run_id: str) -> RunRecord:
        """A run by its id or an unambiguous prefix of it (at least MIN_ID_PREFIX characters)."""
        rec = await self._by_id_or_prefix(run_id)
        if rec is None:
            raise NotFound(f"no run {run_id!r}")
        return rec

    async def _by_id_or_prefix(self, ref: str) -> RunRecord | None:
        """The run ``ref`` names among those the caller may see (another project's run looks
        missing)."""
        caller = auth.current()
        rec = await self.repo.get(ref)
        if rec is not None and not caller.sees(rec.project):
            rec = None
        if rec is not None or len(ref) < MIN_ID_PREFIX:
            return rec
        ids = await self.repo.ids_starting(ref, projects=caller.projects)
        if len(ids) > 1:
            shown = ", ".join(ids[:5]) + (", ..." if len(ids) > 5 else "")
            raise InvalidArgument(
                f"run id prefix {ref!r} is ambiguous: it begins {shown}; give more of the id"
            )
        return await self.repo.get(ids[0]) if ids else None

    async def resolve(self, ref: str, suite: str | None = None) -> RunRecord:
        """A run by id (or an unambiguous prefix), or the newest completed run of an agent
        version (on ``suite``)."""
        rec = await self._by_id_or_prefix(ref)
        if rec is not None:
            return rec
        found = await self.repo.list(
            suite=suite, agent_version=ref, limit=1, completed_only=True, projects=auth.current().visible
        )
        if not found:
            where = f" of suite {suite!r}" if suite else ""
            raise NotFound(f"no run with id {ref!r} and no completed run{where} with agent version {ref!r}")
        return found[0]


def completed_event(req: TrialRequested, trace: Trace, full: TraceRef | None) -> TrialCompleted:
    """The trial.completed of a trial that ran (or could not run)."""
    return TrialCompleted(
        event_id=f"trial.completed:{req.trial_id}",
        run_id=req.run_id,
        project=req.project,
        trial_id=req.trial_id,
        case=req.case,
        graders=req.graders,
        trial_index=req.trial_index,
        trials_total=req.trials_total,
        agent_version=req.agent_version,
        suite=req.suite,
        agent=req.agent,
        trace=trace,
        allowed_imports=req.allowed_imports,
        full_trace=full,
    )
