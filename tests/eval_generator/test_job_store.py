"""The eval generator's tables on SQLite and PostgreSQL: one instance holds a job at a time, a
lost lease means the job is someone else's (and what the old holder would save is not),
events are numbered per job, and evals saved before jobs existed stay what eval:NAME uses."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from agenteval.contracts.errors import NotFound
from agenteval.eval_generator.app import MIGRATIONS
from agenteval.eval_generator.models import evals
from agenteval.eval_generator.repository import EvalRepository, JobRepository, LostJob
from agenteval.storage import create_engine, upgrade


@pytest.fixture
async def engine(db_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(db_url)
    await upgrade(engine, "eval_generator", MIGRATIONS)
    yield engine
    await engine.dispose()


def eval_fields(name: str = "e", **extra: object) -> dict[str, object]:
    return {
        "name": name,
        "code": f"def eval_{name}(trace, ctx=None):\n    return 1.0, ''\n",
        "generator": "synthesizer",
        "train_accuracy": 0.9,
        "holdout_accuracy": 0.9,
        "dataset": "d",
        "dataset_version": 1,
        "split_json": "{}",
        "description": "",
        "created_at": datetime.now(UTC),
        **extra,
    }


async def test_one_holder_at_a_time_and_a_lost_lease_saves_nothing(engine: AsyncEngine) -> None:
    jobs = JobRepository(engine)
    await jobs.create("j1", "e", "d", "{}")

    a, b = await asyncio.gather(jobs.claim_next("a", 30, set()), jobs.claim_next("b", 30, set()))
    assert [j for j in (a, b) if j is not None] != [] and (a is None or b is None), "claimed twice"
    holder = "a" if a else "b"
    assert await jobs.claim_next("c", 30, set()) is None, "a live lease is not taken"
    assert await jobs.heartbeat(holder, ["j1"]) == []

    # the holder goes silent: after the lease another instance takes the job, as a second run
    await asyncio.sleep(0.05)
    taken = await jobs.claim_next("c", 0.01, set())
    assert taken is not None and (taken["owner"], taken["runs"]) == ("c", 2)
    assert await jobs.heartbeat(holder, ["j1"]) == ["j1"], "the old holder learns the job is gone"
    with pytest.raises(LostJob):
        await jobs.finish(
            "j1",
            holder,
            status="done",
            event={"type": "saved", "message": "v{version}"},
            job_fields={},
            save_eval=eval_fields(),
        )
    assert await EvalRepository(engine).list() == [], "a lost job's eval is rolled back"

    saved = await jobs.finish(
        "j1",
        "c",
        status="done",
        event={"type": "saved", "message": "saved v{version}"},
        job_fields={"outcome": "promoted"},
        save_eval={**eval_fields(), "status": "active", "promoted_at": datetime.now(UTC)},
    )
    assert saved is not None and saved["version"] == 1
    job = await jobs.get("j1")
    assert job is not None and (job["status"], job["eval_version"], job["outcome"]) == ("done", 1, "promoted")
    [event] = await jobs.events("j1")
    assert (event["seq"], event["message"], event["eval_version"]) == (1, "saved v1", 1)


async def test_events_are_numbered_per_job_and_cancel_and_release_move_the_job(engine: AsyncEngine) -> None:
    jobs = JobRepository(engine)
    for job_id in ("j1", "j2"):
        await jobs.create(job_id, "e", "d", "{}")
    seqs = await asyncio.gather(
        *[jobs.append_event("j1", {"type": "thinking", "message": str(i)}) for i in range(5)]
    )
    assert sorted(seqs) == [1, 2, 3, 4, 5]
    assert await jobs.append_event("j2", {"type": "thinking", "message": "x"}) == 1
    assert [e["seq"] for e in await jobs.events("j1", after=3)] == [4, 5]

    cancelled = await jobs.request_cancel("j2")  # queued: cancelled at once
    assert cancelled is not None and cancelled["status"] == "cancelled"
    assert (await jobs.events("j2"))[-1]["type"] == "cancelled"
    assert await jobs.claim_next("a", 30, set()) is not None  # j1; j2 is not claimable
    assert await jobs.claim_next("a", 30, set()) is None

    running = await jobs.request_cancel("j1")  # running: its holder sees the request
    assert running is not None and running["status"] == "running" and running["cancel_requested"]
    assert await jobs.heartbeat("a", ["j1"]) == ["j1"]

    await jobs.create("j3", "e", "d", "{}")
    assert (await jobs.claim_next("b", 30, set()))["job_id"] == "j3"  # type: ignore[index]
    assert await jobs.release("j3", "b", "stopping", {"input_tokens": 7})
    job = await jobs.get("j3")
    assert job is not None and (job["status"], job["owner"], job["input_tokens"]) == ("queued", None, 7)
    assert not await jobs.release("j3", "b", "again"), "not running any more"


async def test_current_is_the_last_promoted_and_candidates_need_their_version(engine: AsyncEngine) -> None:
    repo = EvalRepository(engine)
    await repo.save(**eval_fields(status="candidate"))
    with pytest.raises(NotFound, match=r"only candidates below their target .v1.*promote e@1"):
        await repo.resolve("e")
    assert (await repo.resolve("e", 1))["status"] == "candidate"
    await repo.save(**eval_fields(status="active", promoted_at=datetime.now(UTC)))
    assert (await repo.resolve("e"))["version"] == 2
    await repo.promote("e", 1)  # a candidate promoted later becomes what eval:e uses
    assert (await repo.resolve("e"))["version"] == 1
    await repo.promote("e", 2)  # and an older version can be brought back
    assert [(r["version"], r["current"]) for r in await repo.list("e")] == [(2, True), (1, False)]
    with pytest.raises(NotFound):
        await repo.promote("e", 9)


async def test_evals_saved_before_jobs_existed_stay_current(db_url: str) -> None:
    engine = create_engine(db_url)
    try:
        await upgrade(engine, "eval_generator", MIGRATIONS, revision="evalgen_0001")
        async with engine.begin() as conn:  # only the columns of the first revision
            await conn.execute(evals.insert().values(version=1, **eval_fields()))
        await upgrade(engine, "eval_generator", MIGRATIONS)
        current = await EvalRepository(engine).resolve("e")
        assert (current["version"], current["status"], current["current"]) == (1, "active", True)
    finally:
        await engine.dispose()
