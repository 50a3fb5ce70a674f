"""Transcripts are stored once per trial, with their grades, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from agenteval.contracts.events import GradeRecord, TrialCompleted, TrialGraded
from agenteval.contracts.suite import Case
from agenteval.contracts.trace import Step, Trace
from agenteval.storage import create_engine, upgrade
from agenteval.transcript_store.app import MIGRATIONS
from agenteval.transcript_store.repository import TranscriptRepository


def completed(i: int, status: str = "ok") -> TrialCompleted:
    trace = Trace(
        input=[{"role": "user", "content": "hi"}],
        output=f"answer {i}",
        status=status,
        steps=[Step(type="tool_call", name="search", arguments={"q": i})],
        latency_ms=5.0 + i,
    )
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
    return TrialGraded(
        event_id=f"g{i}",
        run_id="r1",
        trial_id=f"r1/c/{i}",
        case_id="c",
        trial_index=i,
        trials_total=3,
        status="ok",
        passed=i == 0,
        score=float(i == 0),
        latency_ms=5.0 + i,
        grades=[GradeRecord(name="x", score=float(i == 0), passed=i == 0, explanation="why")],
    )


@pytest.fixture
async def repo(db_url: str):
    engine = create_engine(db_url)
    await upgrade(engine, "transcript_store", MIGRATIONS)
    await upgrade(engine, "transcript_store", MIGRATIONS)  # migrations are re-runnable
    yield TranscriptRepository(engine)
    await engine.dispose()


async def test_store_twice_keeps_one_row_and_grades_attach_in_any_order(repo: TranscriptRepository) -> None:
    await repo.store_graded([graded(2)])  # grade arrives before its transcript
    await repo.store_completed([completed(0), completed(1), completed(2, "error")])
    await repo.store_completed([completed(0)])
    await repo.store_graded([graded(0), graded(1), graded(0)])
    rows, total = await repo.list_trials("r1")
    assert total == 3
    assert [r["trial_index"] for r in rows] == [0, 1, 2]
    assert [r["passed"] for r in rows] == [True, False, False]
    assert all(r["trace_json"] for r in rows)
    trace = Trace.model_validate_json(rows[2]["trace_json"])
    assert trace.output == "answer 2" and trace.tool_calls[0].arguments == {"q": 2}
    errors, n = await repo.list_trials("r1", status="error")
    assert n == 1 and errors[0]["trial_id"] == "r1/c/2"
    one = await repo.get_trial("r1/c/1")
    assert one is not None and one["score"] == 0.0
    assert await repo.get_trial("nope") is None
