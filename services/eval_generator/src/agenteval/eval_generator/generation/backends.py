"""Generation's backends over gRPC: labeled traces from the transcript-store, tests by the grader."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc

from agenteval.contracts import pb
from agenteval.contracts.errors import InvalidArgument, NotFound, Unavailable
from agenteval.contracts.records import LabeledTrace
from agenteval.contracts.trace import Trace
from agenteval.eval_generator.service import Labeled
from agenteval.runtime import auth
from agenteval.runtime.grpc_server import channel
from agenteval.runtime.settings import CommonSettings
from agenteval.v1 import grader_pb2, grader_pb2_grpc, transcripts_pb2, transcripts_pb2_grpc


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


def _project() -> tuple[tuple[str, str], ...]:
    """The project the current request or job acts in, for the call to another service."""
    return ((auth.PROJECT_HEADER, auth.current().project),)


class GrpcBackends:
    def __init__(
        self, transcripts_target: str, grader_target: str, common: CommonSettings | None = None
    ) -> None:
        def connect(target: str) -> grpc.aio.Channel:
            return common.channel(target) if common is not None else channel(target)

        self.transcripts = transcripts_pb2_grpc.TranscriptServiceStub(connect(transcripts_target))
        self.grader = grader_pb2_grpc.GraderServiceStub(connect(grader_target))

    async def labeled_traces(self, dataset: str) -> tuple[int, list[Labeled]]:
        with _as_contract_errors("the transcript store"):
            resp = await self.transcripts.ListTraces(
                transcripts_pb2.ListTracesRequest(
                    dataset=dataset, labeled_only=True, with_traces=True, limit=100_000
                ),
                metadata=_project(),
            )
        version = resp.traces[0].dataset_version if resp.traces else 0
        # The shape eval functions get when they grade a suite (with tool_calls), whatever the
        # stored one: code that holds on these traces must hold there too.
        return version, [
            (t.trace_id, pb.trace_from_pb(t.trace, f"trace {t.trace_id}").to_eval_dict(), t.label)
            for t in resp.traces
        ]

    async def label_counts(self, dataset: str) -> tuple[int, int]:
        with _as_contract_errors("the transcript store"):
            resp = await self.transcripts.ListTraces(
                transcripts_pb2.ListTracesRequest(dataset=dataset, labeled_only=True, limit=100_000),
                metadata=_project(),
            )
        labels = [t.label for t in resp.traces]
        return labels.count("positive"), labels.count("negative")

    async def test_code(self, code: str, traces: list[Labeled]) -> dict[str, Any]:
        request = grader_pb2.TestEvalCodeRequest(
            code=code,
            traces=[
                pb.labeled_trace_to_pb(
                    LabeledTrace.model_validate(
                        {"trace_id": i, "trace": Trace.from_eval_dict(t), "label": lab}
                    )
                )
                for i, t, lab in traces
            ],
        )
        with _as_contract_errors("the grader"):
            resp = await self.grader.TestEvalCode(request, metadata=_project())
        return pb.eval_report_from_pb(resp).model_dump()
