"""The embedded nats-server: its Go collector runs sooner than the default unless the user says otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenteval.runtime.nats_server import EMBEDDED_GOGC, EmbeddedNats


def _env_of(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


@pytest.mark.parametrize("user_limit", [None, "80"])
async def test_the_server_collects_sooner_and_the_users_gogc_wins(
    tmp_path: Path, monkeypatch, user_limit: str | None
) -> None:
    if user_limit is None:
        monkeypatch.delenv("GOGC", raising=False)
    else:
        monkeypatch.setenv("GOGC", user_limit)
    server = EmbeddedNats(tmp_path)
    await server.start()
    try:
        assert server.process is not None
        assert _env_of(server.process.pid)["GOGC"] == (user_limit or EMBEDDED_GOGC)
    finally:
        await server.stop()
