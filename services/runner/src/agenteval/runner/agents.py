"""Agent adapters: how the runner reaches the agent under test, by spec.

- ``python:module:function`` (or ``python:path/to/file.py:function``): a sync or async
  callable ``agent(messages, ctx)`` returning the final answer or a trace dict. Loaded and
  called inside an agent worker process (``workers/``), or in the runner itself when agents
  are trusted (``AGENTEVAL_RUNNER_AGENTS_IN_PROCESS``).
- ``grpc://host:port``: a server implementing ``agenteval.v1.AgentService``.
- ``http://...`` / ``https://...``: an HTTP endpoint the case is POSTed to (``http_agent``).
- ``anthropic:MODEL``: Claude in a tool-use loop over the case's mocked tools (``anthropic_agent``),
  in an agent worker like ``python:`` agents: its tools' ``{"python": ...}`` mocks are user code.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import inspect
import os
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agenteval.contracts.errors import InvalidArgument, PermissionDenied
from agenteval.contracts.suite import Case, is_function_mock, mock_answers
from agenteval.sdk import AgentContext


@dataclass
class AgentOutput:
    """What an agent returned: its answer, and optionally steps/state it reports itself."""

    output: str | None
    extra: dict[str, Any]


class BadAgentOutput(Exception):
    """The agent answered, but not in the shape its contract asks for."""


class Agent(Protocol):
    spec: str

    async def run(self, messages: list[dict[str, Any]], ctx: AgentContext) -> AgentOutput: ...


def normalize_result(result: Any) -> AgentOutput:
    """An agent may return a string, a trace-like dict, or anything printable."""
    if result is None:
        return AgentOutput(None, {})
    if isinstance(result, str):
        return AgentOutput(result, {})
    if isinstance(result, dict):
        out = result.get("output", result.get("answer"))
        return AgentOutput(None if out is None else str(out), result)
    return AgentOutput(str(result), {})


class AgentThreads:
    """The threads sync agents run on, and the calls they were abandoned in.

    A thread cannot be stopped: a sync agent that times out keeps its thread until it returns
    by itself. Such calls are counted (with when they were abandoned) so the worker that holds
    them can be retired before they use up its threads or a core.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._pool: ThreadPoolExecutor | None = None
        self.abandoned: dict[object, float] = {}
        """Timed-out calls still running (thread futures, or tasks that ignored cancellation),
        with the monotonic time they were abandoned."""

    async def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.size, thread_name_prefix="agent")
        # The call sees the trial's context variables (its captured output, its trial key).
        future = self._pool.submit(contextvars.copy_context().run, fn, *args)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            if not future.cancel():
                self.abandon(future)
            raise

    def abandon(self, call: object) -> None:
        """Remember ``call`` (a thread future or a task) as running past its trial's end."""
        if isinstance(call, concurrent.futures.Future | asyncio.Future) and call.done():
            return
        self.abandoned[call] = time.monotonic()
        done = getattr(call, "add_done_callback", None)
        if done is not None:
            done(lambda finished: self.abandoned.pop(finished, None))

    def oldest_abandoned_s(self) -> float:
        """How long the oldest abandoned call has run past its trial (0 when there is none)."""
        started = min(self.abandoned.values(), default=None)
        return 0.0 if started is None else time.monotonic() - started


threads = AgentThreads(64)
"""Where this process runs sync agents (an agent worker sizes its own)."""


class PythonAgent:
    """A Python callable imported by ``python:module:function``."""

    def __init__(self, spec: str, fn: Callable[..., Any]) -> None:
        self.spec = spec
        self.fn = fn
        self.is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
            getattr(fn, "__call__", None)  # noqa: B004 - async callable objects
        )

    async def run(self, messages: list[dict[str, Any]], ctx: AgentContext) -> AgentOutput:
        if self.is_async:
            return normalize_result(await self.fn(messages, ctx))
        result = await threads.call(self.fn, messages, ctx)
        if inspect.isawaitable(result):
            result = await result
        return normalize_result(result)


