"""Sandboxed execution of Python eval functions (``def eval_NAME(trace, ctx=None)``).

:class:`SandboxPool` runs eval code in persistent, rlimited worker processes behind an
AST check, a restricted namespace and an audit hook; every failure comes back as an
:class:`EvalResult` whose ``error`` names the rule that stopped it. :func:`check_code`
validates code statically without any worker.
"""

from agenteval.sandbox._policy import DEFAULT_ALLOWED_IMPORTS
from agenteval.sandbox._pool import SandboxPool, check_code
from agenteval.sandbox._types import (
    EvalResult,
    LLMCallback,
    LLMRequest,
    Rule,
    SandboxError,
    SandboxLimits,
)

__all__ = [
    "DEFAULT_ALLOWED_IMPORTS",
    "EvalResult",
    "LLMCallback",
    "LLMRequest",
    "Rule",
    "SandboxError",
    "SandboxLimits",
    "SandboxPool",
    "check_code",
]
