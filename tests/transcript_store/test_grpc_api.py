"""Over the real gRPC server: trials carry each grader's verdict and explanation; traces take labels."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agenteval.contracts.errors import InvalidArgument, NotFound
from agenteval.contracts.events import GradeRecord, TrialCompleted, TrialGraded
from agenteval.contracts.records import TraceInfo
from agenteval.contracts.suite import Case
from agenteval.contracts.trace import Trace
from agenteval.importers import LABEL_HELP
from agenteval.runtime.grpc_server import GrpcServer
from agenteval.sdk import Client
from agenteval.storage import create_engine, upgrade
from agenteval.transcript_store.app import MIGRATIONS
from agenteval.transcript_store.grpc_api import TranscriptServicer
from agenteval.transcript_store.repository import DatasetRepository, TranscriptRepository
from agenteval.transcript_store.service import TranscriptService
from agenteval.v1 import transcripts_pb2, transcripts_pb2_grpc

EXAMPLE = Path(__file__).resolve().parents[2] / "examples/traces/generic_traces.jsonl"


def completed(i: int) -> TrialCompleted:
    trace = Trace(input=[{"role": "user", "content": "hi"}], output=f"answer {i}", latency_ms=5.0)
    return TrialCompleted(
        event_id=f"e{i}",
        run_id="r1",
        trial_id=f"r1/c/{i}",
        case=Case(id="c", input="hi"),
        graders=[],
        trial_index=i,
        trials_total=3,
        trace=trace,
    )


def graded(i: int) -> TrialGraded:
    grades = [
        GradeRecord(
            name="tool_called",
            params={"tool": "search"},
            score=1.0,
            passed=True,
            explanation="search was called once",
        ),
        GradeRecord(
            name="llm_judge",
            params={"rubric": "polite"},
            score=0.0 if i else 1.0,
            passed=not i,
            explanation="the answer is rude" if i else "the answer is polite",
            error="judge timed out" if i == 1 else None,
            input_tokens=120,
            output_tokens=30,
            cost_usd=0.002,
        ),
    ]
    return TrialGraded(
        event_id=f"g{i}",
        run_id="r1",
        trial_id=f"r1/c/{i}",
        case_id="c",
        trial_index=i,
        trials_total=3,
        status="ok",
        passed=not i,
        score=sum(g.score for g in grades) / len(grades),
        latency_ms=5.0,
        grades=grades,
    )


@pytest.fixture
async def client(db_url: str) -> AsyncIterator[Client]:
    """A transcript store with trials 0 and 1 graded and trial 2 not yet, behind a real gRPC server."""
    engine = create_engine(db_url)
    await upgrade(engine, "transcript_store", MIGRATIONS)
    repo = TranscriptRepository(engine)
    await repo.store_completed([completed(0), completed(1), completed(2)])
    await repo.store_graded([graded(0), graded(1)])
    server = GrpcServer()
    server.add(
        transcripts_pb2_grpc.add_TranscriptServiceServicer_to_server,
        TranscriptServicer(TranscriptService(repo, DatasetRepository(engine))),
        [transcripts_pb2.DESCRIPTOR.services_by_name["TranscriptService"].full_name],
    )
    await server.start()
    try:
        async with Client(server.target) as c:
            yield c
    finally:
        await server.stop(0)
        await engine.dispose()


async def test_list_and_get_trials_explain_every_grade(client: Client) -> None:
    trials = await client.trials("r1", with_traces=False)
    assert [t.trial_index for t in trials] == [0, 1, 2]
    assert all(t.trace is None for t in trials), "summaries carry no transcript"
    first, second, ungraded = trials
    assert first.passed is True and first.score == 1.0
    assert [g.name for g in first.grades] == ["tool_called", "llm_judge"]
    tool, judge = first.grades
    assert tool.params == {"tool": "search"}
    assert tool.passed and tool.score == 1.0 and tool.explanation == "search was called once"
    assert tool.error is None and tool.input_tokens == 0 and tool.cost_usd == 0.0
    assert judge.explanation == "the answer is polite"
    assert (judge.input_tokens, judge.output_tokens, judge.cost_usd) == (120, 30, 0.002)

    assert second.passed is False and second.score == 0.5
    failed = second.grades[1]
    assert not failed.passed and failed.score == 0.0
    assert failed.explanation == "the answer is rude" and failed.error == "judge timed out"

    # a trial not graded yet says so instead of looking failed
    assert ungraded.passed is None and ungraded.score is None and not ungraded.grades

    one = await client.trial("r1/c/1")
    assert one.trace == completed(1).trace, "the stored transcript comes back as it was recorded"
    assert [g.explanation for g in one.grades] == ["search was called once", "the answer is rude"]
    with pytest.raises(NotFound, match="r1/c/9"):
        await client.trial("r1/c/9")


async def label(client: Client, label: str) -> TraceInfo:
    return await client.label_trace("id-0", label, dataset="prod")


async def stored_label(client: Client) -> str | None:
    return (await client.trace("id-0", dataset="prod")).label


@pytest.fixture
async def labeled(client: Client) -> Client:
    """The store with dataset ``prod`` holding one trace, ``id-0``, labeled positive."""
    line = {"id": "id-0", "label": "positive", "trace": {"input": [{"role": "user", "content": "hi"}]}}
    report = await client.import_traces("prod", json.dumps(line).encode())
    assert report.imported == 1, report
    return client


async def test_label_trace_accepts_the_label_synonyms_of_imports(labeled: Client) -> None:
    assert (await label(labeled, "thumbs_down")).label == "negative"
    assert await stored_label(labeled) == "negative"
    assert (await label(labeled, "Good")).label == "positive"
    assert await stored_label(labeled) == "positive"


async def test_label_trace_rejects_an_unknown_label_and_keeps_the_old_one(labeled: Client) -> None:
    for bogus in ("meh", ""):
        with pytest.raises(InvalidArgument) as caught:
            await label(labeled, bogus)
        assert LABEL_HELP in str(caught.value), caught.value
        assert await stored_label(labeled) == "positive", f"label changed by a rejected {bogus!r}"


async def test_an_imported_trace_comes_back_whole(labeled: Client) -> None:
    [listed] = await labeled.traces("prod", with_traces=True)
    got = await labeled.trace("id-0")
    assert listed.trace == got.trace == Trace(input=[{"role": "user", "content": "hi"}])
    assert got.label == "positive" and got.dataset == "prod"
    [summary] = await labeled.traces("prod")
    assert summary.trace is None and summary.dataset_version == 1


async def test_generic_traces_import_whole_and_list_by_agent_and_rating(client: Client) -> None:
    """The shipped example, in every generic form, through ImportTraces; then ListTraces filters."""
    resp = await client._stubs.transcripts.ImportTraces(
        iter([transcripts_pb2.ImportTracesRequest(dataset="gen", chunk=EXAMPLE.read_bytes())])
    )
    assert (resp.format, list(resp.problems)) == ("generic", []), resp
    assert resp.imported == 8

    async def listed(**filters: str) -> tuple[list[str], int]:
        page = await client._stubs.transcripts.ListTraces(
            transcripts_pb2.ListTracesRequest(dataset="gen", limit=100, with_traces=True, **filters)
        )
        return sorted(t.trace_id for t in page.traces), page.total

    assert await listed(agent="travel-bot-v2") == (
        ["travel-001", "travel-002", "travel-003", "travel-004"],
        4,
    )
    assert await listed(agent="support-bot", label="negative") == (["support-001", "support-003"], 2)
    assert await listed(agent="support-bot", label="good") == (["support-002", "support-004"], 2)
    assert await listed(agent="no-such-bot") == ([], 0)
    assert (await listed())[1] == 8

    # the stored trace says where it came from, and holds each tool call once
    got = await client.trace("travel-004", dataset="gen")
    assert got.trace is not None
    trace = got.trace.to_eval_dict()
    assert trace["metadata"]["agent_id"] == "travel-bot-v2"
    assert [s["type"] for s in trace["steps"]] == [
        "llm_call",
        "tool_call",
        "llm_call",
        "tool_call",
        "llm_call",
    ]
    assert got.step_count == 5 and got.has_tool_calls
