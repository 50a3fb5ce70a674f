"""Sandboxed execution of Python eval functions (``def eval_NAME(trace, ctx=None)``).

:class:`SandboxPool` runs eval code in persistent, rlimited worker processes behind an
AST check, a restricted namespace and an audit hook (see ``_worker.py`` for the walls);
every failure comes back as an :class:`EvalResult` whose ``error`` names the
:class:`Rule` that stopped it. :func:`check_code` validates code without any worker.

Semantics worth knowing:

- The eval function is the single top-level ``eval_*`` def (or the name passed as
  ``function``); it gets ``ctx`` only if it takes a second positional parameter.
- Each trace runs in a fresh module namespace (the compiled code is cached), so no state
  carries from one trace to the next; traces arrive as their JSON form.
- Imports: :data:`DEFAULT_ALLOWED_IMPORTS` plus top-level modules the caller allows per
  call; workers run ``-I -S``, so only the stdlib is importable.
- Known limits of the walls: ``str.format`` can still render the repr of a dunder
  attribute (text only, never the object); a library class reached through an alias
  can still be patched by plain assignment, which would affect later evals in the same
  worker (direct ``json.X = ...`` and ``setattr`` on library classes are refused).
"""

from agenteval.sandbox._policy import DEFAULT_ALLOWED_IMPORTS
from agenteval.sandbox._pool import SandboxPool, check_code
from agenteval.sandbox._types import (
    EvalResult,
    LLMCallback,
    LLMReply,
    LLMRequest,
    Rule,
    SandboxError,
    SandboxLimits,
)

__all__ = [
    "DEFAULT_ALLOWED_IMPORTS",
    "EvalResult",
    "LLMCallback",
    "LLMReply",
    "LLMRequest",
    "Rule",
    "SandboxError",
    "SandboxLimits",
    "SandboxPool",
    "check_code",
]
