"""`agent-eval trials` shows every grader's verdict and explanation, read over gRPC from a running store."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agenteval.contracts.events import GradeRecord, TrialCompleted, TrialGraded
from agenteval.contracts.suite import Case
from agenteval.contracts.trace import Step, Trace
from agenteval.runtime.grpc_server import GrpcServer
from agenteval.storage import create_engine, upgrade
from agenteval.transcript_store.app import MIGRATIONS
from agenteval.transcript_store.grpc_api import TranscriptServicer
from agenteval.transcript_store.repository import DatasetRepository, TranscriptRepository
from agenteval.transcript_store.service import TranscriptService
from agenteval.v1 import transcripts_pb2, transcripts_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]


def completed(case_id: str, i: int) -> TrialCompleted:
    trace = Trace(
        input=[{"role": "user", "content": "refund please"}],
        output=f"refunded {i}",
        steps=[Step(type="tool_call", name="refund", arguments={"amount": 10})],
        latency_ms=7.0,
    )
    return TrialCompleted(
        event_id=f"e-{case_id}-{i}",
        run_id="run1",
        trial_id=f"run1/{case_id}/{i}",
        case=Case(id=case_id, input="refund please"),
        graders=[],
        trial_index=i,
        trials_total=2,
        trace=trace,
    )


def graded(case_id: str, i: int, passed: bool) -> TrialGraded:
    grades = [
        GradeRecord(
            name="tool_called",
            params={"tool": "refund"},
            score=1.0,
            passed=True,
            explanation="refund was called once",
        ),
        GradeRecord(
            name="output_contains",
            params={"text": "sorry"},
            score=float(passed),
            passed=passed,
            explanation="the output says sorry" if passed else "the output never says 'sorry'",
        ),
    ]
    return TrialGraded(
        event_id=f"g-{case_id}-{i}",
        run_id="run1",
        trial_id=f"run1/{case_id}/{i}",
        case_id=case_id,
        trial_index=i,
        trials_total=2,
        status="ok",
        passed=passed,
        score=sum(g.score for g in grades) / 2,
        latency_ms=7.0,
        grades=grades,
    )


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[str]:
    """A transcript store over gRPC: case `refund` graded (one pass, one fail), case `other` not yet."""
    engine = create_engine(f"sqlite:///{tmp_path / 't.db'}")
    await upgrade(engine, "transcript_store", MIGRATIONS)
    repo = TranscriptRepository(engine)
    await repo.store_completed([completed("refund", 0), completed("refund", 1), completed("other", 0)])
    await repo.store_graded([graded("refund", 0, True), graded("refund", 1, False)])
    grpc_server = GrpcServer()
    grpc_server.add(
        transcripts_pb2_grpc.add_TranscriptServiceServicer_to_server,
        TranscriptServicer(TranscriptService(repo, DatasetRepository(engine))),
        [transcripts_pb2.DESCRIPTOR.services_by_name["TranscriptService"].full_name],
    )
    await grpc_server.start()
    try:
        yield grpc_server.target
    finally:
        await grpc_server.stop(0)
        await engine.dispose()


async def agent_eval(*args: str) -> tuple[int, str, str]:
    """The CLI in a subprocess, while this loop keeps serving gRPC."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agenteval.cli",
        *args,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "COLUMNS": "200"},
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_trials_json_gives_each_graders_verdict_and_explanation(server: str) -> None:
    code, out, err = await agent_eval("trials", "run1", "--case", "refund", "--json", "--server", server)
    assert code == 0, err
    trials = json.loads(out)["trials"]
    assert [t["trial_id"] for t in trials] == ["run1/refund/0", "run1/refund/1"]
    assert [t["passed"] for t in trials] == [True, False]
    assert [t["score"] for t in trials] == [1.0, 0.5]
    failing = trials[1]["grades"]
    assert [g["name"] for g in failing] == ["tool_called", "output_contains"]
    assert failing[1] == {
        "name": "output_contains",
        "params": {"text": "sorry"},
        "score": 0.0,
        "passed": False,
        "explanation": "the output never says 'sorry'",
        "error": None,
        "input_tokens": 0,
        "output_tokens": 0,
        "cost_usd": 0.0,
    }

    code, out, err = await agent_eval("trials", "run1", "--case", "other", "--json", "--server", server)
    assert code == 0, err
    (ungraded,) = json.loads(out)["trials"]
    assert ungraded["passed"] is None and ungraded["score"] is None and ungraded["grades"] == []


async def test_trials_table_prints_each_graders_verdict_and_explanation(server: str) -> None:
    code, out, err = await agent_eval("trials", "run1", "--server", server)
    assert code == 0, err
    assert "not graded" in out, f"the ungraded trial should say so:\n{out}"
    lines = out.splitlines()
    # Below the table, each graded trial's verdict, then every grader's with its explanation.
    failing = lines.index("run1/refund/1 fail")
    assert lines[failing + 1] == '  pass tool_called {"tool": "refund"} 1.00: refund was called once'
    assert (
        lines[failing + 2] == '  fail output_contains {"text": "sorry"} 0.00: the output never says \'sorry\''
    )
