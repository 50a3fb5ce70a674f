"""Database engines: SQLite (aiosqlite) by default, PostgreSQL (asyncpg) by URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Insert, Table, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from agenteval.contracts.errors import InvalidArgument


def normalize_url(url: str) -> str:
    """Accept plain ``postgresql://`` / ``sqlite:///`` URLs and pick the async drivers."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    if url.startswith("postgresql://"):
        return "postgresql+asyncpg://" + url[len("postgresql://") :]
    if url.startswith("sqlite:///") and "+aiosqlite" not in url:
        return "sqlite+aiosqlite:///" + url[len("sqlite:///") :]
    return url


def sqlite_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{Path(path).resolve()}"


def create_engine(url: str, **kwargs: Any) -> AsyncEngine:
    """An async engine; SQLite files get WAL, NORMAL sync and a busy timeout."""
    url = normalize_url(url)
    try:
        parsed = make_url(url)
    except Exception as exc:
        raise InvalidArgument(f"invalid database URL {url!r}: {exc}") from None
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        # One connection per engine: a service's writes to its SQLite file are serialized here
        # instead of racing for the file lock (an upgrade from a read lock fails at once with
        # "database is locked", whatever the busy timeout).
        kwargs.setdefault("pool_size", 1)
        kwargs.setdefault("max_overflow", 0)
        kwargs.setdefault("pool_timeout", 120)
        engine = create_async_engine(url, connect_args={"timeout": 30}, **kwargs)

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    if parsed.get_backend_name() == "postgresql":
        kwargs.setdefault("pool_size", 10)
        kwargs.setdefault("max_overflow", 10)
        kwargs.setdefault("pool_pre_ping", True)
        return create_async_engine(url, **kwargs)
    raise InvalidArgument(f"unsupported database {parsed.get_backend_name()!r}: use sqlite or postgresql")


def insert_ignore(engine: AsyncEngine, table: Table) -> Insert:
    """An INSERT that skips rows whose key exists (idempotent stores)."""
    if engine.dialect.name == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing()
    return sqlite.insert(table).on_conflict_do_nothing()


def upsert(engine: AsyncEngine, table: Table, keys: list[str], update: list[str]) -> Insert:
    """An INSERT that replaces ``update`` columns when the key exists."""
    ins = postgresql.insert(table) if engine.dialect.name == "postgresql" else sqlite.insert(table)
    return ins.on_conflict_do_update(index_elements=keys, set_={c: ins.excluded[c] for c in update})
