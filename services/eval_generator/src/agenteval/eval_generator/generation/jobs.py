"""Generation as a job: queued, running, done, failed or cancelled, kept in the database.

A job is queued by :meth:`JobManager.submit` and run by whichever eval-generator instance
claims it first (this one at once when it has room). Its events are stored with sequence
numbers, so a client that went away resumes watching where it left off; the job does not
depend on any client. An instance that stops gives its running jobs back to the queue, and
on start-up (and every poll) an instance takes queued jobs and jobs whose runner stopped
renewing its lease (a crash); such a job runs again from the start, its usage added up.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from agenteval.contracts.errors import AgentEvalError, AlreadyExists, Conflict, InvalidArgument, NotFound
from agenteval.eval_generator.repository import JobRepository, LostJob
from agenteval.eval_generator.repository._jobs import CANCELLED, DONE, ENDED, FAILED, QUEUED
from agenteval.eval_generator.service import EvalGenerator, GenerationRequest, Progress, Usage
from agenteval.runtime import auth

log = logging.getLogger("agenteval.eval_generator.generation.jobs")

_ERROR_CODES: dict[str, str] = {
    "NotFound": "NOT_FOUND",
    "InvalidArgument": "INVALID_ARGUMENT",
    "Conflict": "FAILED_PRECONDITION",
    "Unavailable": "UNAVAILABLE",
    "ModelUnusable": "UNAVAILABLE",
    "PermissionDenied": "PERMISSION_DENIED",
}


def error_code(exc: BaseException) -> str:
    for cls in type(exc).__mro__:
        if cls.__name__ in _ERROR_CODES:
            return _ERROR_CODES[cls.__name__]
    return "INTERNAL"


@dataclass
class JobSettings:
    max_running: int = 2
    """Jobs this instance runs at once; more wait queued."""
    poll_interval_s: float = 1.0
    """How often it renews its leases, looks for queued jobs and for cancel requests."""
    lease_s: float = 30.0
    """A running job whose lease is older than this belongs to a dead instance and runs again."""


class _Run:
    """One run of one job on this instance: its events and usage go to the database."""

    def __init__(self, manager: JobManager, job: dict[str, Any]) -> None:
        self.manager = manager
        self.job_id: str = job["job_id"]
        self.base = {k: job[k] or 0 for k in ("input_tokens", "output_tokens", "attempts", "steps")}
        self.usage = Usage()

    def usage_fields(self) -> dict[str, Any]:
        """The job's totals: earlier runs plus this one."""
        from agenteval.stats import cost_usd, known_model

        u = self.usage
        fields: dict[str, Any] = {
            "input_tokens": self.base["input_tokens"] + u.input_tokens,
            "output_tokens": self.base["output_tokens"] + u.output_tokens,
            "attempts": self.base["attempts"] + u.attempts,
            "steps": self.base["steps"] + u.steps,
        }
        if u.model:
            fields["llm_model"] = u.model
            fields["price_known"] = known_model(u.model)
            fields["cost_usd"] = cost_usd(u.model, fields["input_tokens"], fields["output_tokens"])
        if u.stop_reason:
            fields["stop_reason"] = u.stop_reason
        return fields

    async def emit(self, p: Progress) -> None:
        event = {"type": p.type, "message": p.message, "accuracy": p.accuracy, "step": p.step}
        await self.manager.repo.append_event(self.job_id, event, self.usage_fields())
        self.manager.notify(self.job_id)

    async def on_usage(self, usage: Usage) -> None:
        self.usage = Usage(
            model=usage.model,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            attempts=usage.attempts,
            steps=usage.steps,
            stop_reason=usage.stop_reason or self.usage.stop_reason,
        )


