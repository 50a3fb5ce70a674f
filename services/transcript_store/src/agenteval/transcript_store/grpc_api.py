"""TranscriptService over gRPC: convert, call the service, convert back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agenteval.contracts import pb
from agenteval.contracts.errors import InvalidArgument
from agenteval.contracts.pb import TRIAL_STATUS_FROM_PB
from agenteval.transcript_store.service import MAX_IMPORT_BYTES, TranscriptService
from agenteval.v1 import transcripts_pb2, transcripts_pb2_grpc


class TranscriptServicer(transcripts_pb2_grpc.TranscriptServiceServicer):
    def __init__(self, service: TranscriptService) -> None:
        self.service = service

    async def ImportTraces(
        self, request_iterator: AsyncIterator[transcripts_pb2.ImportTracesRequest], context: Any
    ) -> transcripts_pb2.ImportTracesResponse:
        dataset, fmt, size = "", "auto", 0
        chunks: list[bytes] = []
        async for msg in request_iterator:
            if msg.dataset and not dataset:
                dataset = msg.dataset
            if msg.format and fmt == "auto":
                fmt = msg.format
            size += len(msg.chunk)
            if size > MAX_IMPORT_BYTES:  # refused while streaming, before it is all in memory
                raise InvalidArgument(f"import larger than {MAX_IMPORT_BYTES // 2**20} MiB: split the file")
            chunks.append(msg.chunk)
        report = await self.service.import_traces(dataset, fmt, b"".join(chunks))
        return pb.import_report_to_pb(report)

    async def ListTraces(
        self, request: transcripts_pb2.ListTracesRequest, context: Any
    ) -> transcripts_pb2.ListTracesResponse:
        infos, total = await self.service.traces(
            request.dataset,
            request.label or None,
            request.limit or 20,
            request.offset,
            list(request.trace_ids),
            request.labeled_only,
            request.agent or None,
            request.with_traces,
        )
        return transcripts_pb2.ListTracesResponse(traces=[pb.trace_info_to_pb(i) for i in infos], total=total)

    async def GetTrace(
        self, request: transcripts_pb2.GetTraceRequest, context: Any
    ) -> transcripts_pb2.GetTraceResponse:
        info, trace = await self.service.trace(request.dataset, request.trace_id)
        return transcripts_pb2.GetTraceResponse(
            summary=pb.trace_info_to_pb(info), trace=pb.trace_to_pb(trace)
        )

    async def LabelTrace(
        self, request: transcripts_pb2.LabelTraceRequest, context: Any
    ) -> transcripts_pb2.LabelTraceResponse:
        info = await self.service.label(
            request.dataset, request.trace_id, request.label, request.comment or None, request.rater or None
        )
        return transcripts_pb2.LabelTraceResponse(trace=pb.trace_info_to_pb(info))

    async def GetTrial(
        self, request: transcripts_pb2.GetTrialRequest, context: Any
    ) -> transcripts_pb2.GetTrialResponse:
        return transcripts_pb2.GetTrialResponse(
            trial=pb.trial_to_pb(await self.service.trial(request.trial_id))
        )

    async def ListTrials(
        self, request: transcripts_pb2.ListTrialsRequest, context: Any
    ) -> transcripts_pb2.ListTrialsResponse:
        trials, total = await self.service.trials(
            request.run_id,
            request.case_id or None,
            TRIAL_STATUS_FROM_PB.get(request.status),
            request.limit or 1000,
            request.offset,
            with_traces=not request.summary_only,
        )
        return transcripts_pb2.ListTrialsResponse(trials=[pb.trial_to_pb(t) for t in trials], total=total)
