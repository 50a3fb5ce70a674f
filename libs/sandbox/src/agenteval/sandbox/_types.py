"""The data the sandbox hands back: limits, results, structured errors, LLM requests."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum


class Rule(StrEnum):
    """Why an eval call failed; ``SandboxError.rule`` is one of these values."""

    SYNTAX_ERROR = "syntax_error"
    NO_EVAL_FUNCTION = "no_eval_function"
    IMPORT_NOT_ALLOWED = "import_not_allowed"
    FORBIDDEN_ATTRIBUTE = "forbidden_attribute"
    FORBIDDEN_BUILTIN = "forbidden_builtin"
    FORBIDDEN_OPERATION = "forbidden_operation"
    """Blocked at run time by the audit hook (process creation, sockets, file access, ...)."""
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_TOO_LARGE = "output_too_large"
    RECURSION_LIMIT = "recursion_limit"
    EXCEPTION = "exception"
    BAD_RETURN = "bad_return"
    WORKER_CRASHED = "worker_crashed"
    """The worker process died mid-call for another reason (killed, crashed); it is replaced."""


@dataclass(frozen=True)
class SandboxError:
    """A structured failure: the rule that stopped the call and what exactly was blocked."""

    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.message}"


@dataclass(frozen=True)
class EvalResult:
    """The outcome of one eval function call on one trace; failures are data, not exceptions."""

    score: float | None
    """Score in [0, 1]; None when ``error`` is set."""
    explanation: str
    """The explanation the eval function returned ("" on error)."""
    error: SandboxError | None
    """Why the call failed, or None."""
    duration_ms: float
    """Time the eval function ran (wall clock)."""
    llm_calls: int = 0
    """How many ``ctx.call_llm`` calls it made (for cost accounting)."""
    llm_cost_usd: float = 0.0
    """What those calls cost, each at its own price as the LLM callback reported it."""

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class LLMRequest:
    """One ``ctx.call_llm(...)`` from an eval function, passed to the pool's LLM callback."""

    prompt: str
    model: str | None
    """None: the callback's default model."""
    temperature: float
    max_tokens: int


@dataclass(frozen=True)
class LLMReply:
    """An LLM callback's answer with what the call cost (0 for a cache hit)."""

    text: str
    cost_usd: float = 0.0


LLMCallback = Callable[[LLMRequest], Awaitable[str | LLMReply]]
"""Answers one ``ctx.call_llm``: a plain text (costing nothing) or an :class:`LLMReply`."""


@dataclass(frozen=True)
class SandboxLimits:
    """Limits of one eval call; the pool applies them to every call it runs."""

    timeout_s: float = 2.0
    """Wall-clock time per trace (time spent waiting for the LLM callback is not counted)."""
    cpu_s: int = 10
    """CPU seconds per trace, the rlimit backstop behind ``timeout_s``."""
    memory_mb: int = 512
    """Address-space limit of a worker process."""
    max_output_bytes: int = 8192
    """Largest explanation accepted; longer ones fail with ``output_too_large``."""
    max_error_chars: int = 2000
    """Exception messages are truncated to this length."""
    max_open_files: int = 16
    """RLIMIT_NOFILE of a worker."""
    max_llm_calls: int = 20
    """``ctx.call_llm`` calls allowed per trace."""
    max_llm_prompt_bytes: int = 200_000
    """Largest prompt ``ctx.call_llm`` accepts."""
    llm_timeout_s: float = 120.0
    """How long one LLM callback may take before the eval function sees an error."""
    recursion_limit: int = 1000
    """``sys.setrecursionlimit`` in the worker."""
    startup_timeout_s: float = 30.0
    """How long a new worker may take to report ready."""
