"""The metrics service's bus subscribers."""

from __future__ import annotations

from typing import Any

from faststream.nats import NatsBroker

from agenteval.contracts.events import RunSubmitted, TrialGraded
from agenteval.metrics.service import MetricsService, as_failed
from agenteval.runtime.bus import batch_subscriber, parse_batch
from agenteval.runtime.telemetry import batch_spans


def register(broker: NatsBroker, service: MetricsService, batch_size: int = 512) -> None:
    subjects = service.subjects

    async def not_recorded(payload: bytes, reason: str) -> None:
        # A trial of a run that was never submitted is refused now rather than waited for.
        await service.on_graded(
            [as_failed(TrialGraded.model_validate_json(payload), reason)], wait_for_plan=False
        )

    @batch_subscriber(
        broker, subjects.run_submitted, subjects, durable="metrics-run-submitted", batch_size=64
    )
    async def on_run_submitted(payloads: list[dict[str, Any]]) -> None:
        await service.on_submitted(parse_batch(RunSubmitted, payloads, "metrics-run-submitted"))

    @batch_subscriber(
        broker,
        subjects.trial_graded,
        subjects,
        durable="metrics-trial-graded",
        batch_size=batch_size,
        on_dead=not_recorded,
    )
    async def on_trial_graded(payloads: list[dict[str, Any]]) -> None:
        batch = parse_batch(TrialGraded, payloads, "metrics-trial-graded")
        with batch_spans("metrics.record", batch):
            await service.on_graded(batch)
