"""The typed client: agenteval's gRPC services, answered in contract models.

Every method returns pydantic models of ``agenteval.contracts`` (``RunInfo``, ``TrialRecord``,
``TraceInfo``, ``EvalInfo``, ...) and raises the contract errors (``NotFound``,
``InvalidArgument``, ``Conflict``, ``Unavailable``, ``PermissionDenied``) for the status codes
the servers map them to, so a script never handles protobuf messages or gRPC status codes.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc

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
    ImportReport,
    LabeledTrace,
    RunInfo,
    TraceInfo,
    TrialRecord,
)
from agenteval.contracts.suite import Suite
from agenteval.contracts.summary import RunSummary
from agenteval.contracts.trace import TrialStatus
from agenteval.contracts.transport import ERRORS_BY_CODE, channel
from agenteval.v1 import (
    common_pb2,
    eval_generator_pb2,
    eval_generator_pb2_grpc,
    grader_pb2,
    grader_pb2_grpc,
    metrics_pb2_grpc,
    runner_pb2,
    runner_pb2_grpc,
    suites_pb2,
    suites_pb2_grpc,
    transcripts_pb2,
    transcripts_pb2_grpc,
)

T = TypeVar("T")

IMPORT_CHUNK_BYTES = 1024 * 1024
"""Size of the chunks a trace file is streamed in."""


@dataclass(frozen=True)
class _Stubs:
    """The raw gRPC stubs: internal, for agenteval's own CLI where no typed method exists yet
    (comparisons). Not part of the public API; they may change at any time."""

    runs: runner_pb2_grpc.RunServiceStub
    transcripts: transcripts_pb2_grpc.TranscriptServiceStub
    grader: grader_pb2_grpc.GraderServiceStub
    metrics: metrics_pb2_grpc.MetricsServiceStub
    evals: eval_generator_pb2_grpc.EvalGeneratorServiceStub
    suites: suites_pb2_grpc.SuiteServiceStub


RECONNECT_S = 120.0
"""How long a watch keeps trying to reconnect to a server that went away."""
RECONNECT_PAUSE_S = 0.5


def _transient(exc: grpc.aio.AioRpcError) -> bool:
    """A connection that broke or a server that is restarting, not an answer."""
    if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED):
        return True
    details = (exc.details() or "").lower()
    return exc.code() in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL) and (
        "stream removed" in details or "rst_stream" in details or "goaway" in details
    )


def _contract_error(exc: grpc.aio.AioRpcError, target: str) -> Exception:
    """The contract error a status code stands for; the gRPC error itself for other codes."""
    cls = ERRORS_BY_CODE.get(exc.code())
    if cls is None:
        return exc
    details = exc.details() or exc.code().name
    if exc.code() == grpc.StatusCode.UNAVAILABLE:
        details = f"agenteval at {target} is unavailable: {details}"
    return cls(details)


class Client:
    """A client of a running agenteval (``agent-eval up``, or a distributed deployment).

    One address serves every service in embedded mode; in a distributed deployment each
    service's address comes from ``AGENTEVAL_<SERVICE>_ADDR`` when set (RUNNER, TRANSCRIPTS,
    GRADER, METRICS, EVALGEN, SUITES). Use it as an async context manager::

        async with Client("127.0.0.1:50051") as client:
            run = await client.submit(suite, agent="python:my_agent:run", k=5)
            run = await client.wait(run.run_id)
    """

    def __init__(self, target: str) -> None:
        self.target = target
        self._channels: dict[str, grpc.aio.Channel] = {}
        self._stubs = _Stubs(
            runs=runner_pb2_grpc.RunServiceStub(self._channel("RUNNER")),
            transcripts=transcripts_pb2_grpc.TranscriptServiceStub(self._channel("TRANSCRIPTS")),
            grader=grader_pb2_grpc.GraderServiceStub(self._channel("GRADER")),
            metrics=metrics_pb2_grpc.MetricsServiceStub(self._channel("METRICS")),
            evals=eval_generator_pb2_grpc.EvalGeneratorServiceStub(self._channel("EVALGEN")),
            suites=suites_pb2_grpc.SuiteServiceStub(self._channel("SUITES")),
        )

    def _channel(self, service: str) -> grpc.aio.Channel:
        target = os.environ.get(f"AGENTEVAL_{service}_ADDR") or self.target
        if target not in self._channels:
            self._channels[target] = channel(target)
        return self._channels[target]

    async def _call(self, call: Awaitable[T]) -> T:
        try:
            return await call
        except grpc.aio.AioRpcError as exc:
            raise _contract_error(exc, self.target) from None

    async def close(self) -> None:
        """Close the connections."""
        for ch in self._channels.values():
            await ch.close()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- runs ------------------------------------------------------------------------------
    async def submit(
        self,
        suite: Suite,
        agent: str = "",
        k: int | None = None,
        *,
        agent_version: str = "",
        concurrency: int = 0,
        seed: int = 0,
        timeout_s: float | None = None,
        tags: Sequence[str] = (),
        request_id: str = "",
    ) -> RunInfo:
        """Submit ``suite`` to run against ``agent`` (empty: the suite's own), ``k`` trials per case
        (None: each case's or the suite's own). Returns at once; :meth:`wait` follows the run.

        ``seed`` fixes the trials' random generators (0 picks one), ``tags`` keeps only the cases
        with one of them, and ``request_id`` makes the submission idempotent."""
        request = runner_pb2.SubmitRunRequest(
            suite=pb.suite_to_pb(suite),
            agent=agent,
            k=k or 0,
            agent_version=agent_version,
            concurrency=concurrency,
            seed=seed,
            timeout_s=timeout_s or 0.0,
            tags=list(tags),
            request_id=request_id,
        )
        return pb.run_from_pb((await self._call(self._stubs.runs.SubmitRun(request))).run)

    async def get_run(self, run_id: str) -> RunInfo:
        """A run's state and, once it has ended, its summary."""
        resp = await self._call(self._stubs.runs.GetRun(runner_pb2.GetRunRequest(run_id=run_id)))
        return pb.run_from_pb(resp.run)

    async def list_runs(
        self, *, suite: str | None = None, agent_version: str | None = None, limit: int = 50
    ) -> list[RunInfo]:
        """Runs, newest first, optionally of one suite or agent version."""
        request = runner_pb2.ListRunsRequest(
            suite=suite or "", agent_version=agent_version or "", limit=limit
        )
        resp = await self._call(self._stubs.runs.ListRuns(request))
        return [pb.run_from_pb(r) for r in resp.runs]

    async def submit_stored(
        self,
        suite_ref: str,
        agent: str = "",
        k: int | None = None,
        *,
        agent_version: str = "",
        concurrency: int = 0,
        seed: int = 0,
        timeout_s: float | None = None,
        tags: Sequence[str] = (),
        request_id: str = "",
    ) -> RunInfo:
        """Run a stored suite: ``NAME`` (its current version) or ``NAME@VERSION``."""
        request = runner_pb2.SubmitRunRequest(
            suite_ref=suite_ref,
            agent=agent,
            k=k or 0,
            agent_version=agent_version,
            concurrency=concurrency,
            seed=seed,
            timeout_s=timeout_s or 0.0,
            tags=list(tags),
            request_id=request_id,
        )
        return pb.run_from_pb((await self._call(self._stubs.runs.SubmitRun(request))).run)

    async def cancel_run(self, run_id: str, timeout_s: float | None = None) -> RunInfo:
        """Cancel a run: trials not yet started are skipped; the run then completes."""
        request = runner_pb2.CancelRunRequest(run_id=run_id)
        resp = await self._call(self._stubs.runs.CancelRun(request, timeout=timeout_s))
        return pb.run_from_pb(resp.run)

    async def compare(
        self, baseline: str, candidate: str, *, threshold: float | None = None, alpha: float | None = None
    ) -> dict[str, Any]:
        """Compare a candidate with a baseline (each a run id, or an agent version label: its
        newest run of the suite): the comparison document (``agenteval.v1.Comparison`` field for
        field: per-case verdicts and p-values, the suite test, new errors, reasons, passed),
        the input of ``agenteval.reports.comparison_report``."""
        request = runner_pb2.CompareRunsRequest(baseline=baseline, candidate=candidate)
        if threshold is not None:
            request.threshold = threshold
        if alpha is not None:
            request.alpha = alpha
        resp = await self._call(self._stubs.runs.CompareRuns(request))
        return pb.comparison_from_pb(resp.comparison)

    async def wait(self, run_id: str, *, timeout_s: float | None = None, poll_s: float = 0.2) -> RunInfo:
        """The run once it has ended (completed, cancelled or failed); TimeoutError after
        ``timeout_s`` seconds (None: no limit)."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            run = await self.get_run(run_id)
            if run.ended:
                return run
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"run {run_id} is still {run.status} after {timeout_s:g}s")
            await asyncio.sleep(poll_s)

    async def summary(self, run_id: str) -> RunSummary | None:
        """A run's statistics once it has ended; None before."""
        return (await self.get_run(run_id)).summary

    async def watch(
        self, run_id: str, after: int = 0, *, reconnect_s: float = RECONNECT_S
    ) -> AsyncIterator[runner_pb2.WatchRunResponse]:
        """The run's result stream from after ``after`` until the run ends: submitted, batches
        of graded trials with the run's progress, then completed with the summary (or failed).

        A dropped connection or a restarting server (for up to ``reconnect_s``) is followed
        by a new WatchRun that resumes after the last message received: nothing is missed
        and nothing comes twice."""
        request = runner_pb2.WatchRunRequest(run_id=run_id, after=after)
        async for ev in self._resuming(self._stubs.runs.WatchRun, request, reconnect_s):
            yield ev

    async def watch_runs(
        self,
        suite: str = "",
        agent_version: str = "",
        project: str = "",
        after: int = 0,
        *,
        reconnect_s: float = RECONNECT_S,
    ) -> AsyncIterator[runner_pb2.WatchRunResponse]:
        """Results of every run matching the filter, from now on (or after ``after``); never ends."""
        request = runner_pb2.WatchRunsRequest(
            suite=suite, agent_version=agent_version, project=project, after=after
        )
        async for ev in self._resuming(self._stubs.runs.WatchRuns, request, reconnect_s):
            yield ev

    async def _resuming(
        self,
        rpc: Any,
        request: Any,
        reconnect_s: float,
        position: Callable[[Any], int] = lambda ev: int(ev.seq),
    ) -> AsyncIterator[Any]:
        """The stream of ``rpc``, called again after a transient failure with ``request.after``
        set to the ``position`` of the last message received."""
        deadline: float | None = None
        while True:
            try:
                async for ev in rpc(request):
                    deadline = None
                    if position(ev):
                        request.after = position(ev)
                    yield ev
                return
            except grpc.aio.AioRpcError as exc:
                if not _transient(exc):
                    raise _contract_error(exc, self.target) from None
                now = time.monotonic()
                deadline = deadline or now + reconnect_s
                if now >= deadline:
                    raise _contract_error(exc, self.target) from None
                await asyncio.sleep(RECONNECT_PAUSE_S)

    # -- stored suites -------------------------------------------------------------------
    async def push_suite(self, suite: Suite, expected_version: int = 0) -> suites_pb2.UpdateSuiteResponse:
        """Store ``suite`` (created when new); the same content again is the same version."""
        request = suites_pb2.UpdateSuiteRequest(
            name=suite.name,
            suite_yaml=suite.model_dump_json(),  # JSON is YAML too, and much faster to read
            expected_version=expected_version,
            allow_missing=True,
        )
        return await self._call(self._stubs.suites.UpdateSuite(request))

    async def get_suite(self, name: str, version: str = "") -> suites_pb2.SuiteVersion:
        """A stored suite's version (the current one by default), with its YAML."""
        request = suites_pb2.GetSuiteRequest(name=name, version=version)
        return (await self._call(self._stubs.suites.GetSuite(request))).version

    # -- stored trials -------------------------------------------------------------------
    async def trials(
        self,
        run_id: str,
        *,
        case_id: str | None = None,
        status: TrialStatus | None = None,
        with_traces: bool = True,
        limit: int = 10_000,
        offset: int = 0,
    ) -> list[TrialRecord]:
        """A run's stored trials (by case and trial index) with their grades, and their transcripts
        unless ``with_traces`` is False."""
        request = transcripts_pb2.ListTrialsRequest(
            run_id=run_id,
            case_id=case_id or "",
            status=pb.TRIAL_STATUS_TO_PB[status] if status else common_pb2.TRIAL_STATUS_UNSPECIFIED,
            limit=limit,
            offset=offset,
            summary_only=not with_traces,
        )
        resp = await self._call(self._stubs.transcripts.ListTrials(request))
        return [pb.trial_from_pb(t) for t in resp.trials]

    async def trial(self, trial_id: str) -> TrialRecord:
        """One stored trial with its transcript and grades."""
        request = transcripts_pb2.GetTrialRequest(trial_id=trial_id)
        return pb.trial_from_pb((await self._call(self._stubs.transcripts.GetTrial(request))).trial)

    # -- labeled traces ------------------------------------------------------------------
    async def traces(
        self,
        dataset: str,
        *,
        label: str | None = None,
        trace_ids: Sequence[str] = (),
        labeled_only: bool = False,
        with_traces: bool = False,
        limit: int = 100,
        offset: int = 0,
    ) -> list[TraceInfo]:
        """A dataset's imported traces (by id): summaries, and the traces too with ``with_traces``."""
        request = transcripts_pb2.ListTracesRequest(
            dataset=dataset,
            label=label or "",
            trace_ids=list(trace_ids),
            labeled_only=labeled_only,
            with_traces=with_traces,
            limit=limit,
            offset=offset,
        )
        resp = await self._call(self._stubs.transcripts.ListTraces(request))
        return [pb.trace_info_from_pb(t) for t in resp.traces]

    async def trace(self, trace_id: str, dataset: str = "") -> TraceInfo:
        """One imported trace in full (of ``dataset``, or of any dataset holding that id)."""
        request = transcripts_pb2.GetTraceRequest(trace_id=trace_id, dataset=dataset)
        resp = await self._call(self._stubs.transcripts.GetTrace(request))
        return pb.trace_info_from_pb(resp.summary, resp.trace)

    async def import_traces(
        self, dataset: str, source: bytes | str | os.PathLike[str], *, format: str = "auto"
    ) -> ImportReport:
        """Import a trace file into ``dataset``: ``source`` is its content (bytes) or its path.

        ``format``: auto, jsonl, otlp, mlflow or langfuse. What could not be read is in the
        report's ``problems``, by line or record."""
        data = source if isinstance(source, bytes) else await asyncio.to_thread(Path(source).read_bytes)

        async def chunks() -> AsyncIterator[transcripts_pb2.ImportTracesRequest]:
            yield transcripts_pb2.ImportTracesRequest(
                dataset=dataset, format=format, chunk=data[:IMPORT_CHUNK_BYTES]
            )
            for start in range(IMPORT_CHUNK_BYTES, len(data), IMPORT_CHUNK_BYTES):
                yield transcripts_pb2.ImportTracesRequest(chunk=data[start : start + IMPORT_CHUNK_BYTES])

        resp = await self._call(self._stubs.transcripts.ImportTraces(chunks()))
        return pb.import_report_from_pb(resp)

    async def label_trace(
        self, trace_id: str, label: str, *, dataset: str, comment: str = "", rater: str = ""
    ) -> TraceInfo:
        """Set or change a trace's label: positive or negative (or good/bad, thumbs_up/thumbs_down,
        true/false, 1/0)."""
        request = transcripts_pb2.LabelTraceRequest(
            trace_id=trace_id, dataset=dataset, label=label, comment=comment, rater=rater
        )
        return pb.trace_info_from_pb((await self._call(self._stubs.transcripts.LabelTrace(request))).trace)

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
