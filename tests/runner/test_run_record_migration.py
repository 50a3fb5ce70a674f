"""A data dir from before stored suites: its runs survive the migration that adds the suite version."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import text

from agenteval.runner.app import MIGRATIONS
from agenteval.runner.repository import RunRepository
from agenteval.storage import create_engine, upgrade


async def test_runs_stored_before_the_suite_version_read_back_with_none_recorded(db_url: str) -> None:
    engine = create_engine(db_url)
    try:
        await upgrade(engine, "runner", MIGRATIONS, revision="runner_0001")
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO runner_runs (run_id, suite, agent, agent_version, seed, concurrency, status,"
                    " trials_total, trials_graded, passes, created_at, suite_json)"
                    " VALUES ('run-old', 'support', 'python:a:b', 'v1', 1, 0, 'completed', 3, 3, 2, :at, '{}')"
                ),
                {"at": datetime(2025, 1, 2, tzinfo=UTC)},
            )
        await upgrade(engine, "runner", MIGRATIONS)
        rec = await RunRepository(engine).get("run-old")
        assert rec is not None and (rec.suite_version, rec.suite_version_number, rec.tags) == ("", 0, [])
        assert [r.run_id for r in await RunRepository(engine).list(suite="support")] == ["run-old"]
    finally:
        await engine.dispose()
