"""EvalGeneratorService over gRPC: convert, call the service and the job manager, convert back."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

from agenteval.contracts import errors
from agenteval.eval_generator.jobs import JobManager
from agenteval.eval_generator.repository import EvalRepository
from agenteval.eval_generator.service import GenerateRequest
from agenteval.v1 import eval_generator_pb2 as pb
from agenteval.v1 import eval_generator_pb2_grpc


def _iso(value: datetime | None) -> str:
    return value.isoformat() if value is not None else ""


def usage_to_pb(row: dict[str, Any]) -> pb.GenerationUsage:
    return pb.GenerationUsage(
        input_tokens=row.get("input_tokens") or 0,
        output_tokens=row.get("output_tokens") or 0,
        cost_usd=row.get("cost_usd") or 0.0,
        price_known=bool(row.get("price_known")),
        attempts=row.get("attempts") or 0,
        steps=row.get("steps") or 0,
        stop_reason=row.get("stop_reason") or "",
        model=row.get("llm_model") or "",
    )


def eval_to_pb(row: dict[str, Any]) -> pb.Eval:
    if row.get("status") == "candidate":
        status = pb.EVAL_STATUS_CANDIDATE
    else:
        status = pb.EVAL_STATUS_CURRENT if row.get("current") else pb.EVAL_STATUS_ACTIVE
    candidates = json.loads(row["candidates_json"]) if row.get("candidates_json") else []
    return pb.Eval(
        name=row["name"],
        version=row["version"],
        code=row["code"],
        generator=row["generator"],
        train_accuracy=row["train_accuracy"] or 0.0,
        holdout_accuracy=row["holdout_accuracy"] or 0.0,
        dataset=row["dataset"],
        dataset_version=row["dataset_version"],
        split_json=row["split_json"],
        created_at=row["created_at"].isoformat(),
        description=row["description"],
        status=status,
        promoted_at=_iso(row.get("promoted_at")),
        target_accuracy=row.get("target_accuracy") or 0.0,
        job_id=row.get("job_id") or "",
        usage=usage_to_pb(row),
        candidates=[
            pb.Candidate(
                source=c["source"],
                train_accuracy=c["train_accuracy"],
                errors=c["errors"],
                code_error=c["code_error"] or "",
                chosen=c["chosen"],
                note=c["note"],
                version=c["version"],
            )
            for c in candidates
        ],
    )


def request_from_pb(r: pb.GenerateEvalRequest) -> GenerateRequest:
    """The request with proto3's zeros read as "the default"; anything else is validated as given."""
    return GenerateRequest(
        name=r.name,
        dataset=r.dataset,
        method=r.method or "auto",  # type: ignore[arg-type]
        model=r.model or "claude-sonnet-4-5",
        target_accuracy=r.target_accuracy or 0.8,
        max_attempts=r.max_attempts or 5,
        max_steps=r.max_steps or 50,
        holdout_fraction=r.holdout_fraction or 0.3,
        seed=r.seed,
        allow_fallback=r.allow_fallback,
    )


def request_to_pb(req: GenerateRequest) -> pb.GenerateEvalRequest:
    return pb.GenerateEvalRequest(
        name=req.name,
        dataset=req.dataset,
        method=req.method,
        model=req.model,
        target_accuracy=req.target_accuracy,
        max_attempts=req.max_attempts,
        max_steps=req.max_steps,
        holdout_fraction=req.holdout_fraction,
        seed=req.seed,
        allow_fallback=req.allow_fallback,
    )


_STATUSES = {
    "queued": pb.GENERATION_JOB_STATUS_QUEUED,
    "running": pb.GENERATION_JOB_STATUS_RUNNING,
    "done": pb.GENERATION_JOB_STATUS_DONE,
    "failed": pb.GENERATION_JOB_STATUS_FAILED,
    "cancelled": pb.GENERATION_JOB_STATUS_CANCELLED,
}
_STATUS_NAMES = {v: k for k, v in _STATUSES.items()}
_OUTCOMES = {
    "promoted": pb.GENERATION_OUTCOME_PROMOTED,
    "candidate": pb.GENERATION_OUTCOME_CANDIDATE,
    "kept": pb.GENERATION_OUTCOME_KEPT,
}


def job_to_pb(row: dict[str, Any]) -> pb.GenerationJob:
    return pb.GenerationJob(
        job_id=row["job_id"],
        status=_STATUSES.get(row["status"], pb.GENERATION_JOB_STATUS_UNSPECIFIED),
        request=request_to_pb(GenerateRequest.from_json(row["request_json"])),
        created_at=_iso(row["created_at"]),
        started_at=_iso(row["started_at"]),
        finished_at=_iso(row["finished_at"]),
        outcome=_OUTCOMES.get(row["outcome"] or "", pb.GENERATION_OUTCOME_UNSPECIFIED),
        eval_version=row["eval_version"] or 0,
        error=row["error"] or "",
        error_code=row["error_code"] or "",
        usage=usage_to_pb(row),
        runs=row["runs"] or 0,
        last_sequence=row["last_seq"] or 0,
        train_accuracy=row["train_accuracy"] or 0.0,
        holdout_accuracy=row["holdout_accuracy"] or 0.0,
    )


