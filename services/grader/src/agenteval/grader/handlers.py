"""The grader's bus subscribers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from faststream.nats import NatsBroker

from agenteval.contracts.events import TrialCompleted, TrialGraded
from agenteval.contracts.subjects import Subjects
from agenteval.grader.service import GraderService
from agenteval.runtime.bus import batch_subscriber, parse_batch
from agenteval.runtime.transcript_bucket import TranscriptBucket, with_full_traces


def register(
    broker: NatsBroker,
    service: GraderService,
    subjects: Subjects,
    publish: Callable[[str, Sequence[TrialGraded]], Awaitable[None]],
    batch_size: int = 256,
    transcripts: TranscriptBucket | None = None,
    batches_in_flight: int = 1,
) -> None:
    """Grade every trial.completed; a trace cut to fit the bus is graded whole, fetched from
    ``transcripts`` (the cut copy is graded, and says so, when the fetch fails)."""

    async def not_graded(payload: bytes, reason: str) -> None:
        """A trial that could not be graded after the delivery limit: failed, saying why."""
        done = TrialCompleted.model_validate_json(payload)
        await publish(subjects.trial_graded, [service.grading_failed(done, reason)])

    @batch_subscriber(
        broker,
        subjects.trial_completed,
        subjects,
        durable="grader-trial-completed",
        batch_size=batch_size,
        batches_in_flight=batches_in_flight,
        on_dead=not_graded,
    )
    async def on_trial_completed(payloads: list[dict[str, Any]]) -> None:
        batch = await with_full_traces(
            transcripts, parse_batch(TrialCompleted, payloads, "grader-trial-completed")
        )
        graded = await service.grade_many(batch)
        await publish(subjects.trial_graded, graded)
