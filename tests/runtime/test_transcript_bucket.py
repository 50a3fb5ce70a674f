"""The transcripts bucket on a real NATS server: full traces in, full traces out, by trial id."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import nats
import pytest

from agenteval.contracts.errors import Unavailable
from agenteval.contracts.events import TraceRef, TrialCompleted
from agenteval.contracts.subjects import Subjects
from agenteval.contracts.suite import Case
from agenteval.contracts.trace import Step, Trace
from agenteval.runtime.transcript_bucket import TranscriptBucket, bucket_name, with_full_traces

BIG = "x" * 3_000_000 + " the tail nobody cut"


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[Any]:
    conn = await nats.connect(nats_url)
    yield conn
    await conn.close()


def big_trace() -> Trace:
    return Trace(
        steps=[Step(type="tool_call", name="dump", result=BIG)],
        output="done",
        metadata={"seed": 1},
    )


def completed(trial_id: str, trace: Trace, ref: TraceRef | None) -> TrialCompleted:
    return TrialCompleted(
        event_id=f"trial.completed:{trial_id}",
        run_id="r",
        trial_id=trial_id,
        case=Case(id="c", input="hi"),
        graders=[],
        trial_index=0,
        trials_total=1,
        trace=trace,
        full_trace=ref,
    )


async def test_a_multi_megabyte_trace_comes_back_whole(nc: Any, bus_prefix: str) -> None:
    subjects = Subjects(bus_prefix)
    bucket = TranscriptBucket(lambda: nc, subjects)
    trace = big_trace()
    ref = await bucket.put("run-1/case a/0", trace)
    assert ref.bucket == bucket_name(subjects) == f"{subjects.stream}_TRANSCRIPTS"
    assert ref.key == "run-1/case a/0" and ref.size_bytes == len(trace.model_dump_json())
    # Another service (its own bucket object) finds the bucket the first one created.
    back = await TranscriptBucket(lambda: nc, subjects).get(ref)
    assert back == trace and back.tool_calls[0].result.endswith("the tail nobody cut")


async def test_the_same_trial_stored_again_replaces_it(nc: Any, bus_prefix: str) -> None:
    bucket = TranscriptBucket(lambda: nc, Subjects(bus_prefix))
    await bucket.put("r/c/0", Trace(output="first"))
    ref = await bucket.put("r/c/0", Trace(output="second"))
    assert (await bucket.get(ref)).output == "second"


async def test_a_missing_trace_or_connection_raises(nc: Any, bus_prefix: str) -> None:
    from nats.js.errors import NotFoundError

    bucket = TranscriptBucket(lambda: nc, Subjects(bus_prefix))
    await bucket.put("r/c/0", Trace(output="there"))
    with pytest.raises(NotFoundError):
        await bucket.get(TraceRef(bucket=bucket.name, key="r/c/9", size_bytes=1))
    with pytest.raises(Unavailable):
        await TranscriptBucket(lambda: None, Subjects(bus_prefix)).put("r/c/0", Trace())


async def test_events_get_their_full_traces_and_a_failed_fetch_keeps_the_cut_one(
    nc: Any, bus_prefix: str
) -> None:
    bucket = TranscriptBucket(lambda: nc, Subjects(bus_prefix))
    full = big_trace()
    ref = await bucket.put("r/c/0", full)
    cut = Trace(output="done", metadata={"truncated": True})
    small = completed("r/c/1", Trace(output="small"), None)
    lost = completed("r/c/2", cut, TraceRef(bucket=bucket.name, key="r/c/2", size_bytes=10))
    batch = [completed("r/c/0", cut, ref), small, lost]

    resolved = await with_full_traces(bucket, batch)
    assert [d.trial_id for d in resolved] == ["r/c/0", "r/c/1", "r/c/2"]
    assert resolved[0].trace == full and resolved[1] is small
    assert resolved[2].trace.output == "done" and resolved[2].trace.metadata["truncated"] is True
    assert "ObjectNotFoundError" in resolved[2].trace.metadata["full_trace_unavailable"]

    # No bucket at all (a broker outside a host): every trial still comes through, cut.
    resolved = await with_full_traces(None, batch)
    assert [d.trace.metadata.get("full_trace_unavailable") is not None for d in resolved] == [
        True,
        False,
        True,
    ]
