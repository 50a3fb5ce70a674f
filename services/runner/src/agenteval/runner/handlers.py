"""The runner's bus subscribers."""

from __future__ import annotations

from typing import Any

from faststream.nats import NatsBroker

from agenteval.contracts.events import RunCancelled, RunCompleted, RunProgressed, RunSubmitted, TrialRequested
from agenteval.runner.service import RunnerService
from agenteval.runtime.bus import batch_subscriber, concurrent_subscriber, parse_batch
from agenteval.runtime.telemetry import event_span


def register(broker: NatsBroker, service: RunnerService) -> None:
    subjects = service.subjects

    @batch_subscriber(
        broker,
        subjects.run_submitted,
        subjects,
        durable="runner-run-submitted",
        batch_size=16,
        on_dead=service.fail_submitted,
    )
    async def on_run_submitted(payloads: list[dict[str, Any]]) -> None:
        for ev in parse_batch(RunSubmitted, payloads, "runner-run-submitted"):
            with event_span("runner.expand", ev):
                await service.expand(ev)

    @concurrent_subscriber(
        broker,
        subjects.trial_requested,
        subjects,
        durable="runner-trial-requested",
        max_workers=service.settings.concurrency,
        ack_wait_s=service.settings.trial_ack_wait_s,
        on_dead=service.fail_trial,
    )
    async def on_trial_requested(payload: bytes) -> None:
        for req in parse_batch(TrialRequested, [payload], "runner-trial-requested"):
            with event_span("runner.trial", req, case_id=req.case.id, trial_index=req.trial_index):
                await service.execute(req)

    @batch_subscriber(broker, subjects.run_progressed, subjects, durable="runner-run-progressed")
    async def on_run_progressed(payloads: list[dict[str, Any]]) -> None:
        await service.on_progress(parse_batch(RunProgressed, payloads, "runner-run-progressed"))

    @batch_subscriber(broker, subjects.run_completed, subjects, durable="runner-run-completed")
    async def on_run_completed(payloads: list[dict[str, Any]]) -> None:
        for summary in await service.on_completed(
            parse_batch(RunCompleted, payloads, "runner-run-completed")
        ):
            await service.tell_webhooks(summary)

    # Every replica must learn of a cancel: a plain (non-durable, non-shared) subscription.
    # It must not answer: run.cancelled is published to the stream with the publisher's ack
    # inbox as reply subject, and an empty answer there would read as a failed publish.
    @broker.subscriber(subjects.run_cancelled, no_reply=True)
    async def on_run_cancelled(payload: dict[str, Any]) -> None:
        for ev in parse_batch(RunCancelled, [payload], "runner-run-cancelled"):
            service.on_cancelled(ev.run_id)
