"""The transcript-store's bus subscribers."""

from __future__ import annotations

from typing import Any

from faststream.nats import NatsBroker

from agenteval.contracts.events import TrialCompleted, TrialGraded
from agenteval.contracts.subjects import Subjects
from agenteval.runtime.bus import batch_subscriber, parse_batch
from agenteval.runtime.telemetry import batch_spans
from agenteval.runtime.transcript_bucket import TranscriptBucket, with_full_traces
from agenteval.transcript_store.repository import TranscriptRepository


def register(
    broker: NatsBroker,
    repo: TranscriptRepository,
    subjects: Subjects,
    batch_size: int = 512,
    transcripts: TranscriptBucket | None = None,
) -> None:
    """Store every trial.completed and trial.graded; a trace cut to fit the bus is stored whole,
    fetched from ``transcripts`` (the cut copy is stored, and says so, when the fetch fails)."""

    @batch_subscriber(
        broker,
        subjects.trial_completed,
        subjects,
        durable="transcripts-trial-completed",
        batch_size=batch_size,
    )
    async def on_trial_completed(payloads: list[dict[str, Any]]) -> None:
        batch = await with_full_traces(
            transcripts, parse_batch(TrialCompleted, payloads, "transcripts-trial-completed")
        )
        with batch_spans("transcripts.store", batch):
            await repo.store_completed(batch)

    @batch_subscriber(
        broker, subjects.trial_graded, subjects, durable="transcripts-trial-graded", batch_size=batch_size
    )
    async def on_trial_graded(payloads: list[dict[str, Any]]) -> None:
        await repo.store_graded(parse_batch(TrialGraded, payloads, "transcripts-trial-graded"))
