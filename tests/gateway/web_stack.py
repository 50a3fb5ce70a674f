"""An embedded stack with the HTTP API and dashboard served by uvicorn, as `agent-eval up` does."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from agenteval.cli.stack import EmbeddedStack
from agenteval.gateway.web import create_app
from agenteval.gateway.web.server import HttpServer

SUITE_YAML = """\
name: web_suite
description: Cases for the dashboard tests
agent: python:tests.agents:coin_nap
trials: 2
cases:
  - id: says_heads
    input: flip
    tags: [fast]
    graders:
      - output_contains: {text: heads}
  - id: says_tails
    input: flip again
    tags: [slow]
    graders:
      - output_contains: {text: tails}
"""


@asynccontextmanager
async def web_stack(data_dir: Path) -> AsyncIterator[tuple[EmbeddedStack, str]]:
    """(the stack, the dashboard's base URL). Tokens when AGENTEVAL_TOKENS_FILE is set."""
    async with EmbeddedStack(data_dir) as stack:
        assert stack.common is not None
        http = HttpServer(create_app(stack.target, stack.common.authenticator()), "127.0.0.1:0")
        await http.start()
        try:
            yield stack, http.url.rstrip("/")
        finally:
            await http.stop()
