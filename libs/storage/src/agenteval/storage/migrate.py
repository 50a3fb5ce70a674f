"""Alembic, once per service: each service has its own migrations and version table.

A service's tables carry its prefix and its version table is ``alembic_version_<service>``,
so several services can share one PostgreSQL database without touching each other.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.ext.asyncio import AsyncEngine


def alembic_config(service: str, migrations_dir: Path) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir))
    cfg.attributes["version_table"] = f"alembic_version_{service}"
    return cfg


def _upgrade(connection, cfg: Config, revision: str) -> None:  # type: ignore[no-untyped-def]
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, revision)


async def upgrade(engine: AsyncEngine, service: str, migrations_dir: Path, revision: str = "head") -> None:
    """Bring the service's tables to ``revision`` (creating them on a new database)."""
    cfg = alembic_config(service, migrations_dir)
    async with engine.begin() as conn:
        await conn.run_sync(_upgrade, cfg, revision)


def run_env() -> None:
    """The body of every service's migrations/env.py (online mode on the given connection)."""
    from alembic import context

    cfg = context.config
    connection = cfg.attributes.get("connection")
    if connection is None:
        raise RuntimeError("agenteval migrations run through agenteval.storage.migrate.upgrade()")
    context.configure(
        connection=connection,
        target_metadata=None,
        version_table=cfg.attributes["version_table"],
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def upgrade_blocking(engine: AsyncEngine, service: str, migrations_dir: Path) -> None:
    asyncio.run(upgrade(engine, service, migrations_dir))
