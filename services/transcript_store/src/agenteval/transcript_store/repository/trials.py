"""Reads and writes of the transcript-store's own tables."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from agenteval.contracts.events import TrialCompleted, TrialGraded
from agenteval.storage import upsert
from agenteval.transcript_store.models import trials


class TranscriptRepository:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def store_completed(self, batch: Sequence[TrialCompleted]) -> None:
        """Upsert transcripts by trial id: storing the same trial twice keeps one row."""
        if not batch:
            return
        now = datetime.now(UTC)
        rows = [
            {
                "trial_id": d.trial_id,
                "run_id": d.run_id,
                "case_id": d.case.id,
                "trial_index": d.trial_index,
                "status": d.trace.status,
                "latency_ms": d.trace.latency_ms,
                "trace_json": d.trace.model_dump_json(),
                "passed": None,
                "score": None,
                "grades_json": None,
                "created_at": now,
                "project": d.project,
            }
            for d in batch
        ]
        stmt = upsert(self.engine, trials, ["trial_id"], ["status", "latency_ms", "trace_json"])
        async with self.engine.begin() as conn:
            await conn.execute(stmt, rows)

    async def store_graded(self, batch: Sequence[TrialGraded]) -> None:
        """Attach grades; works whichever of the two events arrives first."""
        if not batch:
            return
        now = datetime.now(UTC)
        rows = [
            {
                "trial_id": g.trial_id,
                "run_id": g.run_id,
                "case_id": g.case_id,
                "trial_index": g.trial_index,
                "status": g.status,
                "latency_ms": g.latency_ms,
                "trace_json": None,
                "passed": g.passed,
                "score": g.score,
                "grades_json": json.dumps([gr.model_dump() for gr in g.grades]),
                "created_at": now,
                "project": g.project,
            }
            for g in batch
        ]
        stmt = upsert(self.engine, trials, ["trial_id"], ["passed", "score", "grades_json"])
        async with self.engine.begin() as conn:
            await conn.execute(stmt, rows)

    async def get_trial(self, trial_id: str) -> dict[str, Any] | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(trials).where(trials.c.trial_id == trial_id))).mappings().first()
        return dict(row) if row else None

    async def list_trials(
        self,
        run_id: str,
        case_id: str | None = None,
        status: str | None = None,
        limit: int = 1000,
        offset: int = 0,
        projects: frozenset[str] | None = None,
    ) -> tuple[list[dict[str, Any]], int]:
        cond = [trials.c.run_id == run_id]
        if projects is not None:
            cond.append(trials.c.project.in_(sorted(projects)))
        if case_id:
            cond.append(trials.c.case_id == case_id)
        if status:
            cond.append(trials.c.status == status)
        q = (
            select(trials)
            .where(*cond)
            .order_by(trials.c.case_id, trials.c.trial_index)
            .limit(max(1, min(limit, 10_000)))
            .offset(max(0, offset))
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(q)).mappings().all()
            total = (await conn.execute(select(func.count()).select_from(trials).where(*cond))).scalar_one()
        return [dict(r) for r in rows], int(total)
