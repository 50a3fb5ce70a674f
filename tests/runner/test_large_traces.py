"""A trace too large for the bus: whole in the transcripts bucket, a cut copy on the event,
and only the cut copy (never a lost trial) when the bucket fails. Real NATS throughout."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

import nats
import pytest
from prometheus_client import REGISTRY

from agenteval.contracts.events import Event, TrialCompleted, TrialRequested
from agenteval.contracts.subjects import Subjects
from agenteval.contracts.suite import Case
from agenteval.runner.executor import MAX_TRACE_BYTES
from agenteval.runner.repository import RunRepository
from agenteval.runner.service import RunnerService
from agenteval.runner.settings import RunnerSettings
from agenteval.runtime.transcript_bucket import TranscriptBucket, bucket_name


class Recorder:
    def __init__(self) -> None:
        self.sent: list[Event] = []

    async def __call__(self, subject: str, events: Sequence[Event]) -> None:
        self.sent.extend(events)


class NoRepo(RunRepository):
    def __init__(self) -> None:
        pass


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[Any]:
    conn = await nats.connect(nats_url)
    yield conn
    await conn.close()


def request(agent: str) -> TrialRequested:
    return TrialRequested(
        event_id="trial.requested:r/c/0",
        run_id="r",
        trial_id="r/c/0",
        case=Case(id="c", input="hi"),
        graders=[],
        trial_index=0,
        trials_total=1,
        agent=agent,
        timeout_s=30,
    )


def oversized() -> dict[str, float]:
    """agenteval_runner_oversized_traces_total by how the trace was sent."""
    return {
        sent: REGISTRY.get_sample_value("agenteval_runner_oversized_traces_total", {"sent": sent}) or 0.0
        for sent in ("by_reference", "cut_only")
    }


def moved(before: dict[str, float]) -> dict[str, float]:
    return {sent: n - before[sent] for sent, n in oversized().items()}


async def run_one(agent: str, bucket: TranscriptBucket | None) -> TrialCompleted:
    sent = Recorder()
    service = RunnerService(NoRepo(), RunnerSettings(), Subjects("unit"), sent, bucket)
    try:
        await service.execute(request(agent))
    finally:
        await service.close()
    [done] = sent.sent
    assert isinstance(done, TrialCompleted)
    assert len(done.model_dump_json()) < 1024 * 1024, "trial.completed must fit a NATS message"
    return done


async def test_an_oversized_trace_travels_by_reference_with_a_cut_copy(nc: Any, bus_prefix: str) -> None:
    bucket = TranscriptBucket(lambda: nc, Subjects(bus_prefix))
    before = oversized()
    done = await run_one("python:tests.agents:huge_output", bucket)
    assert done.full_trace is not None and done.full_trace.key == "r/c/0"
    assert moved(before) == {"by_reference": 1, "cut_only": 0}, "the trace sent by reference was not counted"
    assert done.trace.metadata["truncated"] is True
    assert len(done.trace.model_dump_json()) <= MAX_TRACE_BYTES
    full = await bucket.get(done.full_trace)
    assert full.tool_calls[0].result == "x" * 3_000_000
    assert full.output == "done " + "y" * 2_000_000
    assert "truncated" not in full.metadata
    assert done.full_trace.size_bytes == len(full.model_dump_json())


async def test_a_trace_that_fits_travels_whole_without_the_bucket(nc: Any, bus_prefix: str) -> None:
    bucket = TranscriptBucket(lambda: nc, Subjects(bus_prefix))
    before = oversized()
    done = await run_one("python:tests.agents:echo_tool", bucket)
    assert done.full_trace is None and "truncated" not in done.trace.metadata
    assert moved(before) == {"by_reference": 0, "cut_only": 0}, "a trace that fits counted as oversized"
    js = nc.jetstream()
    from nats.js.errors import BucketNotFoundError

    with pytest.raises(BucketNotFoundError):  # nothing was stored, not even a bucket made
        await js.object_store(bucket_name(Subjects(bus_prefix)))


async def test_a_failed_put_falls_back_to_the_cut_trace_and_is_logged(
    nc: Any, bus_prefix: str, caplog: pytest.LogCaptureFixture
) -> None:
    subjects = Subjects(bus_prefix)
    # A bucket too small for the trace: the put is refused by the server.
    await nc.jetstream().create_object_store(bucket_name(subjects), max_bytes=64 * 1024)
    bucket = TranscriptBucket(lambda: nc, subjects)
    before = oversized()
    with caplog.at_level(logging.WARNING, logger="agenteval.runner"):
        done = await run_one("python:tests.agents:huge_output", bucket)
    assert done.full_trace is None
    assert moved(before) == {"by_reference": 0, "cut_only": 1}, "the cut-only trace was not counted"
    assert done.trace.status == "ok" and done.trace.metadata["truncated"] is True
    assert "characters cut" in done.trace.tool_calls[0].result
    assert any("could not store a full trace" in r.getMessage() for r in caplog.records)


async def test_without_a_bucket_the_cut_trace_travels_alone() -> None:
    before = oversized()
    done = await run_one("python:tests.agents:huge_output", None)
    assert done.full_trace is None and done.trace.metadata["truncated"] is True
    assert moved(before) == {"by_reference": 0, "cut_only": 1}
