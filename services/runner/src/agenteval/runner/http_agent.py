"""``http://`` / ``https://`` agents: the case POSTed as JSON, the answer (or a trace) read back.

Request body (``application/json``)::

    {"run_id": ..., "case_id": ..., "trial_index": 0, "seed": 123,
     "messages": [{"role": "user", "content": "..."}],
     "state": {...}, "tool_mocks": {...}, "metadata": {...}}

Response: a JSON object, either ``{"output": "the answer"}`` (``"answer"`` also works) or
``{"trace": {"output": ..., "steps": [...], "state": {...}, "usage": {...}}}`` in agenteval's
trace shape (steps: messages, LLM calls, tool calls). Anything else is a ``bad_agent_output``
trial that says what was wrong; a non-2xx status is an ``agent_error`` trial with the status
and the start of the body. Connection failures are retried (RETRIES, with backoff) within the
trial's timeout, which the runner enforces.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from agenteval.runner.agents import AgentOutput, BadAgentOutput, normalize_result
from agenteval.sdk import AgentContext

RETRIES = (0.2, 0.5, 1.0)
"""Waits before trying a request again after a connection error."""
BODY_SHOWN = 300
"""Characters of an unexpected response body quoted in the trial's error."""


class AgentHttpError(RuntimeError):
    """The agent's server answered with an error status."""


class HttpAgent:
    """An agent behind an HTTP endpoint (``http://...`` or ``https://...``)."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.url = spec
        self._client: httpx.AsyncClient | None = None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            # No read timeout of its own: the trial's timeout ends a slow agent.
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(None, connect=10.0), follow_redirects=True)
        return self._client

    async def run(self, messages: list[dict[str, Any]], ctx: AgentContext) -> AgentOutput:
        body = {
            "run_id": ctx.run_id,
            "case_id": ctx.case_id,
            "trial_index": ctx.trial_index,
            "seed": ctx.seed,
            "messages": messages,
            "state": ctx.state,
            "tool_mocks": ctx.tool_mocks,
            "metadata": ctx.metadata,
        }
        resp = await self._post(body)
        if not resp.is_success:
            raise AgentHttpError(f"HTTP {resp.status_code} from {self.url}: {resp.text[:BODY_SHOWN]}")
        try:
            doc = resp.json()
        except ValueError:
            raise BadAgentOutput(
                f"{self.url} answered {resp.headers.get('content-type', 'no content type')}, not JSON: "
                f"{resp.text[:BODY_SHOWN]!r}"
            ) from None
        return parse_answer(doc, self.url)

    async def _post(self, body: dict[str, Any]) -> httpx.Response:
        for pause in (*RETRIES, None):
            try:
                return await self._http().post(self.url, json=body)
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError) as exc:
                if pause is None:
                    raise AgentHttpError(
                        f"cannot reach {self.url} ({type(exc).__name__}: {exc}) after {len(RETRIES) + 1} tries"
                    ) from None
                await asyncio.sleep(pause)
        raise AssertionError("unreachable")


def parse_answer(doc: Any, url: str) -> AgentOutput:
    """The agent's answer from its JSON response (see the module's docstring)."""
    if not isinstance(doc, dict):
        raise BadAgentOutput(
            f"{url} answered a JSON {type(doc).__name__}, not an object with output or trace"
        )
    if "trace" in doc:
        trace = doc["trace"]
        if not isinstance(trace, dict):
            raise BadAgentOutput(f"{url}: 'trace' must be an object in agenteval's trace shape")
        return normalize_result(trace)
    if "output" in doc or "answer" in doc:
        return normalize_result(doc)
    raise BadAgentOutput(
        f"{url} answered an object without 'output', 'answer' or 'trace': keys {sorted(doc)[:10]}"
    )
