"""Reads and writes of the suite store's own tables."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from agenteval.contracts.errors import AlreadyExists, Conflict, NotFound
from agenteval.storage import insert_ignore
from agenteval.suite_store.models import cases, suites, version_cases, versions

ATTEMPTS = 5
"""Tries of a write that raced another writer of the same suite (a unique key caught it)."""


@dataclass
class NewVersion:
    """What a suite's content is, computed before anything is written."""

    name: str
    digest: str
    header_json: str
    description: str
    tags: list[str]
    cases: list[tuple[str, str, str]]
    """(case id, case digest, canonical case JSON) in order."""


@dataclass
class VersionRow:
    name: str
    version: int
    digest: str
    header_json: str
    description: str
    case_count: int
    tags: list[str]
    created_at: datetime
    current: bool


@dataclass
class SuiteRow:
    name: str
    current: VersionRow
    version_count: int
    created_at: datetime
    updated_at: datetime


def _aware(at: datetime) -> datetime:
    """SQLite gives naive datetimes back: they were stored in UTC."""
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def _version(row: Any, current_version: int) -> VersionRow:
    return VersionRow(
        name=row.name,
        version=row.version,
        digest=row.digest,
        header_json=row.header_json,
        description=row.description,
        case_count=row.case_count,
        tags=json.loads(row.tags_json),
        created_at=_aware(row.created_at),
        current=row.version == current_version,
    )


