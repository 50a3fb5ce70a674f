"""GraderService over gRPC: TestEvalCode."""

from __future__ import annotations

from typing import Any

from agenteval.grader.eval_code import EvalCodeTester
from agenteval.v1 import grader_pb2, grader_pb2_grpc


class GraderServicer(grader_pb2_grpc.GraderServiceServicer):
    def __init__(self, tester: EvalCodeTester) -> None:
        self.tester = tester

    async def TestEvalCode(
        self, request: grader_pb2.TestEvalCodeRequest, context: Any
    ) -> grader_pb2.TestEvalCodeResponse:
        return await self.tester.test_pb(request)
