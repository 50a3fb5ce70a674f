"""The transcript-store's bus subscribers."""

from __future__ import annotations

from typing import Any

from faststream.nats import NatsBroker

from agenteval.contracts.events import GradeRecord, TrialCompleted, TrialGraded
from agenteval.contracts.subjects import Subjects
from agenteval.contracts.trace import Trace
from agenteval.runtime.bus import batch_subscriber, parse_batch
from agenteval.runtime.telemetry import batch_spans
from agenteval.runtime.transcript_bucket import TranscriptBucket, with_full_traces
from agenteval.transcript_store import instruments
from agenteval.transcript_store.service import TranscriptService


def register(
    broker: NatsBroker,
    service: TranscriptService,
    subjects: Subjects,
    batch_size: int = 512,
    transcripts: TranscriptBucket | None = None,
) -> None:
    """Store every trial.completed and trial.graded; a trace cut to fit the bus is stored whole,
    fetched from ``transcripts`` (the cut copy is stored, and says so, when the fetch fails)."""

    async def transcript_lost(payload: bytes, reason: str) -> None:
        """A transcript that could not be stored after the delivery limit: a stub that says why."""
        done = TrialCompleted.model_validate_json(payload)
        stub = Trace(
            input=done.trace.input,
            output=done.trace.output,
            status=done.trace.status,
            latency_ms=done.trace.latency_ms,
            error=done.trace.error,
            metadata={**done.trace.metadata, "transcript_not_stored": reason},
        )
        await service.store_completed([done.model_copy(update={"trace": stub, "full_trace": None})])
        instruments.NOT_STORED.labels(kind="completed").inc()

    async def grades_lost(payload: bytes, reason: str) -> None:
        g = TrialGraded.model_validate_json(payload)
        note = GradeRecord(
            name="grading", score=0.0, passed=False, explanation="grades not stored", error=reason
        )
        await service.store_graded([g.model_copy(update={"grades": [note], "passed": False, "score": 0.0})])
        instruments.NOT_STORED.labels(kind="graded").inc()

    @batch_subscriber(
        broker,
        subjects.trial_completed,
        subjects,
        durable="transcripts-trial-completed",
        batch_size=batch_size,
        on_dead=transcript_lost,
    )
    async def on_trial_completed(payloads: list[dict[str, Any]]) -> None:
        batch = await with_full_traces(
            transcripts, parse_batch(TrialCompleted, payloads, "transcripts-trial-completed")
        )
        with (
            batch_spans("transcripts.store", batch),
            instruments.STORE_SECONDS.labels(kind="completed").time(),
        ):
            await service.store_completed(batch)
        instruments.STORED.labels(kind="completed").inc(len(batch))

    @batch_subscriber(
        broker,
        subjects.trial_graded,
        subjects,
        durable="transcripts-trial-graded",
        batch_size=batch_size,
        on_dead=grades_lost,
    )
    async def on_trial_graded(payloads: list[dict[str, Any]]) -> None:
        batch = parse_batch(TrialGraded, payloads, "transcripts-trial-graded")
        with instruments.STORE_SECONDS.labels(kind="graded").time():
            await service.store_graded(batch)
        instruments.STORED.labels(kind="graded").inc(len(batch))
