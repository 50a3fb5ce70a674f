"""EvalGeneratorService over gRPC."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agenteval.contracts.errors import NotFound
from agenteval.eval_generator.repository import EvalRepository
from agenteval.v1 import eval_generator_pb2 as pb
from agenteval.v1 import eval_generator_pb2_grpc


def eval_to_pb(row: dict[str, Any]) -> pb.Eval:
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
    )


class EvalGeneratorServicer(eval_generator_pb2_grpc.EvalGeneratorServiceServicer):
    def __init__(self, repo: EvalRepository) -> None:
        self.repo = repo

    async def GenerateEval(
        self, request: pb.GenerateEvalRequest, context: Any
    ) -> AsyncIterator[pb.GenerateEvalResponse]:
        yield pb.GenerateEvalResponse(
            type=pb.GENERATE_EVENT_TYPE_FAILED,
            message="eval generation is not available in this version yet",
        )

    async def ListEvals(self, request: pb.ListEvalsRequest, context: Any) -> pb.ListEvalsResponse:
        return pb.ListEvalsResponse(evals=[eval_to_pb(r) for r in await self.repo.list(request.name or None)])

    async def GetEval(self, request: pb.GetEvalRequest, context: Any) -> pb.GetEvalResponse:
        row = await self.repo.get(request.name, request.version or None)
        if row is None:
            version = f" version {request.version}" if request.version else ""
            raise NotFound(f"no saved eval {request.name!r}{version}")
        return pb.GetEvalResponse(eval=eval_to_pb(row))
