"""TranscriptService over gRPC."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any, cast

from agenteval.contracts import pb
from agenteval.contracts.errors import InvalidArgument, NotFound
from agenteval.contracts.events import GradeRecord
from agenteval.contracts.pb import TRIAL_STATUS_FROM_PB
from agenteval.contracts.records import ImportReport, TraceInfo, TrialRecord
from agenteval.contracts.trace import Trace
from agenteval.transcript_store.datasets import DatasetRepository, check_dataset_name
from agenteval.transcript_store.repository import TranscriptRepository
from agenteval.v1 import transcripts_pb2, transcripts_pb2_grpc


def trial_record(row: dict[str, Any], with_trace: bool = True) -> TrialRecord:
    """A stored trial row as clients see it; the grades are GradeRecord dicts as JSON, none until graded."""
    grades = row["grades_json"]
    trace = row["trace_json"]
    return TrialRecord(
        trial_id=row["trial_id"],
        run_id=row["run_id"],
        case_id=row["case_id"],
        trial_index=row["trial_index"],
        status=row["status"] or None,
        latency_ms=row["latency_ms"] or 0.0,
        created_at=row["created_at"],
        passed=row["passed"],
        score=row["score"],
        grades=[GradeRecord.model_validate(g) for g in json.loads(grades)] if grades else [],
        trace=Trace.model_validate_json(trace) if with_trace and trace else None,
    )


def trial_to_pb(row: dict[str, Any], with_trace: bool = True) -> transcripts_pb2.Trial:
    return pb.trial_to_pb(trial_record(row, with_trace))


MAX_IMPORT_BYTES = 1024 * 1024 * 1024


def trace_info(row: dict[str, Any], version: int = 0, with_trace: bool = False) -> TraceInfo:
    """A stored imported trace as clients see it."""
    return TraceInfo(
        trace_id=row["trace_id"],
        dataset=row["dataset"],
        label=row["label"] or None,
        summary=row["summary"],
        step_count=row["step_count"],
        has_tool_calls=row["has_tool_calls"],
        comment=row["comment"] or None,
        rater=row["rater"] or None,
        dataset_version=version,
        trace=Trace.model_validate_json(row["trace_json"]) if with_trace else None,
    )


def trace_summary_to_pb(
    row: dict[str, Any], version: int = 0, with_trace: bool = False
) -> transcripts_pb2.TraceSummary:
    return pb.trace_info_to_pb(trace_info(row, version, with_trace))


class TranscriptServicer(transcripts_pb2_grpc.TranscriptServiceServicer):
    def __init__(self, repo: TranscriptRepository, datasets: DatasetRepository) -> None:
        self.repo = repo
        self.datasets = datasets

    async def ImportTraces(
        self, request_iterator: AsyncIterator[transcripts_pb2.ImportTracesRequest], context: Any
    ) -> transcripts_pb2.ImportTracesResponse:
        from agenteval.importers import ImportFormat, import_traces

        dataset, fmt, size = "", "auto", 0
        chunks: list[bytes] = []
        async for msg in request_iterator:
            if msg.dataset and not dataset:
                dataset = msg.dataset
            if msg.format and fmt == "auto":
                fmt = msg.format
            size += len(msg.chunk)
            if size > MAX_IMPORT_BYTES:
                raise InvalidArgument(f"import larger than {MAX_IMPORT_BYTES // 2**20} MiB: split the file")
            chunks.append(msg.chunk)
        check_dataset_name(dataset)
        # The client's format name as given: import_traces rejects unknown ones (UnknownTraceFormat).
        result = await asyncio.to_thread(import_traces, b"".join(chunks), cast("ImportFormat", fmt))
        imported, duplicates, version = await self.datasets.import_traces(dataset, result.traces)
        return pb.import_report_to_pb(
            ImportReport(
                dataset=dataset,
                dataset_version=version,
                imported=imported,
                duplicates=duplicates,
                problems=result.problems,
                format=result.format,
            )
        )

    async def ListTraces(
        self, request: transcripts_pb2.ListTracesRequest, context: Any
    ) -> transcripts_pb2.ListTracesResponse:
        rows, total = await self.datasets.list(
            request.dataset,
            request.label or None,
            request.limit or 20,
            request.offset,
            list(request.trace_ids),
            request.labeled_only,
            request.agent or None,
        )
        version = await self.datasets.version(request.dataset)
        return transcripts_pb2.ListTracesResponse(
            traces=[trace_summary_to_pb(r, version, request.with_traces) for r in rows], total=total
        )

    async def GetTrace(
        self, request: transcripts_pb2.GetTraceRequest, context: Any
    ) -> transcripts_pb2.GetTraceResponse:
        row = await self.datasets.get(request.dataset, request.trace_id)
        if row is None:
            raise NotFound(
                f"no trace {request.trace_id!r}"
                + (f" in dataset {request.dataset!r}" if request.dataset else "")
            )
        return transcripts_pb2.GetTraceResponse(
            summary=trace_summary_to_pb(row),
            trace=pb.trace_to_pb(Trace.model_validate_json(row["trace_json"])),
        )

    async def LabelTrace(
        self, request: transcripts_pb2.LabelTraceRequest, context: Any
    ) -> transcripts_pb2.LabelTraceResponse:
        row = await self.datasets.label(
            request.dataset, request.trace_id, request.label, request.comment or None, request.rater or None
        )
        version = await self.datasets.version(request.dataset)
        return transcripts_pb2.LabelTraceResponse(trace=trace_summary_to_pb(row, version))

    async def GetTrial(
        self, request: transcripts_pb2.GetTrialRequest, context: Any
    ) -> transcripts_pb2.GetTrialResponse:
        row = await self.repo.get_trial(request.trial_id)
        if row is None or row["trace_json"] is None:
            raise NotFound(f"no stored trial {request.trial_id!r}")
        return transcripts_pb2.GetTrialResponse(trial=trial_to_pb(row))

    async def ListTrials(
        self, request: transcripts_pb2.ListTrialsRequest, context: Any
    ) -> transcripts_pb2.ListTrialsResponse:
        rows, total = await self.repo.list_trials(
            request.run_id,
            request.case_id or None,
            TRIAL_STATUS_FROM_PB.get(request.status),
            request.limit or 1000,
            request.offset,
        )
        return transcripts_pb2.ListTrialsResponse(
            trials=[trial_to_pb(r, not request.summary_only) for r in rows], total=total
        )
