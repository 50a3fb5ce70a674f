"""Generation jobs and their events.

One instance runs a job at a time: it claims the job with a conditional update (queued, or
running under a lease that expired), refreshes its heartbeat while it runs, and ends it with
another conditional update, so a job re-run elsewhere after a lost lease is never finished
twice. Event sequence numbers come from the job row, one increment per event.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from agenteval.eval_generator.models import job_events, jobs
from agenteval.eval_generator.repository._evals import insert_version

QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"
ENDED = (DONE, FAILED, CANCELLED)
USAGE_FIELDS = (
    "llm_model",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "price_known",
    "attempts",
    "steps",
    "stop_reason",
)


class LostJob(Exception):
    """This instance no longer holds the job (its lease expired and another took it, or it ended)."""


def _now() -> datetime:
    return datetime.now(UTC)


class JobRepository:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def create(
        self, job_id: str, name: str, dataset: str, request_json: str, project: str = "default"
    ) -> dict[str, Any]:
        async with self.engine.begin() as conn:
            await conn.execute(
                jobs.insert().values(
                    project=project,
                    job_id=job_id,
                    name=name,
                    dataset=dataset,
                    request_json=request_json,
                    status=QUEUED,
                    created_at=_now(),
                )
            )
        row = await self.get(job_id)
        assert row is not None
        return row

    async def get(self, job_id: str) -> dict[str, Any] | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(jobs).where(jobs.c.job_id == job_id))).mappings().first()
        return dict(row) if row else None

    async def recent(
        self,
        name: str | None = None,
        status: str | None = None,
        limit: int = 100,
        projects: frozenset[str] | None = None,
    ) -> list[dict[str, Any]]:
        q = select(jobs).order_by(jobs.c.created_at.desc(), jobs.c.job_id).limit(limit)
        if projects is not None:
            q = q.where(jobs.c.project.in_(sorted(projects)))
        if name:
            q = q.where(jobs.c.name == name)
        if status:
            q = q.where(jobs.c.status == status)
        async with self.engine.connect() as conn:
            return [dict(r) for r in (await conn.execute(q)).mappings().all()]

    # -- running them

    def _claimable(self, lease_s: float) -> Any:
        stale = _now() - timedelta(seconds=lease_s)
        return or_(
            and_(jobs.c.status == QUEUED, jobs.c.cancel_requested.is_(False)),
            and_(jobs.c.status == RUNNING, jobs.c.heartbeat_at < stale),
        )

    async def claim_next(self, owner: str, lease_s: float, skip: set[str]) -> dict[str, Any] | None:
        """Take the oldest job that is queued or whose runner stopped answering; None when none."""
        async with self.engine.connect() as conn:
            ids = (
                (
                    await conn.execute(
                        select(jobs.c.job_id)
                        .where(self._claimable(lease_s))
                        .order_by(jobs.c.created_at)
                        .limit(20)
                    )
                )
                .scalars()
                .all()
            )
        for job_id in ids:
            if job_id in skip:
                continue
            now = _now()
            async with self.engine.begin() as conn:
                taken = await conn.execute(
                    jobs.update()
                    .where(jobs.c.job_id == job_id, self._claimable(lease_s))
                    .values(
                        status=RUNNING,
                        owner=owner,
                        heartbeat_at=now,
                        started_at=now,
                        runs=jobs.c.runs + 1,
                    )
                )
            if taken.rowcount:
                return await self.get(job_id)
        return None

    async def heartbeat(self, owner: str, job_ids: list[str]) -> list[str]:
        """Refresh the lease of ``job_ids``; the ids among them whose cancel was asked for."""
        if not job_ids:
            return []
        async with self.engine.begin() as conn:
            await conn.execute(
                jobs.update()
                .where(jobs.c.job_id.in_(job_ids), jobs.c.owner == owner, jobs.c.status == RUNNING)
                .values(heartbeat_at=_now())
            )
            return list(
                (
                    await conn.execute(
                        select(jobs.c.job_id).where(
                            jobs.c.job_id.in_(job_ids),
                            or_(
                                jobs.c.cancel_requested.is_(True),
                                jobs.c.owner != owner,
                                jobs.c.status != RUNNING,
                            ),
                        )
                    )
                ).scalars()
            )

    async def request_cancel(self, job_id: str) -> dict[str, Any] | None:
        """Ask for a job to stop: a queued one is cancelled here and now; a running one when its
        runner sees the request. Returns the job as it stands (None when unknown)."""
        async with self.engine.begin() as conn:
            await conn.execute(
                jobs.update()
                .where(jobs.c.job_id == job_id, jobs.c.status.in_((QUEUED, RUNNING)))
                .values(cancel_requested=True)
            )
            cancelled = await conn.execute(
                jobs.update()
                .where(jobs.c.job_id == job_id, jobs.c.status == QUEUED)
                .values(status=CANCELLED, finished_at=_now(), error="cancelled before it ran")
            )
            if cancelled.rowcount:
                await _append(conn, job_id, "cancelled", "cancelled before it ran")
        return await self.get(job_id)

    # -- events

    async def append_event(
        self, job_id: str, event: dict[str, Any], usage: dict[str, Any] | None = None
    ) -> int:
        """Store one event (type, message, accuracy, step, eval_version) and, with it, the job's usage."""
        async with self.engine.begin() as conn:
            return await _append(conn, job_id, usage=usage, **event)

    async def events(self, job_id: str, after: int = 0, limit: int = 500) -> list[dict[str, Any]]:
        q = (
            select(job_events)
            .where(job_events.c.job_id == job_id, job_events.c.seq > after)
            .order_by(job_events.c.seq)
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            return [dict(r) for r in (await conn.execute(q)).mappings().all()]

    # -- ending a run

    async def finish(
        self,
        job_id: str,
        owner: str,
        *,
        status: str,
        event: dict[str, Any],
        job_fields: dict[str, Any],
        save_eval: dict[str, Any] | None = None,
    ) -> dict[str, Any] | None:
        """End the job held by ``owner`` as ``status`` in one transaction: save the eval version
        (if any), update the job and store the last event. The saved version, or None.

        Raises LostJob (and saves nothing) when the job is no longer this owner's to end."""
        async with self.engine.begin() as conn:
            saved = None
            if save_eval:
                project = (await conn.execute(select(jobs.c.project).where(jobs.c.job_id == job_id))).scalar()
                saved = await insert_version(
                    conn, {**save_eval, "job_id": job_id, "project": project or "default"}
                )
            fields = dict(job_fields)
            if saved is not None:
                fields["eval_version"] = saved["version"]
                message = event["message"].replace("{version}", str(saved["version"]))
                event = {**event, "message": message, "eval_version": saved["version"]}
            elif fields.get("eval_version"):
                event = {**event, "eval_version": fields["eval_version"]}
            ended = await conn.execute(
                jobs.update()
                .where(jobs.c.job_id == job_id, jobs.c.owner == owner, jobs.c.status == RUNNING)
                .values(status=status, finished_at=_now(), **fields)
            )
            if not ended.rowcount:  # raising rolls the eval back with the rest
                raise LostJob(job_id)
            await _append(conn, job_id, **event)
        return saved

    async def release(
        self, job_id: str, owner: str, message: str, usage: dict[str, Any] | None = None
    ) -> bool:
        """Give a running job back to the queue (this instance is stopping); False if not ours."""
        async with self.engine.begin() as conn:
            released = await conn.execute(
                jobs.update()
                .where(jobs.c.job_id == job_id, jobs.c.owner == owner, jobs.c.status == RUNNING)
                .values(status=QUEUED, owner=None, heartbeat_at=None, **(usage or {}))
            )
            if not released.rowcount:
                return False
            await _append(conn, job_id, "warning", message)
        return True


async def _append(
    conn: AsyncConnection,
    job_id: str,
    type: str,
    message: str,
    accuracy: float | None = None,
    step: int = 0,
    eval_version: int | None = None,
    usage: dict[str, Any] | None = None,
) -> int:
    seq = (
        await conn.execute(
            jobs.update()
            .where(jobs.c.job_id == job_id)
            .values(last_seq=jobs.c.last_seq + 1, **(usage or {}))
            .returning(jobs.c.last_seq)
        )
    ).scalar_one()
    await conn.execute(
        job_events.insert().values(
            job_id=job_id,
            seq=seq,
            type=type,
            message=message,
            accuracy=accuracy,
            step=step,
            eval_version=eval_version,
            created_at=_now(),
        )
    )
    return int(seq)
