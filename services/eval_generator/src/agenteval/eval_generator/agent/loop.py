"""The eval-generation agent loop: Claude, with tools, writes and tests an eval function.

One step is one Messages API call. The model fetches labeled training traces, writes
``eval_<name>``, tests it (a limited number of attempts) and refines it; the loop stops when
a test reaches the target accuracy, the attempts run out, the model ends its turn, or the
step limit comes (after a wrap-up call without tools). The best code is kept throughout, so
an API failure still returns it, marked as one (``stopped="error"``), as is a model whose
replies keep being cut off at the token limit (``stopped="cut_off"``): the caller decides
whether what it has is enough.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from agenteval.eval_generator.agent.prompt import (
    TOOL_SCHEMAS,
    append_user_text,
    as_text_messages,
    cut_off_message,
    extract_eval_code,
    first_message,
    missing_code_message,
    system_prompt,
    wrap_up_message,
)
from agenteval.eval_generator.agent.tools import (
    AgentTools,
    CodeTester,
    TraceSource,
    TraceSummary,
)

EventType = Literal[
    "started", "thinking", "tool_called", "tool_result", "test_result", "wrap_up", "finished", "failed"
]
StopReason = Literal[
    "target_reached", "attempts_exhausted", "step_limit", "model_finished", "cut_off", "error"
]
FAILED_STOPS: frozenset[str] = frozenset({"cut_off", "error"})
"""Stops that mean the model could not be used to the end."""

DEFAULT_MODEL = "claude-sonnet-4-5"
DEFAULT_MAX_TOKENS = 8192
"""Room for a long function with its reasoning; small enough for a non-streaming call."""
MAX_EVENT_CHARS = 2000
MAX_CUT_OFFS = 2
"""Replies cut off at max_tokens in a row before the loop gives up on the model."""


@dataclass
class LoopEvent:
    """One thing that happened, for a live progress stream."""

    type: EventType
    message: str
    step: int
    """Model calls made so far."""
    accuracy: float | None = None
    input_tokens: int = 0
    """Tokens spent so far (cumulative), so a caller interrupted mid-loop still knows them."""
    output_tokens: int = 0
    attempts: int = 0


@dataclass
class LoopResult:
    """How the loop ended and the code it produced."""

    code: str | None
    """The final eval code (not validated here); None when the model produced none."""
    accuracy: float | None
    """Training accuracy measured for ``code`` by a test on all traces; None if never tested."""
    attempts: int
    steps: int
    input_tokens: int
    output_tokens: int
    notes: dict[str, str] = field(default_factory=dict)
    stopped: StopReason = "model_finished"
    error: str | None = None
    """What went wrong when ``stopped`` is error or cut_off."""


OnEvent = Callable[[LoopEvent], Awaitable[None]]


async def run_agent_loop(
    name: str,
    source: TraceSource,
    tester: CodeTester,
    *,
    client: Any = None,
    model: str = DEFAULT_MODEL,
    target_accuracy: float = 0.8,
    max_attempts: int = 5,
    max_steps: int = 50,
    wrap_up_at: int = 45,
    start_code: str | None = None,
    on_event: OnEvent | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> LoopResult:
    """Let the model write ``eval_<name>`` from the traces of ``source``, testing through ``tester``.

    ``client`` is an ``anthropic.AsyncAnthropic`` (default: one built from the environment,
    closed at the end). ``wrap_up_at`` is the number of steps after which tools are withdrawn
    and the final function is asked for; it is kept below ``max_steps`` so a wrap-up happens.
    """
    if max_steps < 1 or max_attempts < 1:
        raise ValueError("max_steps and max_attempts must be at least 1")
    if not 0.0 <= target_accuracy <= 1.0:
        raise ValueError(f"target_accuracy must be within [0, 1], got {target_accuracy}")
    import anthropic  # lazily: the service runs without it when no LLM is configured

    own_client = client is None
    if own_client:
        client = anthropic.AsyncAnthropic()
    tools = AgentTools(name, source, tester, target_accuracy=target_accuracy, max_attempts=max_attempts)
    loop = _Loop(
        client,
        tools,
        api_error=anthropic.APIError,
        name=name,
        model=model,
        max_steps=max_steps,
        wrap_up_at=min(max(wrap_up_at, 0), max_steps - 1),
        max_tokens=max_tokens,
        system=system_prompt(name, target_accuracy=target_accuracy, max_attempts=max_attempts),
        on_event=on_event,
    )
    try:
        return await loop.run(first_message(name, start_code))
    finally:
        if own_client:
            await client.close()


class _Loop:
    """The state of one run: the conversation, the step and token counts."""

    def __init__(
        self,
        client: Any,
        tools: AgentTools,
        *,
        api_error: type[Exception],
        name: str,
        model: str,
        max_steps: int,
        wrap_up_at: int,
        max_tokens: int,
        system: str,
        on_event: OnEvent | None,
    ) -> None:
        self.client = client
        self.tools = tools
        self.api_error = api_error
        self.name = name
        self.model = model
        self.max_steps = max_steps
        self.wrap_up_at = wrap_up_at
        self.max_tokens = max_tokens
        self.system = system
        self.on_event = on_event
        self.messages: list[dict[str, Any]] = []
        self.steps = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.cut_offs = 0

    async def emit(self, type: EventType, message: str, accuracy: float | None = None) -> None:
        if self.on_event is not None:
            await self.on_event(
                LoopEvent(
                    type,
                    _clip(message),
                    self.steps,
                    accuracy,
                    self.input_tokens,
                    self.output_tokens,
                    self.tools.attempts,
                )
            )

    async def run(self, opening: str) -> LoopResult:
        t = self.tools
        await self.emit(
            "started",
            f"agent loop for eval_{self.name} with {self.model}: target {t.target_accuracy:.0%}, "
            f"up to {t.max_attempts} tests and {self.max_steps} steps",
        )
        self.messages = [{"role": "user", "content": opening}]
        wrapped = False
        try:
            while self.steps < self.max_steps:
                if not wrapped and self.steps >= self.wrap_up_at:
                    wrapped = True
                    append_user_text(self.messages, wrap_up_message(self.name))
                    await self.emit(
                        "wrap_up", f"step limit near: asking for the final function ({self.steps} steps)"
                    )
                texts, tool_uses, cut_off = await self._call(with_tools=not wrapped)
                if cut_off:
                    self.cut_offs += 1
                    if self.cut_offs >= MAX_CUT_OFFS:
                        error = (
                            f"{self.cut_offs} replies in a row were cut off at max_tokens={self.max_tokens}"
                        )
                        await self.emit("failed", f"the model cannot finish a reply: {error}")
                        return self._result("cut_off", t.best_code, error)
                    # Its tool calls and code may be incomplete: nothing of it is run or kept.
                    self.messages.append({"role": "assistant", "content": "\n".join(texts) or "(cut off)"})
                    self.messages.append({"role": "user", "content": cut_off_message(self.max_tokens)})
                    await self.emit(
                        "thinking", "the reply was cut off at the token limit; asking for a shorter one"
                    )
                    continue
                self.cut_offs = 0
                code = extract_eval_code("\n".join(texts), self.name)
                if wrapped:
                    if code is not None:
                        return await self._finish("step_limit", code)
                    # Tools are gone: whatever it asked for cannot run, so only its text is kept.
                    self.messages.append({"role": "assistant", "content": "\n".join(texts) or "(no answer)"})
                    self.messages.append({"role": "user", "content": missing_code_message(self.name)})
                    continue
                if not tool_uses:
                    return await self._finish("model_finished", code)
                await self._run_tools(tool_uses)
                if t.target_reached:
                    return await self._finish("target_reached", t.best_code)
                if t.attempts_left == 0:
                    return await self._finish("attempts_exhausted", None)
            return await self._finish("step_limit", None)
        except self.api_error as exc:
            error = f"the model API failed after {self.steps} steps: {type(exc).__name__}: {exc}"
            await self.emit("failed", error)
            return self._result("error", t.best_code, error)

    async def _call(self, *, with_tools: bool) -> tuple[list[str], list[dict[str, Any]], bool]:
        """One step: call the model, record its turn, stream its text; its texts and tool calls, and
        whether the reply was cut off at max_tokens (then nothing of it is recorded)."""
        request: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens, "system": self.system}
        if with_tools:
            request.update(messages=self.messages, tools=TOOL_SCHEMAS)
        else:
            # The API refuses tool_use/tool_result blocks in a request that defines no tools.
            request.update(messages=as_text_messages(self.messages))
        response = await self.client.messages.create(**request)
        self.steps += 1
        usage = response.usage
        self.input_tokens += (
            (usage.input_tokens or 0)
            + (getattr(usage, "cache_creation_input_tokens", None) or 0)
            + (getattr(usage, "cache_read_input_tokens", None) or 0)
        )
        self.output_tokens += usage.output_tokens or 0
        blocks: list[dict[str, Any]] = []
        texts: list[str] = []
        tool_uses: list[dict[str, Any]] = []
        for block in response.content:
            if block.type == "text" and block.text:
                blocks.append({"type": "text", "text": block.text})
                texts.append(block.text)
                await self.emit("thinking", block.text)
            elif block.type == "tool_use":
                tool_input = block.input if isinstance(block.input, dict) else {"raw": block.input}
                use = {"type": "tool_use", "id": block.id, "name": block.name, "input": tool_input}
                blocks.append(use)
                tool_uses.append({**use, "input": block.input})
        if getattr(response, "stop_reason", None) == "max_tokens":
            return texts, [], True
        if with_tools and tool_uses:
            self.messages.append({"role": "assistant", "content": blocks})
        return texts, tool_uses, False

    async def _run_tools(self, tool_uses: list[dict[str, Any]]) -> None:
        """Run every tool call of the last turn and answer them all in one user message."""
        results: list[dict[str, Any]] = []
        for use in tool_uses:
            await self.emit("tool_called", f"{use['name']}({_describe_args(use['input'])})")
            outcome = await self.tools.run(use["name"], use["input"])
            await self.emit(
                "tool_result", f"{use['name']}: {'error: ' if outcome.is_error else ''}{outcome.summary}"
            )
            if outcome.test is not None:
                await self.emit("test_result", outcome.summary, accuracy=outcome.test.accuracy)
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": use["id"],
                "content": outcome.content,
            }
            if outcome.is_error:
                result["is_error"] = True
            results.append(result)
        self.messages.append({"role": "user", "content": results})

    async def _finish(self, stopped: StopReason, code: str | None) -> LoopResult:
        result = self._result(stopped, code or self.tools.best_code)
        accuracy = f", training accuracy {result.accuracy:.1%}" if result.accuracy is not None else ""
        outcome = "a final function" if result.code else "no usable function"
        await self.emit(
            "finished",
            f"stopped ({stopped.replace('_', ' ')}) after {self.steps} steps and "
            f"{result.attempts} tests with {outcome}{accuracy}",
            accuracy=result.accuracy,
        )
        return result

    def _result(self, stopped: StopReason, code: str | None, error: str | None = None) -> LoopResult:
        return LoopResult(
            code=code,
            accuracy=self.tools.accuracy_of(code),
            attempts=self.tools.attempts,
            steps=self.steps,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            notes=dict(self.tools.notes),
            stopped=stopped,
            error=error,
        )


def _clip(text: str, limit: int = MAX_EVENT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _describe_args(args: Any) -> str:
    """Tool arguments in one short line (code by its size, not its text)."""
    if not isinstance(args, dict):
        return repr(args)[:80]
    parts = []
    for key, value in args.items():
        if key == "code" and isinstance(value, str):
            parts.append(f"code: {len(value.splitlines())} lines")
        elif isinstance(value, list):
            parts.append(f"{key}: {len(value)} items")
        else:
            parts.append(f"{key}={_clip(str(value), 60)}")
    return ", ".join(parts)


__all__ = [
    "FAILED_STOPS",
    "CodeTester",
    "EventType",
    "LoopEvent",
    "LoopResult",
    "StopReason",
    "TraceSource",
    "TraceSummary",
    "extract_eval_code",
    "run_agent_loop",
]
