"""Generation's backends over gRPC: labeled traces from the transcript-store, tests by the grader."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc

from agenteval.contracts.errors import InvalidArgument, NotFound, Unavailable
from agenteval.contracts.trace import Trace
from agenteval.eval_generator.service import Labeled
from agenteval.runtime.grpc_server import channel
from agenteval.v1 import grader_pb2, grader_pb2_grpc, transcripts_pb2, transcripts_pb2_grpc

_TO_PB = {"positive": grader_pb2.LABEL_POSITIVE, "negative": grader_pb2.LABEL_NEGATIVE}
_FROM_PB = {v: k for k, v in _TO_PB.items()}


@contextmanager
def _as_contract_errors(what: str) -> Iterator[None]:
    """The other service's status as our errors, so a job records why it failed (not INTERNAL)."""
    try:
        yield
    except grpc.aio.AioRpcError as exc:
        code, details = exc.code(), exc.details() or str(exc.code())
        if code == grpc.StatusCode.NOT_FOUND:
            raise NotFound(details) from None
        if code == grpc.StatusCode.INVALID_ARGUMENT:
            raise InvalidArgument(details) from None
        if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            raise Unavailable(f"{what} is unavailable: {details}") from None
        raise


class GrpcBackends:
    def __init__(self, transcripts_target: str, grader_target: str) -> None:
        self.transcripts = transcripts_pb2_grpc.TranscriptServiceStub(channel(transcripts_target))
        self.grader = grader_pb2_grpc.GraderServiceStub(channel(grader_target))

    async def labeled_traces(self, dataset: str) -> tuple[int, list[Labeled]]:
        with _as_contract_errors("the transcript store"):
            resp = await self.transcripts.ListTraces(
                transcripts_pb2.ListTracesRequest(
                    dataset=dataset, labeled_only=True, with_traces=True, limit=100_000
                )
            )
        version = resp.traces[0].dataset_version if resp.traces else 0
        # The shape eval functions get when they grade a suite (with tool_calls), whatever the
        # stored one: code that holds on these traces must hold there too.
        return version, [
            (t.trace_id, Trace.model_validate_json(t.trace_json).to_eval_dict(), t.label) for t in resp.traces
        ]

    async def label_counts(self, dataset: str) -> tuple[int, int]:
        with _as_contract_errors("the transcript store"):
            resp = await self.transcripts.ListTraces(
                transcripts_pb2.ListTracesRequest(dataset=dataset, labeled_only=True, limit=100_000)
            )
        labels = [t.label for t in resp.traces]
        return labels.count("positive"), labels.count("negative")

    async def test_code(self, code: str, traces: list[Labeled]) -> dict[str, Any]:
        with _as_contract_errors("the grader"):
            resp = await self.grader.TestEvalCode(
                grader_pb2.TestEvalCodeRequest(
                    code=code,
                    traces=[
                        grader_pb2.LabeledTrace(trace_id=i, trace_json=json.dumps(t), label=_TO_PB[lab])
                        for i, t, lab in traces
                    ],
                )
            )
        return {
            "accuracy": resp.accuracy,
            "total": resp.total,
            "correct": resp.correct,
            "incorrect": resp.incorrect,
            "errors": resp.errors,
            "code_error": resp.code_error or None,
            "mismatches": [
                {
                    "trace_id": m.trace_id,
                    "expected": _FROM_PB.get(m.expected),
                    "predicted": _FROM_PB.get(m.predicted),
                    "score": m.score,
                    "explanation": m.explanation,
                    "error": m.error or None,
                }
                for m in resp.mismatches
            ],
        }
