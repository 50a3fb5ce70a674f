"""``anthropic:MODEL`` agents: Claude in a tool-use loop over the case's tools.

The case's tools are the names in its ``tool_mocks``; a tool's result is its mock's answer (a
fixed value, ``{"error": ...}`` for a failing tool, a table by arguments, or what a
``{"python": "module:function"}`` mock's function returns or raises), given back to the model
as a tool result (an error as ``is_error``). The loop runs in an agent worker process (see
``trials``), since a mock function is user code. A tool the model asks for that the case does not mock is an
error result too. The loop ends at the model's final answer, or after MAX_TURNS model calls
(an ``agent_error`` trial). Every call is recorded with its model and the tokens the API
reports, so the run's cost is computed from them. The real ``anthropic`` SDK is used; the
key and the address come from ``ANTHROPIC_API_KEY`` / ``ANTHROPIC_BASE_URL``.
"""

from __future__ import annotations

import json
import time
from typing import Any

from agenteval.runner.agents import AgentOutput
from agenteval.sdk import AgentContext, ToolError

MAX_TURNS = 12
MAX_TOKENS = 1024


class AgentApiError(RuntimeError):
    """The Messages API could not be used (an error status, no connection, no answer)."""


def _tool_content(result: Any) -> str:
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)


class AnthropicAgent:
    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.model = spec[len("anthropic:") :]
        self._client: Any = None

    def _api(self) -> Any:
        if self._client is None:
            from anthropic import AsyncAnthropic

            self._client = AsyncAnthropic(max_retries=2)
        return self._client

    async def run(self, messages: list[dict[str, Any]], ctx: AgentContext) -> AgentOutput:
        import anthropic

        system = "\n\n".join(m["content"] for m in messages if m.get("role") == "system")
        convo: list[dict[str, Any]] = [
            {"role": m["role"], "content": m["content"]}
            for m in messages
            if m.get("role") in ("user", "assistant")
        ]
        tools = [
            {"name": name, "description": f"The {name} tool.", "input_schema": {"type": "object"}}
            for name in sorted(ctx.tool_mocks)
        ]
        for _ in range(MAX_TURNS):
            request: dict[str, Any] = {"model": self.model, "max_tokens": MAX_TOKENS, "messages": convo}
            if system:
                request["system"] = system
            if tools:
                request["tools"] = tools
            started = time.perf_counter()
            try:
                reply = await self._api().messages.create(**request)
            except anthropic.APIStatusError as exc:
                raise AgentApiError(f"the Messages API answered {exc.status_code}: {exc.message}") from None
            except anthropic.APIConnectionError as exc:
                raise AgentApiError(f"cannot reach the Messages API: {exc}") from None
            text = "".join(block.text for block in reply.content if block.type == "text")
            ctx.record_llm_call(
                reply.model or self.model,
                input_tokens=reply.usage.input_tokens,
                output_tokens=reply.usage.output_tokens,
                latency_ms=(time.perf_counter() - started) * 1000.0,
                output=text or None,
            )
            uses = [block for block in reply.content if block.type == "tool_use"]
            if reply.stop_reason != "tool_use" or not uses:
                return AgentOutput(text, {})
            convo.append({"role": "assistant", "content": [block.model_dump() for block in reply.content]})
            results = []
            for use in uses:
                arguments = use.input if isinstance(use.input, dict) else {"input": use.input}
                try:
                    result = await ctx.acall_tool(use.name, None, **arguments)
                    results.append(
                        {"type": "tool_result", "tool_use_id": use.id, "content": _tool_content(result)}
                    )
                except ToolError as exc:
                    results.append(
                        {"type": "tool_result", "tool_use_id": use.id, "content": str(exc), "is_error": True}
                    )
            convo.append({"role": "user", "content": results})
        raise AgentApiError(f"{self.model} gave no final answer in {MAX_TURNS} turns")
