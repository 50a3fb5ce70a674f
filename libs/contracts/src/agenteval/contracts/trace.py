"""The trace of one agent trial: what the agent saw, every step it took, what it answered.

This is the one transcript schema of agenteval. The runner captures it, the
transcript-store persists it, graders and eval functions read it (as the plain dict
from :meth:`Trace.to_eval_dict`), and imported traces are normalized to it.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

TrialStatus = Literal["ok", "error", "timeout"]

MAX_COUNT = 2**63 - 1
"""Counts (tokens) are 64-bit everywhere they are stored and sent."""
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
"""A count: 0 .. 2**63-1."""
Millis = Annotated[float, Field(allow_inf_nan=False)]
"""A duration in milliseconds: finite (imported spans may have clock skew, so not always >= 0)."""
StepType = Literal["message", "tool_call", "llm_call"]


class Message(BaseModel):
    """One chat message of the conversation given to the agent."""

    model_config = ConfigDict(extra="allow")

    role: Literal["system", "user", "assistant", "tool"] = "user"
    """Who said it."""
    content: str = ""
    """What was said (plain text)."""


class Step(BaseModel):
    """One thing the agent did: a message, a tool call or an LLM call.

    Flat on purpose: eval functions read ``step["type"]`` and the fields that type uses.
    """

    model_config = ConfigDict(extra="allow")

    type: StepType
    """Kind of step."""
    name: str | None = None
    """Tool name (tool_call)."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """Tool arguments (tool_call)."""
    result: Any = None
    """Tool result, JSON-compatible (tool_call)."""
    error: str | None = None
    """Error message when the tool call failed (tool_call)."""
    role: str | None = None
    """Speaker (message)."""
    content: str | None = None
    """Text (message), or the model's output (llm_call)."""
    model: str | None = None
    """Model name (llm_call)."""
    input_tokens: Count = 0
    """Prompt tokens (llm_call)."""
    output_tokens: Count = 0
    """Completion tokens (llm_call)."""
    latency_ms: Millis = 0.0
    """How long the step took."""


class Usage(BaseModel):
    """Token totals of a trial, summed over its LLM calls."""

    input_tokens: Count = 0
    """Prompt tokens."""
    output_tokens: Count = 0
    """Completion tokens."""
    models: dict[str, dict[str, Count]] = Field(default_factory=dict)
    """Per model: {"input_tokens": n, "output_tokens": n}, so cost can be priced per model."""


class TrialError(BaseModel):
    """Why a trial failed to produce an answer: errors are data, stored like any result."""

    code: str
    """Stable machine-readable code: agent_error, timeout, agent_not_found, ..."""
    message: str
    """What a person should read."""
    retryable: bool = False
    """Whether running the trial again may succeed."""


class Trace(BaseModel):
    """Everything one trial did."""

    model_config = ConfigDict(extra="allow")

    input: list[Message] = Field(default_factory=list)
    """The conversation given to the agent."""
    steps: list[Step] = Field(default_factory=list)
    """Every step in order."""
    output: str | None = None
    """The agent's final answer."""
    state: dict[str, Any] = Field(default_factory=dict)
    """The agent's final state (what its tools changed), for state checks."""
    usage: Usage = Field(default_factory=Usage)
    """Tokens used."""
    latency_ms: Millis = 0.0
    """Wall time of the trial."""
    status: TrialStatus = "ok"
    """ok, error (the agent raised) or timeout."""
    error: TrialError | None = None
    """Set when status is not ok."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Free-form labels (agent version, seed, ...)."""

    @property
    def tool_calls(self) -> list[Step]:
        return [s for s in self.steps if s.type == "tool_call"]

    def to_eval_dict(self) -> dict[str, Any]:
        """The plain dict eval functions and graders receive (adds ``tool_calls``)."""
        d = self.model_dump(mode="json")
        d["tool_calls"] = [s for s in d["steps"] if s["type"] == "tool_call"]
        return d

    def problem(self) -> str | None:
        """What makes this trace unfit to store and send (a count past 64 bits, a negative or
        non-finite number that its recorder did not validate), or None when it is fit."""
        counts = {
            "usage.input_tokens": self.usage.input_tokens,
            "usage.output_tokens": self.usage.output_tokens,
        }
        for model, per in self.usage.models.items():
            for key, value in per.items():
                counts[f"usage.models[{model!r}].{key}"] = value
        for where, value in counts.items():
            if not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
                return f"{where} is {value!r}: token counts must be whole numbers from 0 to 2**63-1"
        if not math.isfinite(self.latency_ms) or self.latency_ms < 0:
            return f"latency_ms is {self.latency_ms!r}: it must be a finite number of milliseconds"
        return None

    @classmethod
    def from_eval_dict(cls, d: dict[str, Any]) -> Trace:
        """The trace back from :meth:`to_eval_dict`'s dict (``tool_calls`` is derived, so dropped)."""
        return cls.model_validate({k: v for k, v in d.items() if k != "tool_calls"})
