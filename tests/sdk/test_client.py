"""The typed client against the real embedded stack: every method answers in contract models and
every refusal is a contract error, the way a script written against agenteval.sdk sees them."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from agenteval.cli.stack import EmbeddedStack
from agenteval.runtime.nats_server import free_port
from agenteval.sdk import (
    Client,
    EvalCodeReport,
    EvalInfo,
    GenerationEvent,
    GenerationJob,
    GenerationRequest,
    GradeRecord,
    ImportReport,
    InvalidArgument,
    LabeledTrace,
    NotFound,
    RunInfo,
    RunSummary,
    Suite,
    TraceInfo,
    TrialRecord,
    Unavailable,
)
from tests.fixtures.labeled_datasets import DATASETS

pytestmark = pytest.mark.asyncio(loop_scope="module")

SUITE = Suite.model_validate(
    {
        "name": "typed-client",
        "graders": [{"tool_called": {"tool": "lookup"}}],
        "cases": [
            {
                "id": "shout",
                "input": "hello",
                "tags": ["fast"],
                "graders": [{"output_contains": {"text": "HELLO"}}],
            },
            {"id": "never", "input": "hello", "graders": [{"output_contains": {"text": "goodbye"}}]},
        ],
    }
)

NO_ERRORS = """
def eval_no_errors(trace, ctx=None):
    failed = [c for c in trace["tool_calls"] if c.get("error")]
    return (0.0, f"{len(failed)} tool errors") if failed else (1.0, "no tool errors")
"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Client]:
    async with (
        EmbeddedStack(tmp_path_factory.mktemp("sdk") / "data", grpc_address="127.0.0.1:0") as stack,
        Client(stack.target) as c,
    ):
        yield c


async def test_a_run_from_submit_to_its_trials(client: Client) -> None:
    run = await client.submit(
        SUITE, agent="python:tests.agents:echo_tool", k=2, seed=5, agent_version="v-typed", request_id="sdk-1"
    )
    assert isinstance(run, RunInfo) and run.trials_total == 4 and run.k == 2
    again = await client.submit(SUITE, agent="python:tests.agents:echo_tool", k=2, request_id="sdk-1")
    assert again.run_id == run.run_id, "the same request id is the same run"

    done = await client.wait(run.run_id, timeout_s=120)
    assert done.status == "completed" and done.ended and done.trials_graded == 4
    assert done.created_at is not None and done.completed_at is not None
    summary = await client.summary(run.run_id)
    assert isinstance(summary, RunSummary) and summary == done.summary
    assert {c.case_id: c.passes for c in summary.cases} == {"shout": 2, "never": 0}
    assert summary.cases[0].pass_at_k.keys() == {1, 2}, "pass@k is keyed by int k"

    assert run.run_id in {r.run_id for r in await client.list_runs(suite="typed-client")}
    assert [r.run_id for r in await client.list_runs(agent_version="v-typed")] == [run.run_id]
    assert await client.list_runs(agent_version="no-such-version") == []

    trials = await client.trials(run.run_id)
    assert [(t.case_id, t.trial_index) for t in trials] == [
        ("never", 0),
        ("never", 1),
        ("shout", 0),
        ("shout", 1),
    ]
    shout = trials[2]
    assert isinstance(shout, TrialRecord) and shout.status == "ok" and shout.passed is True
    assert shout.trace is not None and shout.trace.output == "ANSWER: HELLO"
    [call, llm] = shout.trace.steps
    assert (call.type, call.name, call.arguments, call.result) == (
        "tool_call",
        "lookup",
        {"query": "hello"},
        {"answer": "HELLO"},
    )
    assert (llm.type, llm.model, llm.input_tokens) == ("llm_call", "claude-haiku-4-5", 100)
    assert shout.trace.usage.models == {"claude-haiku-4-5": {"input_tokens": 100, "output_tokens": 20}}
    grades = {g.name: g for g in shout.grades}
    assert isinstance(grades["output_contains"], GradeRecord)
    assert grades["output_contains"].params == {"text": "HELLO"} and grades["tool_called"].passed

    summaries = await client.trials(run.run_id, case_id="never", with_traces=False)
    assert [t.trial_index for t in summaries] == [0, 1] and all(t.trace is None for t in summaries)
    assert all(t.passed is False for t in summaries)
    assert await client.trials(run.run_id, status="error") == []
    assert await client.trial(shout.trial_id) == shout


async def test_a_cancelled_run_ends_cancelled(client: Client) -> None:
    slow = Suite.model_validate(
        {"name": "typed-slow", "cases": [{"id": f"c{i}", "input": "x"} for i in range(4)]}
    )
    run = await client.submit(slow, agent="python:tests.agents:blocking_slow", k=1, concurrency=1, tags=[])
    cancelled = await client.cancel_run(run.run_id)
    assert cancelled.status == "cancelled" and cancelled.ended
    assert (await client.wait(run.run_id, timeout_s=60)).status == "cancelled"


