"""Offers the fake Anthropic fixtures to the tests of the fakes themselves."""

from tests.fakes.fixtures import anthropic_env, anthropic_server  # noqa: F401
