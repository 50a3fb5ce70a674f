"""The embedded nats-server: its Go heap is capped softly unless the user caps it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenteval.runtime.nats_server import EMBEDDED_GOMEMLIMIT, EmbeddedNats


def _env_of(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


@pytest.mark.parametrize("user_limit", [None, "200MiB"])
async def test_the_server_gets_a_soft_memory_limit_and_the_users_wins(
    tmp_path: Path, monkeypatch, user_limit: str | None
) -> None:
    if user_limit is None:
        monkeypatch.delenv("GOMEMLIMIT", raising=False)
    else:
        monkeypatch.setenv("GOMEMLIMIT", user_limit)
    server = EmbeddedNats(tmp_path)
    await server.start()
    try:
        assert server.process is not None
        assert _env_of(server.process.pid)["GOMEMLIMIT"] == (user_limit or EMBEDDED_GOMEMLIMIT)
    finally:
        await server.stop()
