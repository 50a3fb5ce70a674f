"""Reads and writes of the runner's own table."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from agenteval.contracts.records import RunInfo
from agenteval.contracts.summary import RunSummary
from agenteval.runner.models import runs

ACTIVE = ("pending", "running")


@dataclass
class RunRecord:
    run_id: str
    suite: str
    agent: str
    agent_version: str
    k: int | None
    seed: int
    concurrency: int
    timeout_s: float | None
    status: str
    trials_total: int
    trials_graded: int
    passes: int
    created_at: datetime
    completed_at: datetime | None
    suite_json: str
    summary_json: str | None
    error: str | None
    request_id: str | None = None
    suite_version: str = ""
    """sha256 of the canonical suite as submitted (before the tag filter)."""
    suite_version_number: int = 0
    """The version's number in the suite store (0: the suite was sent inline)."""
    tags_json: str = "[]"
    """The tags the run was limited to."""
    project: str = "default"

    @property
    def tags(self) -> list[str]:
        tags: list[str] = json.loads(self.tags_json or "[]")
        return tags

    @property
    def summary(self) -> RunSummary | None:
        return RunSummary.model_validate_json(self.summary_json) if self.summary_json else None

    def info(self) -> RunInfo:
        """The run as clients see it (RunService's Run)."""
        return RunInfo.model_validate(
            {
                "run_id": self.run_id,
                "suite": self.suite,
                "agent": self.agent,
                "agent_version": self.agent_version,
                "k": self.k,
                "status": self.status,
                "trials_total": self.trials_total,
                "trials_graded": self.trials_graded,
                "created_at": self.created_at,
                "completed_at": self.completed_at,
                "summary": self.summary,
                "error": self.error,
                "suite_version": self.suite_version,
                "suite_version_number": self.suite_version_number,
                "tags": self.tags,
                "project": self.project,
            }
        )


class RunRepository:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def insert(self, rec: RunRecord) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(runs.insert().values(**rec.__dict__))

    async def get(self, run_id: str) -> RunRecord | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(runs).where(runs.c.run_id == run_id))).mappings().first()
        return RunRecord(**row) if row else None

    async def ids_starting(
        self, prefix: str, limit: int = 6, projects: frozenset[str] | None = None
    ) -> list[str]:
        """Run ids that begin with ``prefix`` (taken literally), at most ``limit``, of
        ``projects`` (None: any)."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        q = select(runs.c.run_id).where(runs.c.run_id.like(f"{escaped}%", escape="\\"))
        if projects is not None:
            q = q.where(runs.c.project.in_(sorted(projects)))
        async with self.engine.connect() as conn:
            rows = (await conn.execute(q.order_by(runs.c.run_id).limit(limit))).all()
        return [r[0] for r in rows]

    async def by_request_id(self, request_id: str) -> RunRecord | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(runs).where(runs.c.request_id == request_id))).mappings().first()
        return RunRecord(**row) if row else None

    async def active(self) -> list[tuple[str, int]]:
        """(run id, trials graded) of every run still pending or running."""
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(runs.c.run_id, runs.c.trials_graded).where(runs.c.status.in_(ACTIVE))
            )
        return [(r[0], int(r[1])) for r in rows]

    async def list(
        self,
        suite: str | None = None,
        agent_version: str | None = None,
        limit: int = 50,
        completed_only: bool = False,
        suite_version: str | None = None,
        projects: frozenset[str] | None = None,
    ) -> list[RunRecord]:
        q = select(runs).order_by(runs.c.created_at.desc()).limit(max(1, min(limit, 1000)))
        if projects is not None:
            q = q.where(runs.c.project.in_(sorted(projects)))
        if suite_version:
            q = q.where(runs.c.suite_version.startswith(suite_version, autoescape=True))
        if suite:
            q = q.where(runs.c.suite == suite)
        if agent_version:
            q = q.where(runs.c.agent_version == agent_version)
        if completed_only:
            q = q.where(runs.c.status == "completed")
        async with self.engine.connect() as conn:
            rows = (await conn.execute(q)).mappings().all()
        return [RunRecord(**r) for r in rows]

    async def mark_running(self, run_id: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                update(runs)
                .where(runs.c.run_id == run_id, runs.c.status == "pending")
                .values(status="running")
            )

    async def set_progress(self, run_id: str, graded: int, passes: int) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                update(runs)
                .where(runs.c.run_id == run_id, runs.c.status.in_(ACTIVE), runs.c.trials_graded < graded)
                .values(trials_graded=graded, passes=passes)
            )

    async def complete(self, run_id: str, summary: RunSummary, at: datetime) -> None:
        """Store the final summary; a cancelled run keeps its status."""
        async with self.engine.begin() as conn:
            await conn.execute(
                update(runs)
                .where(runs.c.run_id == run_id, runs.c.status.in_(ACTIVE))
                .values(status="completed")
            )
            await conn.execute(
                update(runs)
                .where(runs.c.run_id == run_id)
                .values(
                    summary_json=summary.model_dump_json(),
                    completed_at=at,
                    trials_graded=summary.trials,
                    passes=summary.passes,
                )
            )

    async def delete(self, run_id: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(runs.delete().where(runs.c.run_id == run_id))

    async def fail(self, run_id: str, reason: str, at: datetime) -> bool:
        """End an active run as failed, with the reason; False when it had already ended."""
        async with self.engine.begin() as conn:
            res = await conn.execute(
                update(runs)
                .where(runs.c.run_id == run_id, runs.c.status.in_(ACTIVE))
                .values(status="failed", error=reason[:4000], completed_at=at)
            )
        return res.rowcount == 1

    async def cancel(self, run_id: str) -> bool:
        async with self.engine.begin() as conn:
            res = await conn.execute(
                update(runs)
                .where(runs.c.run_id == run_id, runs.c.status.in_(ACTIVE))
                .values(status="cancelled")
            )
        return res.rowcount == 1

    async def cancelled_ids(self) -> set[str]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(runs.c.run_id).where(runs.c.status == "cancelled", runs.c.completed_at.is_(None))
            )
        return {r[0] for r in rows}
