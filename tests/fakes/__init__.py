"""Fakes of external services for tests: a local Anthropic Messages API."""

from tests.fakes.anthropic_server import (
    FAKE_API_KEY,
    FakeAnthropicServer,
    FakeError,
    Gate,
    RecordedRequest,
    cut_off_reply,
    overloaded,
    rate_limited,
    server_error,
    text_reply,
    tool_use_reply,
    unauthorized,
)

__all__ = [
    "FAKE_API_KEY",
    "FakeAnthropicServer",
    "FakeError",
    "Gate",
    "RecordedRequest",
    "cut_off_reply",
    "overloaded",
    "rate_limited",
    "server_error",
    "text_reply",
    "tool_use_reply",
    "unauthorized",
]
