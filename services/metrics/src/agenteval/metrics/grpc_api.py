"""MetricsService over gRPC."""

from __future__ import annotations

from typing import Any

from agenteval.contracts.errors import NotFound
from agenteval.contracts.pb import summary_to_pb
from agenteval.metrics.service import MetricsService
from agenteval.runtime import auth
from agenteval.v1 import metrics_pb2, metrics_pb2_grpc


class MetricsServicer(metrics_pb2_grpc.MetricsServiceServicer):
    def __init__(self, service: MetricsService) -> None:
        self.service = service

    async def GetRunSummary(
        self, request: metrics_pb2.GetRunSummaryRequest, context: Any
    ) -> metrics_pb2.GetRunSummaryResponse:
        meta = await self.service.repo.run_meta(request.run_id)
        if meta is not None and not auth.current().sees(meta.get("project")):
            raise NotFound(f"no graded trial of run {request.run_id!r} yet")  # another project's
        graded, _, total, completed = await self.service.repo.progress(request.run_id)
        if total == 0:
            raise NotFound(f"no graded trial of run {request.run_id!r} yet")
        summary = await self.service.summary(request.run_id)
        return metrics_pb2.GetRunSummaryResponse(
            summary=summary_to_pb(summary), complete=completed, trials_graded=graded, trials_total=total
        )