class SuiteRepository:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    # -- writing -------------------------------------------------------------------------
    async def store(
        self,
        new: NewVersion,
        *,
        create: bool,
        update_existing: bool,
        expected_version: int = 0,
        project: str = "default",
    ) -> tuple[VersionRow, bool, int]:
        """Make ``new`` the suite's current version: (that version, whether it was stored now,
        the version current before, 0 if none). All of it in one transaction, or nothing. A
        suite created now belongs to ``project``."""
        for attempt in range(ATTEMPTS):
            try:
                async with self.engine.begin() as conn:
                    return await self._store(conn, new, create, update_existing, expected_version, project)
            except IntegrityError:
                # Another writer created the suite or stored a version at the same moment: look again.
                if attempt == ATTEMPTS - 1:
                    raise Conflict(f"suite {new.name!r} is being written by others; try again") from None
        raise AssertionError("unreachable")

    async def _store(
        self,
        conn: AsyncConnection,
        new: NewVersion,
        create: bool,
        update_existing: bool,
        expected: int,
        project: str = "default",
    ) -> tuple[VersionRow, bool, int]:
        now = datetime.now(UTC)
        suite = (
            await conn.execute(select(suites).where(suites.c.name == new.name).with_for_update())
        ).first()
        if suite is None:
            if not create:
                raise NotFound(f"no stored suite {new.name!r}")
            if expected:
                raise Conflict(f"suite {new.name!r} has no version {expected}: it does not exist")
            await conn.execute(
                insert(suites).values(
                    name=new.name, current_version=1, created_at=now, updated_at=now, project=project
                )
            )
            previous = 0
        else:
            if not update_existing:
                raise AlreadyExists(f"a suite named {new.name!r} exists already (update it instead)")
            previous = suite.current_version
            if expected and expected != previous:
                raise Conflict(
                    f"suite {new.name!r} is at version {previous}, not {expected}: another version was "
                    "stored meanwhile; start again from the current one"
                )
        same = (
            await conn.execute(
                select(versions).where(versions.c.name == new.name, versions.c.digest == new.digest)
            )
        ).first()
        if same is not None:
            if same.version != previous:
                await conn.execute(
                    update(suites)
                    .where(suites.c.name == new.name)
                    .values(current_version=same.version, updated_at=now)
                )
            return _version(same, same.version), False, previous
        number = (
            await conn.execute(select(func.max(versions.c.version)).where(versions.c.name == new.name))
        ).scalar() or 0
        number += 1
        await conn.execute(
            insert(versions).values(
                name=new.name,
                version=number,
                digest=new.digest,
                header_json=new.header_json,
                description=new.description,
                case_count=len(new.cases),
                tags_json=json.dumps(new.tags),
                created_at=now,
            )
        )
        blobs = {digest: text for _, digest, text in new.cases}
        await conn.execute(
            insert_ignore(self.engine, cases),
            [{"name": new.name, "digest": d, "case_json": t} for d, t in blobs.items()],
        )
        await conn.execute(
            insert(version_cases),
            [
                {"name": new.name, "version": number, "position": i, "case_id": cid, "case_digest": d}
                for i, (cid, d, _) in enumerate(new.cases)
            ],
        )
        await conn.execute(
            update(suites).where(suites.c.name == new.name).values(current_version=number, updated_at=now)
        )
        row = (
            await conn.execute(
                select(versions).where(versions.c.name == new.name, versions.c.version == number)
            )
        ).one()
        return _version(row, number), True, previous

    async def delete(self, name: str) -> int:
        """Delete a suite with all its versions and cases; the number of versions deleted."""
        async with self.engine.begin() as conn:
            suite = (
                await conn.execute(select(suites).where(suites.c.name == name).with_for_update())
            ).first()
            if suite is None:
                raise NotFound(f"no stored suite {name!r}")
            await conn.execute(delete(version_cases).where(version_cases.c.name == name))
            gone = await conn.execute(delete(versions).where(versions.c.name == name))
            await conn.execute(delete(cases).where(cases.c.name == name))
            await conn.execute(delete(suites).where(suites.c.name == name))
        return gone.rowcount

    # -- reading -------------------------------------------------------------------------
    async def current_version(self, name: str) -> int | None:
        async with self.engine.connect() as conn:
            return (
                await conn.execute(select(suites.c.current_version).where(suites.c.name == name))
            ).scalar()

    async def find_versions(
        self, name: str, number: int | None = None, digest_prefix: str | None = None
    ) -> list[VersionRow]:
        """The version ``number``, the versions whose digest starts with ``digest_prefix``, or the
        current one; [] when the suite or the version does not exist."""
        async with self.engine.connect() as conn:
            current = (
                await conn.execute(select(suites.c.current_version).where(suites.c.name == name))
            ).scalar()
            if current is None:
                return []
            q = select(versions).where(versions.c.name == name)
            if digest_prefix:
                q = q.where(versions.c.digest.startswith(digest_prefix, autoescape=True)).limit(2)
            else:
                q = q.where(versions.c.version == (number or current))
            rows = (await conn.execute(q)).all()
        return [_version(r, current) for r in rows]

    async def case_texts(self, name: str, version: int) -> list[str]:
        """The canonical JSON of a version's cases, in order."""
        q = (
            select(cases.c.case_json)
            .select_from(
                version_cases.join(
                    cases,
                    (cases.c.name == version_cases.c.name) & (cases.c.digest == version_cases.c.case_digest),
                )
            )
            .where(version_cases.c.name == name, version_cases.c.version == version)
            .order_by(version_cases.c.position)
        )
        async with self.engine.connect() as conn:
            return [r[0] for r in await conn.execute(q)]

    async def list_versions(self, name: str, limit: int) -> list[VersionRow]:
        async with self.engine.connect() as conn:
            current = (
                await conn.execute(select(suites.c.current_version).where(suites.c.name == name))
            ).scalar()
            if current is None:
                raise NotFound(f"no stored suite {name!r}")
            rows = (
                await conn.execute(
                    select(versions)
                    .where(versions.c.name == name)
                    .order_by(versions.c.version.desc())
                    .limit(limit)
                )
            ).all()
        return [_version(r, current) for r in rows]

    async def project_of(self, name: str) -> str | None:
        """The project suite ``name`` belongs to (None: no such suite)."""
        async with self.engine.connect() as conn:
            return (await conn.execute(select(suites.c.project).where(suites.c.name == name))).scalar()

    async def list_suites(
        self, tag: str, limit: int, projects: frozenset[str] | None = None
    ) -> list[SuiteRow]:
        counts = select(versions.c.name, func.count().label("n")).group_by(versions.c.name).subquery("counts")
        q = (
            select(
                versions,
                suites.c.created_at.label("suite_created_at"),
                suites.c.updated_at.label("suite_updated_at"),
                counts.c.n,
            )
            .select_from(
                suites.join(
                    versions,
                    (versions.c.name == suites.c.name) & (versions.c.version == suites.c.current_version),
                ).join(counts, counts.c.name == suites.c.name)
            )
            .order_by(suites.c.name)
            .limit(limit)
        )
        if tag:
            q = q.where(versions.c.tags_json.contains(json.dumps(tag), autoescape=True))
        if projects is not None:
            q = q.where(suites.c.project.in_(sorted(projects)))
        async with self.engine.connect() as conn:
            rows = (await conn.execute(q)).all()
        return [
            SuiteRow(
                name=r.name,
                current=_version(r, r.version),
                version_count=r.n,
                created_at=_aware(r.suite_created_at),
                updated_at=_aware(r.suite_updated_at),
            )
            for r in rows
        ]