class JobManager:
    """Runs this instance's share of the generation jobs and answers for all of them."""

    def __init__(
        self,
        repo: JobRepository,
        generator: Callable[[], EvalGenerator],
        settings: JobSettings | None = None,
    ) -> None:
        self.repo = repo
        self.generator = generator
        self.settings = settings or JobSettings()
        self.owner = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._runs: dict[str, _Run] = {}
        self._changed: dict[str, asyncio.Event] = {}
        self._wake = asyncio.Event()
        self._loop: asyncio.Task[None] | None = None
        self._stopping = False

    # -- lifecycle

    async def start(self) -> None:
        """Take queued and abandoned jobs now and from now on."""
        if self._loop is None:
            self._loop = asyncio.create_task(self._poll(), name="evalgen-jobs")

    async def stop(self) -> None:
        """Stop polling and hand the jobs running here back to the queue (they run again later)."""
        self._stopping = True
        if self._loop is not None:
            self._loop.cancel()
            await asyncio.gather(self._loop, return_exceptions=True)
            self._loop = None
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # -- requests

    async def submit(self, req: GenerationRequest) -> dict[str, Any]:
        """Check the request (InvalidArgument, NotFound: nothing queued) and queue a job for it."""
        if self._stopping:
            raise Conflict("the eval generator is stopping; start the job on another instance")
        caller = auth.current()
        owner = await self.generator().repo.project_of(req.name)
        if owner is not None and not caller.sees(owner):
            raise AlreadyExists(f"the eval name {req.name!r} is taken (names are unique on this server)")
        await self.generator().check(req)
        job = await self.repo.create(
            uuid.uuid4().hex[:12], req.name, req.dataset, req.model_dump_json(), caller.project
        )
        self._wake.set()
        return job

    async def get(self, job_id: str) -> dict[str, Any]:
        job = await self.repo.get(job_id) if job_id else None
        if job is not None and not auth.current().sees(job.get("project")):
            job = None  # another project's job looks missing
        if job is None:
            raise NotFound(f"no generation job {job_id!r}")
        return job

    async def cancel(self, job_id: str) -> dict[str, Any]:
        job = await self.get(job_id)
        if job["status"] in ENDED:
            raise Conflict(f"generation job {job_id} has already ended ({job['status']})")
        job = await self.repo.request_cancel(job_id) or job
        task = self._tasks.get(job_id)
        if task is not None:  # ours: stop it now rather than at the next poll
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            job = await self.get(job_id)
        self.notify(job_id)
        return job

    async def watch(
        self, job_id: str, after: int = 0
    ) -> AsyncIterator[tuple[dict[str, Any], dict[str, Any]]]:
        """(event, job) from sequence ``after`` on, live, until the job has ended and all is sent."""
        if after < 0:
            raise InvalidArgument(f"after must be 0 or more, got {after}")
        await self.get(job_id)
        while True:
            changed = self._changed.setdefault(job_id, asyncio.Event())
            changed.clear()
            events = await self.repo.events(job_id, after)
            job = await self.get(job_id)
            for event in events:
                after = event["seq"]
                yield event, job
            if events:
                continue
            if job["status"] in ENDED and after >= job["last_seq"]:
                return
            # Another instance may be the one writing: poll as well as wait for our own events.
            try:
                await asyncio.wait_for(changed.wait(), self.settings.poll_interval_s)
            except TimeoutError:
                pass

    def notify(self, job_id: str) -> None:
        event = self._changed.get(job_id)
        if event is not None:
            event.set()

    # -- running

    async def _poll(self) -> None:
        while True:
            try:
                await self._tick()
            except asyncio.CancelledError:
                raise
            except Exception:  # a database hiccup must not end the polling for good
                log.exception("generation job poll failed")
            try:
                await asyncio.wait_for(self._wake.wait(), self.settings.poll_interval_s)
            except TimeoutError:
                pass
            self._wake.clear()

    async def _tick(self) -> None:
        to_stop = await self.repo.heartbeat(self.owner, list(self._tasks))
        for job_id in to_stop:  # cancel asked for elsewhere, or the job is no longer ours
            task = self._tasks.get(job_id)
            if task is not None:
                task.cancel()
        while len(self._tasks) < self.settings.max_running and not self._stopping:
            job = await self.repo.claim_next(self.owner, self.settings.lease_s, set(self._tasks))
            if job is None:
                return
            task = asyncio.create_task(self._run(job), name=f"evalgen-job-{job['job_id']}")
            self._tasks[job["job_id"]] = task
            task.add_done_callback(self._forget(job["job_id"]))

    def _forget(self, job_id: str) -> Callable[[asyncio.Task[None]], None]:
        def done(_: asyncio.Task[None]) -> None:
            self._tasks.pop(job_id, None)

        return done

    async def _run(self, job: dict[str, Any]) -> None:
        # Everything the job asks of other services, it asks in its own project.
        project = job.get("project") or "default"
        auth.acting_as(auth.Caller("job", project, frozenset({project}), chosen=True))
        run = _Run(self, job)
        job_id = job["job_id"]
        try:
            req = GenerationRequest.model_validate_json(job["request_json"])
            if job["runs"] > 1:
                await run.emit(
                    Progress("warning", f"run {job['runs']}: an earlier run was interrupted; starting over")
                )
            result = await self.generator().generate(req, run.emit, run.on_usage)
        except asyncio.CancelledError:
            await self._interrupted(run)
            return
        except LostJob:
            return
        except Exception as exc:
            if self._stopping:  # e.g. the grader went away with this process: not the job's fault
                await self._interrupted(run)
                return
            if not isinstance(exc, AgentEvalError):
                log.exception("generation job %s failed", job_id)
            await self._end(run, FAILED, "failed", f"{exc}" or type(exc).__name__, error=exc)
            return
        fields: dict[str, Any] = {
            "outcome": result.outcome,
            "train_accuracy": result.train_accuracy,
            "holdout_accuracy": result.holdout_accuracy,
        }
        if result.kept is not None:
            fields["eval_version"] = result.kept["version"]
        save = None
        if result.save is not None:
            save = {**result.save, **run.usage_fields()}
        await self._end(
            run, DONE, "kept" if result.kept is not None else "saved", result.message, fields, save
        )

    async def _interrupted(self, run: _Run) -> None:
        job = await self.repo.get(run.job_id)
        if job is None:
            return
        if self._stopping and not job["cancel_requested"]:
            await self.repo.release(
                run.job_id,
                self.owner,
                "the eval generator stopped during this run: the job is queued again and runs from "
                "the start when an eval generator is up",
                run.usage_fields(),
            )
        else:
            await self._end(run, CANCELLED, "cancelled", "cancelled while it ran")
        self.notify(run.job_id)

    async def _end(
        self,
        run: _Run,
        status: str,
        event_type: str,
        message: str,
        fields: dict[str, Any] | None = None,
        save: dict[str, Any] | None = None,
        error: BaseException | None = None,
    ) -> None:
        job_fields = {**(fields or {}), **run.usage_fields()}
        if status in (FAILED, CANCELLED):
            job_fields["error"] = message
            job_fields["error_code"] = error_code(error) if error is not None else "CANCELLED"
        event = {"type": event_type, "message": message}
        if fields and fields.get("holdout_accuracy") is not None:
            event["accuracy"] = fields["holdout_accuracy"]
        # One transaction, shielded: a cancel (or a stop) arriving now waits for it to commit.
        ending = asyncio.ensure_future(
            self.repo.finish(
                run.job_id, self.owner, status=status, event=event, job_fields=job_fields, save_eval=save
            )
        )
        try:
            try:
                await asyncio.shield(ending)
            except asyncio.CancelledError:
                await ending
                raise
        except LostJob:
            log.warning("generation job %s was taken over before it could end here", run.job_id)
        finally:
            self.notify(run.job_id)


__all__ = ["QUEUED", "JobManager", "JobSettings", "error_code"]
