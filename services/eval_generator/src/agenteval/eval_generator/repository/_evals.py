"""Saved evals and their versions; which one ``eval:NAME`` resolves to."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from agenteval.contracts.errors import NotFound
from agenteval.eval_generator.models import evals

ACTIVE, CANDIDATE = "active", "candidate"


async def insert_version(conn: AsyncConnection, fields: dict[str, Any]) -> dict[str, Any]:
    """Insert ``fields`` as the next version of eval ``fields['name']`` (versions count up from 1)."""
    current = (
        await conn.execute(select(func.max(evals.c.version)).where(evals.c.name == fields["name"]))
    ).scalar()
    row = {**fields, "version": (current or 0) + 1}
    await conn.execute(evals.insert().values(**row))
    return row


def _current_first(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The version eval:NAME resolves to: the active one promoted last (the higher on a tie)."""
    active = [r for r in rows if r["status"] == ACTIVE and r["promoted_at"] is not None]
    return max(active, key=lambda r: (_aware(r["promoted_at"]), r["version"]), default=None)


def _aware(value: datetime) -> datetime:
    # SQLite gives naive datetimes back; every stored value is UTC.
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _with_current(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows (of any names) with ``current`` set on the version each name resolves to."""
    by_name: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_name.setdefault(r["name"], []).append(r)
    for group in by_name.values():
        current = _current_first(group)
        for r in group:
            r["current"] = r is current
    return rows


class EvalRepository:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def save(self, **fields: Any) -> dict[str, Any]:
        """Save a new version of eval ``fields['name']``."""
        async with self.engine.begin() as conn:
            row = await insert_version(conn, fields)
        return (await self.get(row["name"], row["version"])) or row

    async def versions(self, name: str) -> list[dict[str, Any]]:
        """Every version of ``name``, newest first, ``current`` marked."""
        q = select(evals).where(evals.c.name == name).order_by(evals.c.version.desc())
        async with self.engine.connect() as conn:
            return _with_current([dict(r) for r in (await conn.execute(q)).mappings().all()])

    async def get(self, name: str, version: int | None = None) -> dict[str, Any] | None:
        """Version ``version`` (a candidate too), or with none the current one (never a candidate)."""
        rows = await self.versions(name)
        if version:
            return next((r for r in rows if r["version"] == version), None)
        return next((r for r in rows if r["current"]), None)

    async def resolve(self, name: str, version: int | None = None) -> dict[str, Any]:
        """:meth:`get`, or NotFound saying why (no such version, or only candidates)."""
        row = await self.get(name, version)
        if row is not None:
            return row
        if version:
            raise NotFound(f"no saved eval {name!r} version {version}")
        candidates = [r["version"] for r in await self.versions(name) if r["status"] == CANDIDATE]
        if candidates:
            listed = ", ".join(f"v{v}" for v in sorted(candidates))
            raise NotFound(
                f"no promoted version of eval {name!r}: only candidates below their target ({listed}); "
                f"use eval:{name}@{max(candidates)} explicitly or promote one "
                f"(agent-eval evals promote {name}@{max(candidates)})"
            )
        raise NotFound(f"no saved eval {name!r}")

    async def project_of(self, name: str) -> str | None:
        """The project eval ``name`` belongs to (None: never saved)."""
        async with self.engine.connect() as conn:
            found = await conn.execute(select(evals.c.project).where(evals.c.name == name).limit(1))
            return found.scalar()

    async def list(
        self, name: str | None = None, projects: frozenset[str] | None = None
    ) -> list[dict[str, Any]]:
        q = select(evals).order_by(evals.c.name, evals.c.version.desc())
        if projects is not None:
            q = q.where(evals.c.project.in_(sorted(projects)))
        if name:
            q = q.where(evals.c.name == name)
        async with self.engine.connect() as conn:
            return _with_current([dict(r) for r in (await conn.execute(q)).mappings().all()])

    async def promote(self, name: str, version: int) -> dict[str, Any]:
        """Make version ``version`` what eval:NAME resolves to (a candidate, or an older one back)."""
        async with self.engine.begin() as conn:
            done = await conn.execute(
                evals.update()
                .where(evals.c.name == name, evals.c.version == version)
                .values(status=ACTIVE, promoted_at=datetime.now(UTC))
            )
        if not done.rowcount:
            raise NotFound(f"no saved eval {name!r} version {version}")
        row = await self.get(name, version)
        assert row is not None
        return row
