"""Transcripts larger than a NATS message: graded and stored whole, by reference through the
transcripts bucket (real NATS, real SQLite); a bucket that fails costs detail, never a trial."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import nats
from faststream.nats import NatsBroker

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.events import Event, TraceRef, TrialCompleted, TrialGraded
from agenteval.contracts.subjects import Subjects
from agenteval.contracts.suite import Case, GraderSpec, Suite
from agenteval.contracts.trace import Step, Trace
from agenteval.grader import handlers as grader_handlers
from agenteval.grader.service import GraderService
from agenteval.runtime import bus
from agenteval.runtime.transcript_bucket import TranscriptBucket
from agenteval.sdk import Client
from agenteval.storage import create_engine, upgrade
from agenteval.transcript_store import handlers as store_handlers
from agenteval.transcript_store.app import MIGRATIONS
from agenteval.transcript_store.repository import DatasetRepository, TranscriptRepository
from agenteval.transcript_store.service import TranscriptService

ANSWER = "The order total is 987654.32."

SUITE = Suite.model_validate(
    {
        "name": "large",
        "trials": 2,
        "cases": [
            {
                "id": "report",
                "input": "what is the order total?",
                # Both facts lie past where a transcript cut to fit the bus ends.
                "graders": [
                    {"output_contains": {"text": ANSWER}},
                    {"grounding": {}},
                    {"tool_called": {"tool": "fetch_report"}},
                ],
            }
        ],
    }
)


async def test_a_multi_megabyte_transcript_is_graded_and_stored_whole(tmp_path: Path) -> None:
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        run = await client.submit(SUITE, agent="python:tests.agents:huge_report", seed=1)
        _events = [ev async for ev in client.watch(run.run_id)]
        summary = await client.summary(run.run_id)
        assert summary is not None and (summary.trials, summary.errors) == (2, 0)
        # run.completed means every trial is graded; the store keeps transcripts on its own
        # consumer (here fetching megabytes from the bucket), so it may finish a moment later.
        async with asyncio.timeout(30):
            while len(trials := await client.trials(run.run_id)) < 2 or not all(
                t.trace is not None and t.passed is not None for t in trials
            ):
                await asyncio.sleep(0.05)
        for t in trials:
            failed = [(g.name, g.explanation) for g in t.grades if not g.passed]
            assert t.passed, f"graders saw a cut transcript: {failed}"
            stored = t.trace
            assert stored is not None
            assert "truncated" not in stored.metadata and "full_trace_unavailable" not in stored.metadata
            [call] = stored.tool_calls
            assert call.result == "filler line\n" * 250_000 + "order total: 987654.32\n"
            assert stored.output == "Summary follows. " + "z" * 1_000_000 + " " + ANSWER
        assert summary.passes == 2


def completed(i: int, trace: Trace, ref: TraceRef | None) -> TrialCompleted:
    return TrialCompleted(
        event_id=f"trial.completed:r/c/{i}",
        run_id="r",
        trial_id=f"r/c/{i}",
        case=Case(id="c", input="hi"),
        graders=[GraderSpec(name="output_contains", params={"text": "the end"})],
        trial_index=i,
        trials_total=2,
        trace=trace,
        full_trace=ref,
    )


class Recorder:
    def __init__(self) -> None:
        self.sent: list[Event] = []

    async def __call__(self, subject: str, events: Sequence[Event]) -> None:
        self.sent.extend(events)


async def test_grader_and_store_fall_back_to_the_cut_trace_when_the_full_one_is_gone(
    nats_url: str, bus_prefix: str, tmp_path: Path
) -> None:
    subjects = Subjects(bus_prefix)
    nc: Any = await nats.connect(nats_url)
    engine = create_engine(f"sqlite:///{tmp_path / 'transcripts.db'}")
    try:
        await upgrade(engine, "transcript_store", MIGRATIONS)
        repo = TranscriptRepository(engine)
        bucket = TranscriptBucket(lambda: nc, subjects)
        full = Trace(
            steps=[Step(type="tool_call", name="dump", result="x" * 2_000_000)], output="x" * 10 + " the end"
        )
        cut = Trace(output="xxxx... [cut]", metadata={"truncated": True})
        kept = completed(0, cut, await bucket.put("r/c/0", full))
        gone = completed(1, cut, TraceRef(bucket=bucket.name, key="r/c/1", size_bytes=123))
        payloads = [kept.model_dump_json().encode(), gone.model_dump_json().encode()]

        broker = NatsBroker()
        graded = Recorder()
        grader_handlers.register(broker, GraderService(), subjects, graded, transcripts=bucket)
        store_handlers.register(
            broker, TranscriptService(repo, DatasetRepository(engine)), subjects, transcripts=bucket
        )
        specs = {s.durable: s for s in bus._batch_specs.pop(id(broker))}
        await specs["grader-trial-completed"].handler(payloads)
        await specs["transcripts-trial-completed"].handler(payloads)

        by_trial = {g.trial_id: g for g in graded.sent if isinstance(g, TrialGraded)}
        assert by_trial["r/c/0"].passed, "the full trace was graded"
        assert not by_trial["r/c/1"].passed, "the cut trace was graded, not dropped"
        row0, row1 = await repo.get_trial("r/c/0"), await repo.get_trial("r/c/1")
        assert row0 is not None and row1 is not None
        assert Trace.model_validate_json(row0["trace_json"]) == full
        stored = Trace.model_validate_json(row1["trace_json"])
        assert stored.output == cut.output and stored.metadata["truncated"] is True
        assert "ObjectNotFoundError" in stored.metadata["full_trace_unavailable"]
    finally:
        await engine.dispose()
        await nc.close()
