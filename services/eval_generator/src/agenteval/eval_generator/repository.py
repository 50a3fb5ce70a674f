"""Reads and writes of the eval-generator's own table."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from agenteval.eval_generator.models import evals


class EvalRepository:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def save(self, **fields: Any) -> dict[str, Any]:
        """Save a new version of eval ``fields['name']`` (versions count up from 1)."""
        async with self.engine.begin() as conn:
            current = (
                await conn.execute(select(func.max(evals.c.version)).where(evals.c.name == fields["name"]))
            ).scalar()
            fields["version"] = (current or 0) + 1
            await conn.execute(evals.insert().values(**fields))
        return fields

    async def get(self, name: str, version: int | None = None) -> dict[str, Any] | None:
        q = select(evals).where(evals.c.name == name)
        q = q.where(evals.c.version == version) if version else q.order_by(evals.c.version.desc()).limit(1)
        async with self.engine.connect() as conn:
            row = (await conn.execute(q)).mappings().first()
        return dict(row) if row else None

    async def list(self, name: str | None = None) -> list[dict[str, Any]]:
        q = select(evals).order_by(evals.c.name, evals.c.version.desc())
        if name:
            q = q.where(evals.c.name == name)
        async with self.engine.connect() as conn:
            return [dict(r) for r in (await conn.execute(q)).mappings().all()]