class GrpcAgent:
    """An agent behind ``AgentService`` (``grpc://host:port``)."""

    def __init__(self, spec: str, target: str) -> None:
        self.spec = spec
        self.target = target
        self._stub: Any = None

    async def run(self, messages: list[dict[str, Any]], ctx: AgentContext) -> AgentOutput:
        from agenteval.contracts import pb
        from agenteval.contracts.trace import Message
        from agenteval.runtime.grpc_server import channel
        from agenteval.v1 import agent_pb2, agent_pb2_grpc

        if self._stub is None:
            self._stub = agent_pb2_grpc.AgentServiceStub(channel(self.target))
        resp = await self._stub.RunAgent(
            agent_pb2.RunAgentRequest(
                run_id=ctx.run_id,
                case_id=ctx.case_id,
                trial_index=ctx.trial_index,
                seed=ctx.seed,
                messages=[pb.message_to_pb(Message.model_validate(m)) for m in messages],
                initial_state_json=pb.json_object_to_pb(ctx.state),
                tool_mocks_json=pb.json_object_to_pb(ctx.tool_mocks),
            )
        )
        extra: dict[str, Any] = {}
        try:
            if resp.steps:
                extra["steps"] = [pb.step_dict_from_pb(s, f"steps[{i}]") for i, s in enumerate(resp.steps)]
            if resp.state_json:
                extra["state"] = pb.json_object_from_pb(resp.state_json, "state_json")
        except InvalidArgument as exc:
            raise BadAgentOutput(f"the agent's RunAgentResponse does not fit: {exc}") from None
        if resp.input_tokens or resp.output_tokens:
            extra["usage"] = {"input_tokens": resp.input_tokens, "output_tokens": resp.output_tokens}
        return AgentOutput(resp.output, extra)


_cache: dict[str, Agent] = {}


def parse_python_spec(spec: str) -> tuple[str, str]:
    """``(module or path, attribute)`` of a ``python:`` spec; InvalidArgument when malformed."""
    module_name, sep, attr = spec[len("python:") :].rpartition(":")
    if not sep or not module_name or not attr:
        raise InvalidArgument(f"agent spec {spec!r} must look like python:module:function")
    return module_name, attr


def check_spec(spec: str) -> str:
    """The spec, stripped, if it has a known form (nothing is imported); InvalidArgument if not."""
    spec = (spec or "").strip()
    if spec.startswith("python:"):
        parse_python_spec(spec)
    elif spec.startswith("grpc://"):
        if not spec[len("grpc://") :]:
            raise InvalidArgument(f"agent spec {spec!r} needs host:port")
    elif spec.startswith("anthropic:"):
        if not spec[len("anthropic:") :].strip():
            raise InvalidArgument(f"agent spec {spec!r} needs a model: anthropic:claude-sonnet-4-5")
    elif spec.startswith(("http://", "https://")):
        if not spec.split("://", 1)[1].split("/", 1)[0]:
            raise InvalidArgument(f"agent spec {spec!r} needs a host: http://host[:port]/path")
    elif not spec:
        raise InvalidArgument(
            "no agent given: pass --agent python:module:function or set 'agent' in the suite"
        )
    else:
        raise InvalidArgument(
            f"unsupported agent spec {spec!r}: use python:module:function, grpc://host:port, "
            "http(s)://host/path or anthropic:MODEL"
        )
    return spec


REGISTERED_PREFIX = "agent:"
_AGENT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,99}$")


