"""Eval functions and their generation."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Sequence

from agenteval.contracts import pb
from agenteval.contracts.evals import (
    EvalInfo,
    GenerationEvent,
    GenerationJob,
    GenerationJobStatus,
    GenerationRequest,
)
from agenteval.contracts.records import (
    EvalCodeReport,
    LabeledTrace,
)
from agenteval.sdk._client._base import RECONNECT_S, _Base
from agenteval.v1 import (
    eval_generator_pb2,
    grader_pb2,
)


class _Evals(_Base):
    # -- eval functions ------------------------------------------------------------------
    async def list_evals(self, name: str | None = None) -> list[EvalInfo]:
        """Saved evals (every version, newest first), optionally of one name."""
        request = eval_generator_pb2.ListEvalsRequest(name=name or "")
        return [pb.eval_from_pb(e) for e in (await self._call(self._stubs.evals.ListEvals(request))).evals]

    async def get_eval(self, name: str, version: int | None = None) -> EvalInfo:
        """One saved eval: ``version`` (a candidate too), or the current one (what ``eval:NAME``
        resolves to: the version promoted last, never a candidate)."""
        request = eval_generator_pb2.GetEvalRequest(name=name, version=version or 0)
        return pb.eval_from_pb((await self._call(self._stubs.evals.GetEval(request))).eval)

    async def promote_eval(self, name: str, version: int) -> EvalInfo:
        """Make a saved version (a candidate, or an older version back) what ``eval:NAME`` uses."""
        request = eval_generator_pb2.PromoteEvalRequest(name=name, version=version)
        return pb.eval_from_pb((await self._call(self._stubs.evals.PromoteEval(request))).eval)

    # -- generating eval functions (jobs) ------------------------------------------------
    async def generate_eval(
        self, request: GenerationRequest, *, on_event: Callable[[GenerationEvent], None] | None = None
    ) -> GenerationJob:
        """Generate an eval function in one call: start a job, follow it (``on_event`` sees each
        progress event) and return the job as it ended: ``outcome`` and ``eval_version`` when
        it saved a function, ``error`` when it failed. The job runs on the server whatever
        happens to this call (it can be watched again with :meth:`watch_generation_job`)."""
        job = await self.start_generation_job(request)
        async for event, state in self.watch_generation_job(job.job_id):
            if on_event is not None:
                on_event(event)
            job = state
        return job

    async def start_generation_job(self, request: GenerationRequest) -> GenerationJob:
        """Queue a generation job and return at once: it runs in the eval generator whether
        anyone watches or not. Bad arguments and unusable datasets are refused here."""
        message = eval_generator_pb2.StartGenerationJobRequest(request=pb.generation_request_to_pb(request))
        resp = await self._call(self._stubs.evals.StartGenerationJob(message))
        return pb.generation_job_from_pb(resp.job)

    async def watch_generation_job(
        self, job_id: str, after: int = 0, *, reconnect_s: float = RECONNECT_S
    ) -> AsyncIterator[tuple[GenerationEvent, GenerationJob]]:
        """The job's events after sequence ``after`` (all with 0), then live ones until it ends,
        each with the job as it stands after it (its final state with the last one).

        A dropped connection or a restarting server (for up to ``reconnect_s``) is followed by
        a new watch that resumes after the last event received: nothing missed, nothing twice."""
        request = eval_generator_pb2.WatchGenerationJobRequest(job_id=job_id, after=after)
        stream = self._resuming(
            self._stubs.evals.WatchGenerationJob, request, reconnect_s, lambda m: int(m.event.sequence)
        )
        async for msg in stream:
            yield pb.generation_event_from_pb(msg.event), pb.generation_job_from_pb(msg.job)

    async def get_generation_job(self, job_id: str) -> GenerationJob:
        """One generation job."""
        request = eval_generator_pb2.GetGenerationJobRequest(job_id=job_id)
        return pb.generation_job_from_pb((await self._call(self._stubs.evals.GetGenerationJob(request))).job)

    async def list_generation_jobs(
        self, name: str | None = None, status: GenerationJobStatus | None = None, limit: int = 0
    ) -> list[GenerationJob]:
        """Generation jobs, newest first: of one eval name, in one status, at most ``limit`` (0: 100)."""
        request = eval_generator_pb2.ListGenerationJobsRequest(
            name=name or "",
            status=pb.JOB_STATUS_TO_PB[status]
            if status
            else eval_generator_pb2.GENERATION_JOB_STATUS_UNSPECIFIED,
            limit=limit,
        )
        resp = await self._call(self._stubs.evals.ListGenerationJobs(request))
        return [pb.generation_job_from_pb(j) for j in resp.jobs]

    async def cancel_generation_job(self, job_id: str) -> GenerationJob:
        """Cancel a queued or running job (nothing of it is saved); Conflict once it has ended."""
        request = eval_generator_pb2.CancelGenerationJobRequest(job_id=job_id)
        return pb.generation_job_from_pb(
            (await self._call(self._stubs.evals.CancelGenerationJob(request))).job
        )

    async def test_eval_code(
        self,
        code: str,
        traces: Iterable[LabeledTrace],
        *,
        allowed_imports: Sequence[str] = (),
        timeout_s: float | None = None,
    ) -> EvalCodeReport:
        """Run an eval function (``def eval_NAME(trace, ctx=None) -> (score, explanation)``) in the
        sandbox on labeled traces: its accuracy and the traces it got wrong."""
        request = grader_pb2.TestEvalCodeRequest(
            code=code,
            traces=[pb.labeled_trace_to_pb(t) for t in traces],
            allowed_imports=list(allowed_imports),
            timeout_s=timeout_s or 0.0,
        )
        return pb.eval_report_from_pb(await self._call(self._stubs.grader.TestEvalCode(request)))
