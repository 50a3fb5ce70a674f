"""What a generation is asked and what it reports: the checks of its request (the contract's
GenerationRequest), progress events, usage and the result the job runner saves. No transport,
no storage."""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from agenteval.contracts.errors import InvalidArgument, Unavailable
from agenteval.contracts.evals import GenerationEventType, GenerationOutcome, GenerationRequest

if TYPE_CHECKING:
    from agenteval.eval_generator.generation.selection import Candidate

EVAL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,99}$")
Labeled = tuple[str, dict[str, Any], str]  # (trace id, trace dict, "positive"|"negative")
MIN_TRACES = 10
MAX_ATTEMPTS = 50
MAX_STEPS = 500
METHODS = ("auto", "llm", "synthesizer")


class Backends(Protocol):
    """What generation needs from other services (the transcript-store and the grader)."""

    async def labeled_traces(self, dataset: str) -> tuple[int, list[Labeled]]:
        """(dataset version, its labeled traces)."""

    async def label_counts(self, dataset: str) -> tuple[int, int]:
        """(positive, negative) labeled traces of ``dataset``; NotFound when there is no such dataset."""

    async def test_code(self, code: str, traces: list[Labeled]) -> dict[str, Any]:
        """TestEvalCode on ``traces``: accuracy, total, correct, incorrect, errors, mismatches, code_error."""


ProgressType = GenerationEventType


@dataclass
class Progress:
    type: ProgressType
    message: str
    accuracy: float | None = None
    step: int = 0


@dataclass
class Usage:
    """What one run of a generation spent so far (the job adds up its runs)."""

    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    attempts: int = 0
    steps: int = 0
    stop_reason: str | None = None


Emit = Callable[[Progress], Awaitable[None]]
OnUsage = Callable[[Usage], Awaitable[None]]
Outcome = GenerationOutcome


@dataclass
class GenerationResult:
    """What a generation decided; the job runner saves it (or keeps ``kept``)."""

    outcome: Outcome
    train_accuracy: float
    holdout_accuracy: float
    usage: Usage
    message: str
    save: dict[str, Any] | None = None
    """Fields of the eval version to save (status active or candidate); None when kept."""
    kept: dict[str, Any] | None = None
    """The saved version that stays (outcome kept)."""
    candidates: list[Candidate] = field(default_factory=list)


class ModelUnusable(Unavailable):
    """The model could not be used (API errors, cut-off replies) and no fallback was allowed."""


def llm_available() -> bool:
    return bool(os.environ.get("ANTHROPIC_API_KEY"))


def validate(req: GenerationRequest) -> None:
    """Every argument error, before any work (InvalidArgument)."""
    if not EVAL_NAME.match(req.name or ""):
        raise InvalidArgument(f"invalid eval name {req.name!r}: a letter, then letters, digits or _")
    if not req.dataset:
        raise InvalidArgument("generation needs a dataset of labeled traces")
    if req.method not in METHODS:
        raise InvalidArgument(f"method must be auto, llm or synthesizer, got {req.method!r}")
    if not 0.0 < req.target_accuracy <= 1.0:
        raise InvalidArgument(f"target accuracy must be above 0 and at most 1, got {req.target_accuracy:g}")
    if not 0.0 < req.holdout_fraction < 0.9:
        raise InvalidArgument(f"holdout fraction must be between 0 and 0.9, got {req.holdout_fraction:g}")
    if not 1 <= req.max_attempts <= MAX_ATTEMPTS:
        raise InvalidArgument(f"max attempts must be 1 to {MAX_ATTEMPTS}, got {req.max_attempts}")
    if not 2 <= req.max_steps <= MAX_STEPS:
        raise InvalidArgument(
            f"max steps must be 2 to {MAX_STEPS} (one to work, one to wrap up), got {req.max_steps}"
        )
    if not req.model.strip():
        raise InvalidArgument("model must not be empty")
    if req.method == "llm" and not llm_available() and not req.allow_fallback:
        raise InvalidArgument(
            "method 'llm' needs ANTHROPIC_API_KEY; use 'synthesizer' (or 'auto') offline, "
            "or allow a fallback to the synthesizer"
        )


def check_counts(dataset: str, positives: int, negatives: int) -> None:
    if positives + negatives < MIN_TRACES or not positives or not negatives:
        raise InvalidArgument(
            f"dataset {dataset!r} needs at least {MIN_TRACES} labeled traces with both labels "
            f"(has {positives + negatives}: {positives} positive, {negatives} negative)"
        )