EVENT_TYPES = {
    "started": pb.GENERATE_EVENT_TYPE_STARTED,
    "thinking": pb.GENERATE_EVENT_TYPE_THINKING,
    "tool_called": pb.GENERATE_EVENT_TYPE_TOOL_CALLED,
    "tool_result": pb.GENERATE_EVENT_TYPE_TOOL_RESULT,
    "test_result": pb.GENERATE_EVENT_TYPE_TEST_RESULT,
    "saved": pb.GENERATE_EVENT_TYPE_SAVED,
    "failed": pb.GENERATE_EVENT_TYPE_FAILED,
    "candidate": pb.GENERATE_EVENT_TYPE_CANDIDATE,
    "cancelled": pb.GENERATE_EVENT_TYPE_CANCELLED,
    "kept": pb.GENERATE_EVENT_TYPE_KEPT,
    "warning": pb.GENERATE_EVENT_TYPE_WARNING,
}

_FAILURES: dict[str, type[errors.AgentEvalError]] = {
    "INVALID_ARGUMENT": errors.InvalidArgument,
    "NOT_FOUND": errors.NotFound,
    "UNAVAILABLE": errors.Unavailable,
    "PERMISSION_DENIED": errors.PermissionDenied,
}


class EvalGeneratorServicer(eval_generator_pb2_grpc.EvalGeneratorServiceServicer):
    def __init__(self, repo: EvalRepository, jobs: JobManager) -> None:
        self.repo = repo
        self.jobs = jobs

    async def _events(
        self, job_id: str, after: int
    ) -> AsyncIterator[tuple[pb.GenerationEvent, pb.GenerationJob, dict[str, Any]]]:
        async for event, job in self.jobs.watch(job_id, after):
            msg = pb.GenerationEvent(
                sequence=event["seq"],
                type=EVENT_TYPES.get(event["type"], pb.GENERATE_EVENT_TYPE_UNSPECIFIED),
                message=event["message"],
                accuracy=event["accuracy"] or 0.0,
                step=event["step"] or 0,
                created_at=_iso(event["created_at"]),
            )
            if event["eval_version"]:
                row = await self.repo.get(job["name"], event["eval_version"])
                if row is not None:
                    msg.eval.CopyFrom(eval_to_pb(row))
            yield msg, job_to_pb(job), job

    async def GenerateEval(
        self, request: pb.GenerateEvalRequest, context: Any
    ) -> AsyncIterator[pb.GenerateEvalResponse]:
        # A job like any other: the client going away does not stop it (watch it by its id).
        job = await self.jobs.submit(request_from_pb(request))
        final: dict[str, Any] = job
        async for event, _, latest in self._events(job["job_id"], 0):
            final = latest
            msg = pb.GenerateEvalResponse(
                type=event.type, message=event.message, accuracy=event.accuracy, step=event.step
            )
            if event.HasField("eval"):
                msg.eval.CopyFrom(event.eval)
            yield msg
        if final["status"] == "failed":
            raise _FAILURES.get(final["error_code"] or "", errors.AgentEvalError)(final["error"])
        if final["status"] == "cancelled":
            raise errors.Conflict(f"generation job {job['job_id']} was cancelled")

    async def StartGenerationJob(
        self, request: pb.StartGenerationJobRequest, context: Any
    ) -> pb.StartGenerationJobResponse:
        job = await self.jobs.submit(request_from_pb(request.request))
        return pb.StartGenerationJobResponse(job=job_to_pb(job))

    async def WatchGenerationJob(
        self, request: pb.WatchGenerationJobRequest, context: Any
    ) -> AsyncIterator[pb.WatchGenerationJobResponse]:
        async for event, job, _ in self._events(request.job_id, request.after):
            yield pb.WatchGenerationJobResponse(event=event, job=job)

    async def ListGenerationJobs(
        self, request: pb.ListGenerationJobsRequest, context: Any
    ) -> pb.ListGenerationJobsResponse:
        if request.limit < 0:
            raise errors.InvalidArgument(f"limit must be 0 or more, got {request.limit}")
        rows = await self.jobs.repo.recent(
            request.name or None, _STATUS_NAMES.get(request.status), request.limit or 100
        )
        return pb.ListGenerationJobsResponse(jobs=[job_to_pb(r) for r in rows])

    async def GetGenerationJob(
        self, request: pb.GetGenerationJobRequest, context: Any
    ) -> pb.GetGenerationJobResponse:
        return pb.GetGenerationJobResponse(job=job_to_pb(await self.jobs.get(request.job_id)))

    async def CancelGenerationJob(
        self, request: pb.CancelGenerationJobRequest, context: Any
    ) -> pb.CancelGenerationJobResponse:
        return pb.CancelGenerationJobResponse(job=job_to_pb(await self.jobs.cancel(request.job_id)))

    async def PromoteEval(self, request: pb.PromoteEvalRequest, context: Any) -> pb.PromoteEvalResponse:
        if not request.name or request.version <= 0:
            raise errors.InvalidArgument("promote needs an eval name and a version (NAME@VERSION)")
        return pb.PromoteEvalResponse(eval=eval_to_pb(await self.repo.promote(request.name, request.version)))

    async def ListEvals(self, request: pb.ListEvalsRequest, context: Any) -> pb.ListEvalsResponse:
        return pb.ListEvalsResponse(evals=[eval_to_pb(r) for r in await self.repo.list(request.name or None)])

    async def GetEval(self, request: pb.GetEvalRequest, context: Any) -> pb.GetEvalResponse:
        if request.version < 0:
            raise errors.InvalidArgument(
                f"version must be 1 or more (0: the current one), got {request.version}"
            )
        return pb.GetEvalResponse(
            eval=eval_to_pb(await self.repo.resolve(request.name, request.version or None))
        )
