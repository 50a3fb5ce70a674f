"""metrics_0004 drops the summary copy and keeps every run and trial row (SQLite and PostgreSQL)."""

from __future__ import annotations

from sqlalchemy import text

from agenteval.metrics.app import MIGRATIONS
from agenteval.metrics.repository import MetricsRepository
from agenteval.storage import create_engine, upgrade


async def test_upgrading_a_database_with_stored_summaries_keeps_its_runs(db_url: str) -> None:
    engine = create_engine(db_url)
    try:
        await upgrade(engine, "metrics", MIGRATIONS, revision="metrics_0003")
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO metrics_runs (run_id, suite, agent_version, agent, trials_total, completed,"
                    " summary_json) VALUES ('run-1', 's', 'v1', 'python:a:b', 1, true, '{\"run_id\": \"run-1\"}')"
                )
            )
            await conn.execute(
                text(
                    "INSERT INTO metrics_trial_results (trial_id, run_id, case_id, trial_index, status, passed,"
                    " score, latency_ms, input_tokens, output_tokens, cost_usd, grader_scores_json, tags_json)"
                    " VALUES ('run-1/c/0', 'run-1', 'c', 0, 'ok', true, 1.0, 5.0, 1, 1, 0.0, '{}', '[]')"
                )
            )
        await upgrade(engine, "metrics", MIGRATIONS)
        repo = MetricsRepository(engine)
        assert await repo.latest_completed(10) == ["run-1"]
        assert await repo.progress("run-1") == (1, 1, 1, True)
        meta = await repo.run_meta("run-1")
        assert meta is not None and "summary_json" not in meta
        [row] = await repo.trials("run-1")
        assert row["cost_known"] is True, "a trial stored before cost_known must not turn unknown"
    finally:
        await engine.dispose()
