"""EvalGeneratorService over gRPC."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

from agenteval.contracts import pb as contracts_pb
from agenteval.contracts.errors import NotFound
from agenteval.contracts.records import EvalInfo, EvalSplit
from agenteval.eval_generator.repository import EvalRepository
from agenteval.eval_generator.service import EvalGenerator, GenerateRequest, Progress
from agenteval.v1 import eval_generator_pb2 as pb
from agenteval.v1 import eval_generator_pb2_grpc


def eval_info(row: dict[str, Any]) -> EvalInfo:
    """A saved eval row as clients see it (the split is stored as JSON)."""
    split = row["split_json"]
    return EvalInfo(
        name=row["name"],
        version=row["version"],
        code=row["code"],
        generator=row["generator"],
        train_accuracy=row["train_accuracy"] or 0.0,
        holdout_accuracy=row["holdout_accuracy"] or 0.0,
        dataset=row["dataset"],
        dataset_version=row["dataset_version"],
        split=EvalSplit.model_validate_json(split) if split else None,
        created_at=row["created_at"],
        description=row["description"],
    )


def eval_to_pb(row: dict[str, Any]) -> pb.Eval:
    return contracts_pb.eval_to_pb(eval_info(row))


_EVENT_TYPES = {
    "started": pb.GENERATE_EVENT_TYPE_STARTED,
    "thinking": pb.GENERATE_EVENT_TYPE_THINKING,
    "tool_called": pb.GENERATE_EVENT_TYPE_TOOL_CALLED,
    "tool_result": pb.GENERATE_EVENT_TYPE_TOOL_RESULT,
    "test_result": pb.GENERATE_EVENT_TYPE_TEST_RESULT,
    "saved": pb.GENERATE_EVENT_TYPE_SAVED,
    "failed": pb.GENERATE_EVENT_TYPE_FAILED,
}


class EvalGeneratorServicer(eval_generator_pb2_grpc.EvalGeneratorServiceServicer):
    def __init__(self, repo: EvalRepository, generator: Callable[[], EvalGenerator]) -> None:
        self.repo = repo
        self.generator = generator

    async def GenerateEval(
        self, request: pb.GenerateEvalRequest, context: Any
    ) -> AsyncIterator[pb.GenerateEvalResponse]:
        req = GenerateRequest(
            name=request.name,
            dataset=request.dataset,
            method=request.method or "auto",  # type: ignore[arg-type]
            model=request.model or "claude-sonnet-4-5",
            target_accuracy=request.target_accuracy or 0.8,
            max_attempts=request.max_attempts or 5,
            max_steps=request.max_steps or 50,
            holdout_fraction=request.holdout_fraction or 0.3,
            seed=request.seed,
        )
        queue: asyncio.Queue[Progress | None] = asyncio.Queue()

        async def work() -> None:
            try:
                await self.generator().generate(req, queue.put)
            finally:
                await queue.put(None)

        task = asyncio.create_task(work())
        try:
            while (item := await queue.get()) is not None:
                msg = pb.GenerateEvalResponse(
                    type=_EVENT_TYPES.get(item.type, pb.GENERATE_EVENT_TYPE_UNSPECIFIED),
                    message=item.message,
                    accuracy=item.accuracy or 0.0,
                    step=item.step,
                )
                if item.eval is not None:
                    msg.eval.CopyFrom(eval_to_pb(item.eval))
                yield msg
            await task  # a failure is re-raised here and mapped to a status by the interceptor
        finally:
            if not task.done():
                task.cancel()

    async def ListEvals(self, request: pb.ListEvalsRequest, context: Any) -> pb.ListEvalsResponse:
        return pb.ListEvalsResponse(evals=[eval_to_pb(r) for r in await self.repo.list(request.name or None)])

    async def GetEval(self, request: pb.GetEvalRequest, context: Any) -> pb.GetEvalResponse:
        row = await self.repo.get(request.name, request.version or None)
        if row is None:
            version = f" version {request.version}" if request.version else ""
            raise NotFound(f"no saved eval {request.name!r}{version}")
        return pb.GetEvalResponse(eval=eval_to_pb(row))
