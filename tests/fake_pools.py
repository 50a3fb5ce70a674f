"""Sandbox pool fakes for tests of the eval_function grader and the grader service."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenteval.sandbox import EvalResult

CODE = "import pathlib\ndef eval_x(trace, ctx=None):\n    return 1.0, 'ok'\n"
"""An eval function that imports a module only a suite's allowed_imports permits."""


class RecordingPool:
    """Answers every call with a pass and remembers the imports each call allowed."""

    def __init__(self) -> None:
        self.allowed: list[list[str]] = []

    async def run(
        self, code: str, trace: Any, *, allowed_imports: Sequence[str] = (), **_: Any
    ) -> EvalResult:
        self.allowed.append(list(allowed_imports))
        return EvalResult(1.0, "ok", None, 0.1)
