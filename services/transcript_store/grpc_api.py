"""TranscriptService over gRPC."""

from __future__ import annotations

from typing import Any

from agenteval.contracts.errors import NotFound
from agenteval.contracts.pb import TRIAL_STATUS_FROM_PB, TRIAL_STATUS_TO_PB
from agenteval.transcript_store.repository import TranscriptRepository
from agenteval.v1 import transcripts_pb2, transcripts_pb2_grpc


def trial_to_pb(row: dict[str, Any], with_trace: bool = True) -> transcripts_pb2.Trial:
    return transcripts_pb2.Trial(
        trial_id=row["trial_id"],
        run_id=row["run_id"],
        case_id=row["case_id"],
        trial_index=row["trial_index"],
        status=TRIAL_STATUS_TO_PB.get(row["status"] or "", 0),
        trace_json=(row["trace_json"] or "") if with_trace else "",
        latency_ms=row["latency_ms"] or 0.0,
        created_at=row["created_at"].isoformat() if row["created_at"] else "",
    )


class TranscriptServicer(transcripts_pb2_grpc.TranscriptServiceServicer):
    def __init__(self, repo: TranscriptRepository) -> None:
        self.repo = repo

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