def load_registered_agents(path: Path) -> dict[str, str]:
    """The agents an operator registered by name (a YAML file ``agents: {NAME: SPEC}``);
    ValueError with a one-line reason when the file is wrong."""
    import yaml

    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise ValueError(f"agents file {path}: cannot read it: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"agents file {path}: not YAML/JSON: {exc}") from None
    agents = doc.get("agents") if isinstance(doc, dict) else None
    if not isinstance(agents, dict) or not agents:
        raise ValueError(f"agents file {path}: expected `agents:` mapping names to agent specs")
    out: dict[str, str] = {}
    for name, spec in agents.items():
        if not isinstance(name, str) or not _AGENT_NAME.match(name):
            raise ValueError(f"agents file {path}: {name!r} is not an agent name (letters, digits, _ . -)")
        if not isinstance(spec, str) or not spec.strip() or spec.startswith(REGISTERED_PREFIX):
            raise ValueError(
                f"agents file {path}: agents.{name}: give an agent spec (python:..., grpc://...)"
            )
        out[name] = spec.strip()
    return out


def resolve_registered(spec: str, registered: dict[str, str]) -> str | None:
    """The spec ``agent:NAME`` stands for, None when ``spec`` names no registered agent;
    InvalidArgument for an unknown name."""
    if not spec.startswith(REGISTERED_PREFIX):
        return None
    name = spec[len(REGISTERED_PREFIX) :]
    if name in registered:
        return registered[name]
    known = ", ".join(sorted(registered)) or "none (AGENTEVAL_RUNNER_AGENTS_FILE is unset)"
    raise InvalidArgument(f"agent {spec!r}: no agent registered by that name; registered: {known}")


def check_allowed(spec: str, modules: str | None, paths: bool, label: str = "") -> None:
    """Refuse a ``python:`` agent the runner's policy does not allow (see RunnerSettings.agent_modules);
    ``label`` names it in the error (by default "agent SPEC")."""
    spec = (spec or "").strip()
    if not spec.startswith("python:"):
        return
    label = label or f"agent {spec!r}"
    module_name, _ = parse_python_spec(spec)
    if module_name.endswith(".py") or "/" in module_name or os.sep in module_name:
        if not paths:
            raise PermissionDenied(
                f"{label}: this runner does not run code from file paths; run a module "
                "allowed by AGENTEVAL_RUNNER_AGENT_MODULES, or set AGENTEVAL_RUNNER_AGENT_PATHS=1"
            )
        return
    allowed = [m.strip() for m in (modules or "").split(",") if m.strip()]
    if "*" in allowed or any(module_name == m or module_name.startswith(m + ".") for m in allowed):
        return
    raise PermissionDenied(
        f"{label}: module {module_name!r} is not one this runner may run "
        f"(AGENTEVAL_RUNNER_AGENT_MODULES={modules or ''!r}); use a grpc:// agent, or ask the "
        "operator to allow the module"
    )


FUNCTION_AGENTS = ("python:", "anthropic:")
"""Agents that call a case's ``{"python": ...}`` tool mocks themselves (other agents get the
mocks as data)."""


def function_mocks(cases: list[Case]) -> dict[str, str]:
    """The ``python:`` spec of each distinct ``{"python": ...}`` tool mock in ``cases``, with where
    the first one is (for errors)."""
    found: dict[str, str] = {}
    for case in cases:
        for tool, mock in case.tool_mocks.items():
            for _, answer in mock_answers(mock):
                if is_function_mock(answer) and isinstance(answer["python"], str):
                    spec = "python:" + answer["python"].strip()
                    found.setdefault(spec, f"tool mock {tool!r} of case {case.id!r} ({spec})")
    return found


def _import_callable(spec: str) -> Callable[..., Any]:
    from agenteval.sdk._functions import load_function

    try:
        return load_function(spec[len("python:") :])
    except ValueError as exc:
        raise InvalidArgument(f"agent {spec!r}: {exc}") from None


def load_agent(spec: str) -> Agent:
    """The agent named by ``spec``; raises InvalidArgument with a reason when it cannot be loaded."""
    spec = (spec or "").strip()
    if spec in _cache:
        return _cache[spec]
    spec = check_spec(spec)
    agent: Agent
    if spec.startswith("python:"):
        agent = PythonAgent(spec, _import_callable(spec))
    elif spec.startswith(("http://", "https://")):
        from agenteval.runner.http_agent import HttpAgent

        agent = HttpAgent(spec)
    elif spec.startswith("anthropic:"):
        from agenteval.runner.anthropic_agent import AnthropicAgent

        agent = AnthropicAgent(spec)
    else:
        agent = GrpcAgent(spec, spec[len("grpc://") :])
    _cache[spec] = agent
    return agent
