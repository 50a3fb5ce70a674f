"""EvalGeneratorService over gRPC: convert, call the service and the job manager, convert back.

Stored rows become the contract models here (``agenteval.contracts.evals``); the models become
messages in ``agenteval.contracts.pb`` and nowhere else."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

from agenteval.contracts import errors
from agenteval.contracts import pb as contracts_pb
from agenteval.contracts.evals import (
    EvalCandidate,
    EvalInfo,
    EvalSplit,
    GenerationEvent,
    GenerationJob,
    GenerationRequest,
    GenerationUsage,
)
from agenteval.eval_generator.generation.jobs import JobManager
from agenteval.eval_generator.repository import EvalRepository
from agenteval.runtime import auth
from agenteval.v1 import eval_generator_pb2 as pb
from agenteval.v1 import eval_generator_pb2_grpc


def _utc(value: datetime | None) -> datetime | None:
    # SQLite gives naive datetimes back; every stored value is UTC.
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


def usage_info(row: dict[str, Any]) -> GenerationUsage:
    """What a job (or the generation behind a saved eval) spent, from its usage columns."""
    return GenerationUsage(
        model=row.get("llm_model") or "",
        input_tokens=row.get("input_tokens") or 0,
        output_tokens=row.get("output_tokens") or 0,
        cost_usd=row.get("cost_usd") or 0.0,
        price_known=bool(row.get("price_known")),
        attempts=row.get("attempts") or 0,
        steps=row.get("steps") or 0,
        stop_reason=row.get("stop_reason") or "",
    )


def eval_info(row: dict[str, Any]) -> EvalInfo:
    """A saved eval row as clients see it (the split and the candidates are stored as JSON)."""
    if row.get("status") == "candidate":
        status = "candidate"
    else:
        status = "current" if row.get("current") else "active"
    split = row["split_json"]
    candidates = json.loads(row["candidates_json"]) if row.get("candidates_json") else []
    return EvalInfo.model_validate(
        {
            "name": row["name"],
            "version": row["version"],
            "code": row["code"],
            "generator": row["generator"],
            "train_accuracy": row["train_accuracy"] or 0.0,
            "holdout_accuracy": row["holdout_accuracy"] or 0.0,
            "dataset": row["dataset"],
            "dataset_version": row["dataset_version"],
            "split": EvalSplit.model_validate_json(split) if split else None,
            "created_at": _utc(row["created_at"]),
            "description": row["description"],
            "status": status,
            "promoted_at": _utc(row.get("promoted_at")),
            "target_accuracy": row.get("target_accuracy") or 0.0,
            "job_id": row.get("job_id") or "",
            "usage": usage_info(row),
            "candidates": [EvalCandidate.model_validate(c) for c in candidates],
        }
    )


def job_info(row: dict[str, Any]) -> GenerationJob:
    return GenerationJob(
        job_id=row["job_id"],
        status=row["status"],
        request=GenerationRequest.model_validate_json(row["request_json"]),
        created_at=_utc(row["created_at"]),
        started_at=_utc(row["started_at"]),
        finished_at=_utc(row["finished_at"]),
        outcome=row["outcome"] or None,
        eval_version=row["eval_version"] or 0,
        error=row["error"] or None,
        error_code=row["error_code"] or None,
        usage=usage_info(row),
        runs=row["runs"] or 0,
        last_sequence=row["last_seq"] or 0,
        train_accuracy=row["train_accuracy"] or 0.0,
        holdout_accuracy=row["holdout_accuracy"] or 0.0,
    )


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

    async def _events(self, job_id: str, after: int) -> AsyncIterator[tuple[GenerationEvent, dict[str, Any]]]:
        """The job's events (with the eval a saved or kept one names) and the job row after each."""
        async for event, job in self.jobs.watch(job_id, after):
            saved = None
            if event["eval_version"]:
                row = await self.repo.get(job["name"], event["eval_version"])
                saved = eval_info(row) if row is not None else None
            yield (
                GenerationEvent(
                    sequence=event["seq"],
                    type=event["type"],
                    message=event["message"],
                    accuracy=event["accuracy"] or 0.0,
                    step=event["step"] or 0,
                    created_at=_utc(event["created_at"]),
                    eval=saved,
                ),
                job,
            )

    async def GenerateEval(
        self, request: pb.GenerateEvalRequest, context: Any
    ) -> AsyncIterator[pb.GenerateEvalResponse]:
        # A job like any other: the client going away does not stop it (watch it by its id).
        job = await self.jobs.submit(contracts_pb.generation_request_from_pb(request))
        final: dict[str, Any] = job
        async for event, latest in self._events(job["job_id"], 0):
            final = latest
            yield contracts_pb.generate_eval_response_to_pb(event)
        if final["status"] == "failed":
            raise _FAILURES.get(final["error_code"] or "", errors.AgentEvalError)(final["error"])
        if final["status"] == "cancelled":
            raise errors.Conflict(f"generation job {job['job_id']} was cancelled")

    async def StartGenerationJob(
        self, request: pb.StartGenerationJobRequest, context: Any
    ) -> pb.StartGenerationJobResponse:
        job = await self.jobs.submit(contracts_pb.generation_request_from_pb(request.request))
        return pb.StartGenerationJobResponse(job=contracts_pb.generation_job_to_pb(job_info(job)))

    async def WatchGenerationJob(
        self, request: pb.WatchGenerationJobRequest, context: Any
    ) -> AsyncIterator[pb.WatchGenerationJobResponse]:
        async for event, job in self._events(request.job_id, request.after):
            yield pb.WatchGenerationJobResponse(
                event=contracts_pb.generation_event_to_pb(event),
                job=contracts_pb.generation_job_to_pb(job_info(job)),
            )

    async def ListGenerationJobs(
        self, request: pb.ListGenerationJobsRequest, context: Any
    ) -> pb.ListGenerationJobsResponse:
        if request.limit < 0:
            raise errors.InvalidArgument(f"limit must be 0 or more, got {request.limit}")
        rows = await self.jobs.repo.recent(
            request.name or None,
            contracts_pb.JOB_STATUS_FROM_PB.get(request.status),
            request.limit or 100,
            projects=auth.current().visible,
        )
        return pb.ListGenerationJobsResponse(
            jobs=[contracts_pb.generation_job_to_pb(job_info(r)) for r in rows]
        )

    async def GetGenerationJob(
        self, request: pb.GetGenerationJobRequest, context: Any
    ) -> pb.GetGenerationJobResponse:
        job = await self.jobs.get(request.job_id)
        return pb.GetGenerationJobResponse(job=contracts_pb.generation_job_to_pb(job_info(job)))

    async def CancelGenerationJob(
        self, request: pb.CancelGenerationJobRequest, context: Any
    ) -> pb.CancelGenerationJobResponse:
        job = await self.jobs.cancel(request.job_id)
        return pb.CancelGenerationJobResponse(job=contracts_pb.generation_job_to_pb(job_info(job)))

    async def _visible(self, name: str) -> None:
        """NotFound for another project's eval (it looks missing)."""
        owner = await self.repo.project_of(name)
        if owner is not None and not auth.current().sees(owner):
            raise errors.NotFound(f"no saved eval {name!r}")

    async def PromoteEval(self, request: pb.PromoteEvalRequest, context: Any) -> pb.PromoteEvalResponse:
        if not request.name or request.version <= 0:
            raise errors.InvalidArgument("promote needs an eval name and a version (NAME@VERSION)")
        await self._visible(request.name)
        row = await self.repo.promote(request.name, request.version)
        return pb.PromoteEvalResponse(eval=contracts_pb.eval_to_pb(eval_info(row)))

    async def ListEvals(self, request: pb.ListEvalsRequest, context: Any) -> pb.ListEvalsResponse:
        rows = await self.repo.list(request.name or None, auth.current().visible)
        return pb.ListEvalsResponse(evals=[contracts_pb.eval_to_pb(eval_info(r)) for r in rows])

    async def GetEval(self, request: pb.GetEvalRequest, context: Any) -> pb.GetEvalResponse:
        if request.version < 0:
            raise errors.InvalidArgument(
                f"version must be 1 or more (0: the current one), got {request.version}"
            )
        await self._visible(request.name)
        row = await self.repo.resolve(request.name, request.version or None)
        return pb.GetEvalResponse(eval=contracts_pb.eval_to_pb(eval_info(row)))
