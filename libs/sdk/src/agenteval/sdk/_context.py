"""AgentContext: what an agent under test gets besides its input.

Through it the agent's tool calls and LLM calls are recorded into the trial's trace,
its tools see the case's state and mocks, and its randomness is seeded per trial so a
run can be replayed.
"""

from __future__ import annotations

import copy
import inspect
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

from agenteval.contracts.suite import is_function_mock, is_table_mock
from agenteval.contracts.trace import Step, Usage


class ToolError(Exception):
    """Raised by :meth:`AgentContext.call_tool` when the tool failed; the error is already recorded."""


class AgentContext:
    """The recorder and environment of one trial.

    Agents call ``ctx.call_tool(name, fn, **arguments)`` (or ``await ctx.acall_tool(...)``)
    so the call, its result or error and its latency land in the trace;
    ``ctx.record_llm_call(...)`` for model calls; ``ctx.say(text)`` for intermediate
    assistant messages. ``ctx.state`` is a private copy of the case's initial state that
    tools may change; it becomes the trace's final state.
    """

    def __init__(
        self,
        *,
        run_id: str = "",
        case_id: str = "",
        trial_index: int = 0,
        seed: int = 0,
        initial_state: dict[str, Any] | None = None,
        tool_mocks: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.run_id = run_id
        self.case_id = case_id
        self.trial_index = trial_index
        self.seed = seed
        self.rng = random.Random(seed)
        self.state: dict[str, Any] = copy.deepcopy(initial_state or {})
        self.tool_mocks = dict(tool_mocks or {})
        self.metadata = dict(metadata or {})
        self.steps: list[Step] = []
        self.usage = Usage()

    # -- tools -------------------------------------------------------------------------
    def call_tool(self, name: str, fn: Callable[..., Any] | None = None, /, **arguments: Any) -> Any:
        """Call tool ``name`` (its mock when the case has one, else ``fn``) and record it.

        A tool that raises is recorded with its error, and :class:`ToolError` is raised
        so the agent can handle it like a real tool failure.
        """
        started = time.perf_counter()
        try:
            result = self._invoke(name, fn, arguments)
            if inspect.isawaitable(result):
                if inspect.iscoroutine(result):
                    result.close()  # never to be awaited
                raise TypeError(f"tool {name!r} is async: use 'await ctx.acall_tool(...)'")
        except Exception as exc:
            raise self._failed(name, arguments, exc, started) from exc
        self._record_tool(name, arguments, result, None, started)
        return result

    async def acall_tool(
        self, name: str, fn: Callable[..., Any | Awaitable[Any]] | None = None, /, **arguments: Any
    ) -> Any:
        """Async form of :meth:`call_tool`; ``fn`` may be sync or async."""
        started = time.perf_counter()
        try:
            result = self._invoke(name, fn, arguments)
            if inspect.isawaitable(result):
                result = await result
        except Exception as exc:
            raise self._failed(name, arguments, exc, started) from exc
        self._record_tool(name, arguments, result, None, started)
        return result

    def _invoke(self, name: str, fn: Callable[..., Any] | None, arguments: dict[str, Any]) -> Any:
        if name in self.tool_mocks:
            return self._mock_result(name, arguments)
        if fn is None:
            raise ToolError(f"tool {name!r} has no implementation and no mock in this case")
        return fn(**arguments)

    def _failed(self, name: str, arguments: dict[str, Any], exc: Exception, started: float) -> ToolError:
        self._record_tool(name, arguments, None, exc, started)
        return ToolError(str(exc))

    def record_tool_call(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        result: Any = None,
        error: str | None = None,
        latency_ms: float = 0.0,
    ) -> None:
        """Record a tool call the agent made by itself."""
        self.steps.append(
            Step(
                type="tool_call",
                name=name,
                arguments=dict(arguments or {}),
                result=_jsonable(result),
                error=error,
                latency_ms=latency_ms,
            )
        )

    # -- model calls and messages ------------------------------------------------------
    def record_llm_call(
        self,
        model: str,
        input_tokens: int = 0,
        output_tokens: int = 0,
        latency_ms: float = 0.0,
        output: str | None = None,
    ) -> None:
        """Record one LLM call and add its tokens to the trial's usage."""
        self.steps.append(
            Step(
                type="llm_call",
                model=model,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                latency_ms=latency_ms,
                content=output,
            )
        )
        self.usage.input_tokens += input_tokens
        self.usage.output_tokens += output_tokens
        per_model = self.usage.models.setdefault(model, {"input_tokens": 0, "output_tokens": 0})
        per_model["input_tokens"] += input_tokens
        per_model["output_tokens"] += output_tokens

    def say(self, content: str, role: str = "assistant") -> None:
        """Record an intermediate message (the final answer is the agent's return value)."""
        self.steps.append(Step(type="message", role=role, content=content))

    # -- internals ---------------------------------------------------------------------
    def _mock_result(self, name: str, arguments: dict[str, Any]) -> Any:
        """The mock's answer: a fixed value; ``{"error": ...}`` (the tool fails);
        ``{"python": "module:function"}`` (the function called with the arguments as keyword
        arguments: what it returns, or the tool fails with what it raises); or a table by
        arguments, ``{"by_arguments": [{"when": {...}, "result": ...}, ...], "otherwise": ...}``:
        the first row whose ``when`` items all equal the call's arguments answers (its result
        may itself be ``{"error": ...}`` or ``{"python": ...}``), else ``otherwise``, else the
        tool fails saying so."""
        mock = self.tool_mocks[name]
        if is_table_mock(mock):
            for row in mock["by_arguments"] or []:
                when = (row.get("when") or {}) if isinstance(row, dict) else None
                if isinstance(when, dict) and all(arguments.get(k) == v for k, v in when.items()):
                    mock = row.get("result")
                    break
            else:
                if "otherwise" not in mock:
                    raise ToolError(f"no mocked result of tool {name!r} for arguments {arguments!r}")
                mock = mock["otherwise"]
        if isinstance(mock, dict) and set(mock) == {"error"}:
            raise ToolError(str(mock["error"]))
        if is_function_mock(mock):
            return _mock_function(name, mock["python"])(**arguments)
        return copy.deepcopy(mock)

    def _record_tool(
        self, name: str, arguments: dict[str, Any], result: Any, exc: BaseException | None, started: float
    ) -> None:
        error = None
        if exc is not None:
            error = str(exc) or type(exc).__name__
        self.record_tool_call(name, arguments, result, error, (time.perf_counter() - started) * 1000.0)


_functions: dict[str, Callable[..., Any]] = {}
"""Mock functions loaded in this process, by spec."""


def _mock_function(tool: str, spec: Any) -> Callable[..., Any]:
    """The function of a ``{"python": spec}`` mock; ToolError when it cannot be loaded."""
    if isinstance(spec, str) and spec in _functions:
        return _functions[spec]
    from agenteval.sdk._functions import load_function

    try:
        fn = load_function(spec)
    except ValueError as exc:
        raise ToolError(f"the mock of tool {tool!r} cannot be loaded: {exc}") from None
    _functions[spec] = fn
    return fn


def _jsonable(value: Any) -> Any:
    """Tool results are stored as JSON: keep JSON types, stringify the rest."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "model_dump"):
        return _jsonable(value.model_dump(mode="json"))
    return repr(value)
