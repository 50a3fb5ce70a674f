"""The suite contract: cases, their inputs, expectations and graders.

YAML files and the Python API both produce these models; the runner receives one in
SubmitRun (as JSON) and carries each case on its trial events.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from agenteval.contracts.trace import Message


class GraderSpec(BaseModel):
    """A grader chosen by its registered name, with its parameters.

    In YAML a grader is written ``- tool_called: {tool: search}`` or just ``- max_steps``
    when it needs no parameters; ``{name: ..., params: {...}}`` is accepted too.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    """Registered grader name (tool_called, output_contains, eval:NAME, ...)."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Parameters, validated by the grader's own parameter model at suite load."""

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"name": value, "params": {}}
        if isinstance(value, dict) and "name" not in value and len(value) == 1:
            ((name, params),) = value.items()
            if params is None:
                params = {}
            if not isinstance(params, dict):
                raise ValueError(
                    f"parameters of grader {name!r} must be a mapping, got {type(params).__name__}"
                )
            return {"name": name, "params": params}
        return value


class Case(BaseModel):
    """One eval case: a task given to the agent and how its transcript is judged."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:\-]+$")
    """Stable id, unique in the suite (letters, digits, _ . : -)."""
    description: str = ""
    """What the case checks, for people."""
    input: list[Message]
    """The conversation (a plain string is one user message)."""
    initial_state: dict[str, Any] = Field(default_factory=dict)
    """State the agent's tools start from (a fresh copy every trial)."""
    tool_mocks: dict[str, Any] = Field(default_factory=dict)
    """Canned tool results by tool name: a fixed value; ``{"error": "..."}`` makes the tool
    fail; ``{"python": "module:function"}`` calls the function with the call's arguments as
    keyword arguments (what it returns is the result, what it raises a tool error);
    ``{"by_arguments": [{"when": {ARG: VALUE}, "result": ...}], "otherwise": ...}``
    answers by the call's arguments (a result or the fallback may be any of the above)."""
    expected_tools: list[str] | None = None
    """Tools the agent is expected to use (for tool_selection and judges)."""
    expected_output: str | None = None
    """Reference answer, when there is one."""
    graders: list[GraderSpec] = Field(default_factory=list)
    """Graders of this case, added to the suite's default graders."""
    trials: int | None = Field(default=None, ge=1, le=1000)
    """Trials for this case (the run's k, when given, wins)."""
    tags: list[str] = Field(default_factory=list)
    """Labels for filtering and reports (fast, slow, negative, ...)."""
    timeout_s: float | None = Field(default=None, gt=0, le=3600)
    """Per-trial timeout for this case (overrides the suite's)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Free-form data handed to the agent."""

    @field_validator("input", mode="before")
    @classmethod
    def _string_input(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [{"role": "user", "content": value}]
        return value

    @field_validator("input")
    @classmethod
    def _non_empty(cls, value: list[Message]) -> list[Message]:
        if not value:
            raise ValueError("input needs at least one message")
        return value


class Suite(BaseModel):
    """A named set of cases, with defaults for all of them."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    """Suite name, used to find runs of the same suite."""
    description: str = ""
    """What the suite covers."""
    agent: str | None = None
    """Default agent spec (``python:module:function``) when the CLI gives none."""
    trials: int = Field(default=3, ge=1, le=1000)
    """k: trials per case unless a case or the run says otherwise."""
    timeout_s: float = Field(default=60.0, gt=0, le=3600)
    """Per-trial timeout."""
    graders: list[GraderSpec] = Field(default_factory=list)
    """Default graders applied to every case."""
    allowed_imports: list[str] = Field(default_factory=list)
    """Extra modules eval functions of this suite may import."""
    cases: list[Case] = Field(min_length=1)
    """The cases."""

    @field_validator("allowed_imports")
    @classmethod
    def _module_names(cls, value: list[str]) -> list[str]:
        for name in value:
            if not name.isidentifier():
                raise ValueError(
                    f"takes top-level module names (like 'pathlib', not 'os.path'), got {name!r}"
                )
        return value

    @model_validator(mode="after")
    def _unique_ids(self) -> Suite:
        seen: set[str] = set()
        for i, case in enumerate(self.cases):
            if case.id in seen:
                raise ValueError(f"cases[{i}].id: duplicate case id {case.id!r}")
            seen.add(case.id)
        return self

    def graders_for(self, case: Case) -> list[GraderSpec]:
        """The graders that judge ``case``: suite defaults, then the case's own."""
        return [*self.graders, *case.graders]

    def trials_for(self, case: Case, k: int | None = None) -> int:
        """Trials for ``case``: the run's k when given, else the case's own, else the suite's."""
        return k or case.trials or self.trials


def is_function_mock(value: Any) -> bool:
    """Whether a mock value (or a table's result) is ``{"python": SPEC}``: a dict with that one key."""
    return isinstance(value, dict) and len(value) == 1 and "python" in value


def is_table_mock(value: Any) -> bool:
    """Whether a tool mock is a table by arguments: ``{"by_arguments": [...], "otherwise": ...}``."""
    return isinstance(value, dict) and "by_arguments" in value and set(value) <= {"by_arguments", "otherwise"}


def mock_answers(mock: Any) -> list[tuple[str, Any]]:
    """Each value a tool mock may answer with, and where it is in the mock: the mock itself,
    or a table's rows' results and its fallback."""
    if not is_table_mock(mock):
        return [("", mock)]
    rows = mock["by_arguments"] if isinstance(mock["by_arguments"], list) else []
    found = [
        (f".by_arguments[{i}].result", row.get("result"))
        for i, row in enumerate(rows)
        if isinstance(row, dict)
    ]
    if "otherwise" in mock:
        found.append((".otherwise", mock["otherwise"]))
    return found


def parse_function_spec(spec: Any) -> tuple[str, str]:
    """``(module or file path, attribute)`` of ``module:function`` (or ``path/to/file.py:function``);
    ValueError saying what is wrong when malformed."""
    if not isinstance(spec, str):
        raise ValueError(f"python: must be a string 'module:function', got {type(spec).__name__}")
    module, sep, attr = spec.strip().rpartition(":")
    if not sep or not module or not attr or not all(part.isidentifier() for part in attr.split(".")):
        raise ValueError(f"python: {spec!r} must look like 'module:function' (or 'path/to/file.py:function')")
    return module, attr
