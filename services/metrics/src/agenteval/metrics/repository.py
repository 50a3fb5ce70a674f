"""Reads and writes of the metrics service's own tables."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Integer, cast, func, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from agenteval.contracts.events import TrialGraded
from agenteval.metrics.models import runs, trial_results
from agenteval.storage import insert_ignore


class MetricsRepository:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def record(
        self, graded: Sequence[TrialGraded], costs: Sequence[tuple[float, bool]]
    ) -> list[dict[str, Any]]:
        """Store graded trials; a trial seen before is left as it was (idempotent). Returns the
        rows as offered (the shape :meth:`trials` reads back)."""
        if not graded:
            return []
        rows = [
            {
                "trial_id": g.trial_id,
                "run_id": g.run_id,
                "case_id": g.case_id,
                "trial_index": g.trial_index,
                "status": g.status,
                "passed": g.passed,
                "score": g.score,
                "latency_ms": g.latency_ms,
                "input_tokens": g.input_tokens,
                "output_tokens": g.output_tokens,
                "cost_usd": cost[0],
                "cost_known": cost[1],
                "grade_errors_json": json.dumps({gr.name: gr.error for gr in g.grades if gr.error}) or None,
                "grader_scores_json": json.dumps({gr.name: gr.score for gr in g.grades}),
                "tags_json": json.dumps(g.tags),
            }
            for g, cost in zip(graded, costs, strict=True)
        ]
        run_rows = {
            g.run_id: {
                "run_id": g.run_id,
                "suite": g.suite,
                "agent_version": g.agent_version,
                "agent": g.agent,
                "trials_total": g.trials_total,
                "completed": False,
                "project": g.project,
            }
            for g in graded
        }
        async with self.engine.begin() as conn:
            await conn.execute(insert_ignore(self.engine, runs), list(run_rows.values()))
            await conn.execute(insert_ignore(self.engine, trial_results), rows)
        return rows

    async def record_plan(
        self,
        run_id: str,
        suite: str,
        agent_version: str,
        agent: str,
        plan: dict[str, int],
        project: str = "default",
    ) -> None:
        """Keep what the run will have (from run.submitted); idempotent."""
        row = {
            "run_id": run_id,
            "suite": suite,
            "agent_version": agent_version,
            "agent": agent,
            "trials_total": sum(plan.values()),
            "completed": False,
            "plan_json": json.dumps(plan),
            "project": project,
        }
        async with self.engine.begin() as conn:
            await conn.execute(insert_ignore(self.engine, runs), [row])
            await conn.execute(
                update(runs)
                .where(runs.c.run_id == run_id, runs.c.plan_json.is_(None))
                .values(plan_json=row["plan_json"], trials_total=row["trials_total"])
            )

    async def plans(self, run_ids: Sequence[str]) -> dict[str, dict[str, int] | None]:
        """Per run known here, its plan (None: recorded before plans were kept); unknown runs absent."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(runs.c.run_id, runs.c.plan_json).where(runs.c.run_id.in_(list(run_ids)))
                )
            ).all()
        return {r[0]: (json.loads(r[1]) if r[1] else None) for r in rows}

    async def progress(self, run_id: str) -> tuple[int, int, int, bool]:
        """(graded, passes, total, completed) of a run."""
        async with self.engine.connect() as conn:
            graded, passes = (
                await conn.execute(
                    select(
                        func.count(), func.coalesce(func.sum(cast(trial_results.c.passed, Integer)), 0)
                    ).where(trial_results.c.run_id == run_id)
                )
            ).one()
            row = (
                await conn.execute(
                    select(runs.c.trials_total, runs.c.completed).where(runs.c.run_id == run_id)
                )
            ).first()
        total, completed = (row[0], bool(row[1])) if row else (0, False)
        return int(graded), int(passes), int(total), completed

    async def trials(self, run_id: str) -> list[dict[str, Any]]:
        async with self.engine.connect() as conn:
            rows = (
                (await conn.execute(select(trial_results).where(trial_results.c.run_id == run_id)))
                .mappings()
                .all()
            )
        return [dict(r) for r in rows]

    async def run_meta(self, run_id: str) -> dict[str, Any] | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(runs).where(runs.c.run_id == run_id))).mappings().first()
        return dict(row) if row else None

    async def latest_completed(self, limit: int) -> list[str]:
        """The ids of the ``limit`` newest completed runs, oldest first (run ids begin with
        their creation time)."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(runs.c.run_id)
                    .where(runs.c.completed.is_(True))
                    .order_by(runs.c.run_id.desc())
                    .limit(limit)
                )
            ).all()
        return [r[0] for r in reversed(rows)]

    async def mark_completed(self, run_id: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(update(runs).where(runs.c.run_id == run_id).values(completed=True))
