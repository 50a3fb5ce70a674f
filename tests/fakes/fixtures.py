"""Pytest fixtures of the fake Anthropic API; a conftest imports them to offer them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer


@pytest.fixture
def anthropic_server() -> Iterator[FakeAnthropicServer]:
    """A started fake Anthropic Messages API of this test's own."""
    with FakeAnthropicServer() as server:
        yield server


@pytest.fixture
def anthropic_env(
    anthropic_server: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> FakeAnthropicServer:
    """The fake API, with $ANTHROPIC_API_KEY and $ANTHROPIC_BASE_URL pointing at it."""
    for name, value in anthropic_server.env().items():
        monkeypatch.setenv(name, value)
    return anthropic_server