async def test_refusals_are_contract_errors(client: Client) -> None:
    with pytest.raises(NotFound, match="run-nope"):
        await client.get_run("run-nope")
    with pytest.raises(NotFound):
        await client.trial("run-nope/c/0")
    with pytest.raises(NotFound, match="no saved eval 'nope'"):
        await client.get_eval("nope")
    with pytest.raises(InvalidArgument, match="missing"):
        await client.submit(SUITE, agent="python:tests.agents:missing")
    with pytest.raises(InvalidArgument, match="unknown grader"):
        await client.submit(
            Suite.model_validate(
                {"name": "bad", "cases": [{"id": "c", "input": "x", "graders": ["tool_caled"]}]}
            ),
            agent="python:tests.agents:echo_tool",
        )
    async with Client(f"127.0.0.1:{free_port()}") as nowhere:
        with pytest.raises(Unavailable, match="unavailable"):
            await nowhere.list_runs()


async def test_labeled_traces_import_label_and_test_eval_code(client: Client, tmp_path: Path) -> None:
    data = DATASETS["support_tool_errors"](n=40, seed=2)
    lines = [
        json.dumps({"id": f"t{i}", "trace": t, "label": "positive" if ok else "negative"})
        for i, (t, ok) in enumerate(zip(data.traces, data.labels, strict=True))
    ]
    report = await client.import_traces("sdk-prod", "\n".join([*lines[:30], "{not json"]).encode())
    assert isinstance(report, ImportReport) and (report.imported, report.duplicates) == (30, 0)
    assert [(p.line, p.unit) for p in report.problems] == [(31, "line")] and report.format == "jsonl"
    path = tmp_path / "more.jsonl"
    path.write_text("\n".join(lines) + "\n")
    again = await client.import_traces("sdk-prod", path, format="jsonl")
    assert (again.imported, again.duplicates, again.problems) == (10, 30, [])
    assert again.dataset_version > report.dataset_version

    listed = await client.traces("sdk-prod", limit=100)
    assert len(listed) == 40 and all(isinstance(t, TraceInfo) and t.trace is None for t in listed)
    negatives = await client.traces("sdk-prod", label="negative", with_traces=True, limit=100)
    assert negatives and all(t.label == "negative" and t.trace is not None for t in negatives)
    some = await client.traces("sdk-prod", trace_ids=["t1", "t2"])
    assert [t.trace_id for t in some] == ["t1", "t2"]

    first = await client.trace("t0", dataset="sdk-prod")
    anywhere = await client.trace("t0")  # the id alone finds it in whichever dataset holds it
    assert first.trace is not None and first.trace == anywhere.trace
    relabeled = await client.label_trace("t0", "thumbs_up", dataset="sdk-prod", comment="fine", rater="me")
    assert (relabeled.label, relabeled.comment, relabeled.rater) == ("positive", "fine", "me")
    assert relabeled.dataset_version > again.dataset_version

    full = await client.traces("sdk-prod", labeled_only=True, with_traces=True, limit=100)
    labeled = [LabeledTrace(trace_id=t.trace_id, trace=t.trace, label=t.label) for t in full]
    checked = await client.test_eval_code(NO_ERRORS, labeled)
    assert isinstance(checked, EvalCodeReport) and checked.total == 40 and checked.code_error is None
    # The code says negative exactly when a tool call failed: its mismatches are the traces
    # whose label says otherwise, each reported with both labels.
    fails = {t.trace_id for t in labeled if any(c.error for c in t.trace.tool_calls)}
    wrong = {t.trace_id for t in labeled if (t.trace_id in fails) != (t.label == "negative")}
    assert {m.trace_id for m in checked.mismatches} == wrong and checked.incorrect == len(wrong)
    assert all(m.predicted != m.expected and m.score is not None for m in checked.mismatches)
    assert checked.accuracy == pytest.approx((40 - len(wrong)) / 40)
    broken = await client.test_eval_code("import socket\n" + NO_ERRORS, labeled[:3])
    assert broken.code_error is not None and "socket" in broken.code_error


async def test_saved_evals_are_listed_with_their_split(client: Client) -> None:
    data = DATASETS["support_tool_errors"](n=60, seed=5)
    lines = "\n".join(
        json.dumps({"id": f"e{i}", "trace": t, "label": "positive" if ok else "negative"})
        for i, (t, ok) in enumerate(zip(data.traces, data.labels, strict=True))
    )
    await client.import_traces("sdk-evals", lines.encode())
    # One call: the job is started, followed, and returned as it ended.
    events: list[GenerationEvent] = []
    job = await client.generate_eval(
        GenerationRequest(name="sdk_errors", dataset="sdk-evals", method="synthesizer", seed=3),
        on_event=events.append,
    )
    assert isinstance(job, GenerationJob) and job.status == "done" and job.eval_version == 1, job
    assert events[0].type == "started" and events[-1].type == "saved", [e.type for e in events]

    saved = await client.get_eval("sdk_errors")
    assert isinstance(saved, EvalInfo) and saved.version == 1 and saved.generator == "synthesizer"
    assert "def eval_sdk_errors" in saved.code and saved.dataset == "sdk-evals"
    assert saved.split is not None and saved.split.seed == 3
    assert sorted(saved.split.train + saved.split.holdout) == sorted(f"e{i}" for i in range(60))
    assert await client.get_eval("sdk_errors", 1) == saved
    assert await client.list_evals("sdk_errors") == [saved]
    assert "sdk_errors" in {e.name for e in await client.list_evals()}
