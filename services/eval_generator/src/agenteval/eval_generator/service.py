"""The eval-generator's domain: from a labeled dataset to the eval function worth saving.

The dataset is split (seeded, stratified) into a training part the generator may see and a
held-out part it never sees. Every candidate (the synthesizer's rule, each function the model
tested, the model's final function, the version saved before) is measured on the same
training split by the grader's sandbox (TestEvalCode), not in this process; code that fails
or times out on any trace is never chosen. The chosen function is then measured on the
held-out part. It is promoted (what ``eval:NAME`` resolves to) only when both accuracies
reach the target; otherwise it is saved as a candidate. Saving is the job runner's business
(:mod:`agenteval.eval_generator.jobs`), so a generation ends in one transaction.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from agenteval.contracts.errors import InvalidArgument, Unavailable
from agenteval.eval_generator.repository import EvalRepository
from agenteval.eval_generator.selection import Candidate, choose, gather, measure_all

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


@dataclass
class GenerateRequest:
    name: str
    dataset: str
    method: Literal["auto", "llm", "synthesizer"] = "auto"
    model: str = "claude-sonnet-4-5"
    target_accuracy: float = 0.8
    max_attempts: int = 5
    max_steps: int = 50
    holdout_fraction: float = 0.3
    seed: int = 0
    allow_fallback: bool = False
    """With method llm: choose among the other candidates when the model cannot be used."""

    def to_json(self) -> str:
        return json.dumps(self.__dict__, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> GenerateRequest:
        data = json.loads(text)
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


ProgressType = Literal[
    "started",
    "thinking",
    "tool_called",
    "tool_result",
    "test_result",
    "candidate",
    "warning",
    "saved",
    "kept",
    "failed",
    "cancelled",
]


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
Outcome = Literal["promoted", "candidate", "kept"]


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


_LOOP_EVENTS: dict[str, ProgressType] = {
    "tool_called": "tool_called",
    "tool_result": "tool_result",
    "test_result": "test_result",
    "failed": "warning",
}
"""The loop's events as generation events (the others are its thinking)."""


def llm_available() -> bool:
    return bool(os.environ.get("ANTHROPIC_API_KEY"))


def validate(req: GenerateRequest) -> None:
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


def _check_counts(dataset: str, positives: int, negatives: int) -> None:
    if positives + negatives < MIN_TRACES or not positives or not negatives:
        raise InvalidArgument(
            f"dataset {dataset!r} needs at least {MIN_TRACES} labeled traces with both labels "
            f"(has {positives + negatives}: {positives} positive, {negatives} negative)"
        )


class EvalGenerator:
    def __init__(self, repo: EvalRepository, backends: Backends) -> None:
        self.repo = repo
        self.backends = backends

    async def check(self, req: GenerateRequest) -> None:
        """Arguments and the dataset, before a job is queued: InvalidArgument or NotFound."""
        validate(req)
        positives, negatives = await self.backends.label_counts(req.dataset)
        _check_counts(req.dataset, positives, negatives)

    async def generate(self, req: GenerateRequest, emit: Emit, on_usage: OnUsage) -> GenerationResult:
        from agenteval.eval_generator.loop_backends import SplitCodeTester
        from agenteval.eval_generator.synthesizer import split_dataset, synthesize

        validate(req)
        version, labeled = await self.backends.labeled_traces(req.dataset)
        labels = [lab for _, _, lab in labeled]
        _check_counts(req.dataset, labels.count("positive"), labels.count("negative"))
        train_idx, test_idx = split_dataset(labeled, labels, holdout=req.holdout_fraction, seed=req.seed)
        train = [labeled[i] for i in train_idx]
        held_out = [labeled[i] for i in test_idx]
        method = req.method if req.method != "auto" else ("llm" if llm_available() else "synthesizer")
        fallback = req.allow_fallback or req.method == "auto"
        if method == "llm" and not llm_available():
            await emit(
                Progress("warning", "no ANTHROPIC_API_KEY: falling back to the synthesizer as allowed")
            )
            method = "synthesizer"
        await emit(
            Progress(
                "started",
                f"{len(train)} traces to learn from, {len(held_out)} held out "
                f"(dataset {req.dataset} v{version}); method {method}",
            )
        )
        usage = Usage(stop_reason="synthesizer")
        await on_usage(usage)
        synth = await asyncio.to_thread(
            synthesize, [t for _, t, _ in train], [lab for _, _, lab in train], req.name, seed=req.seed
        )
        await emit(Progress("thinking", f"synthesizer rule: {synth.rule_description}"))

        tester = SplitCodeTester(train, self.backends)
        final_code: str | None = None
        if method == "llm":
            result = await self._llm(req, tester, synth.code, emit, on_usage)
            usage = Usage(
                model=req.model,
                input_tokens=result.input_tokens,
                output_tokens=result.output_tokens,
                attempts=result.attempts,
                steps=result.steps,
                stop_reason=result.stopped,
            )
            await on_usage(usage)
            if result.stopped in ("error", "cut_off"):
                if not fallback:
                    raise ModelUnusable(
                        f"the model could not be used: {result.error}; nothing was saved (rerun it, or "
                        "allow a fallback to choose among the synthesizer's rule and what the model tested)"
                    )
                await emit(
                    Progress(
                        "warning",
                        f"the model could not be used ({result.error}); choosing among the other "
                        "candidates, as a fallback is allowed",
                    )
                )
            else:
                final_code = result.code

        previous = await self.repo.get(req.name) or next(iter(await self.repo.versions(req.name)), None)
        candidates = gather(
            previous=(previous["version"], previous["code"]) if previous else None,
            synthesizer=synth.code,
            tested=tester.tested,
            final=final_code,
        )
        await measure_all(candidates, tester.measure, emit)
        chosen = choose(candidates)
        if chosen is None:
            raise Unavailable(
                "no candidate can run on the training traces (each failed or timed out on some); "
                "nothing was saved"
            )
        model_best = max(
            (c for c in candidates if c.source.startswith("model") and c.eligible),
            key=lambda c: c.train_accuracy,
            default=None,
        )
        if method == "llm" and not chosen.source.startswith("model"):
            theirs = (
                f"the best of them had {model_best.train_accuracy:.1%}"
                if model_best
                else "none could run on every training trace"
            )
            await emit(
                Progress(
                    "warning",
                    f"the model's functions were not chosen: {chosen.describe()} had "
                    f"{chosen.train_accuracy:.1%} on the training traces, {theirs}",
                )
            )
        else:
            await emit(Progress("thinking", f"chose {chosen.describe()}: {chosen.note}"))

        train_accuracy = chosen.train_accuracy
        holdout_report = await self.backends.test_code(chosen.code, held_out)
        holdout_accuracy = float(holdout_report["accuracy"])
        holdout_errors = int(holdout_report.get("errors") or 0) or (
            1 if holdout_report.get("code_error") else 0
        )
        await emit(
            Progress(
                "test_result",
                f"held-out accuracy {holdout_accuracy:.1%} on {len(held_out)} traces never seen"
                + (f" ({holdout_errors} errors)" if holdout_errors else ""),
                accuracy=holdout_accuracy,
            )
        )
        target = req.target_accuracy
        meets = train_accuracy >= target and holdout_accuracy >= target and not holdout_errors
        if chosen.source == "previous":
            assert previous is not None
            return GenerationResult(
                "kept",
                train_accuracy,
                holdout_accuracy,
                usage,
                f"kept {req.name} v{previous['version']}: no candidate did better on the training traces",
                kept=previous,
                candidates=candidates,
            )
        now = datetime.now(UTC)
        generator = req.model if chosen.source.startswith("model") else "synthesizer"
        if meets:
            message = f"saved {req.name} v{{version}}: the current version, eval:{req.name} uses it"
        else:
            short = []
            if train_accuracy < target:
                short.append(f"training {train_accuracy:.1%}")
            if holdout_accuracy < target:
                short.append(f"held-out {holdout_accuracy:.1%}")
            if holdout_errors:
                short.append(f"{holdout_errors} held-out traces failed")
            message = (
                f"saved {req.name} v{{version}} as a candidate below the target of {target:.0%} "
                f"({', '.join(short)}): eval:{req.name} does not use it until it is promoted "
                f"(agent-eval evals promote {req.name}@{{version}})"
            )
        save = {
            "name": req.name,
            "code": chosen.code,
            "generator": generator,
            "train_accuracy": train_accuracy,
            "holdout_accuracy": holdout_accuracy,
            "dataset": req.dataset,
            "dataset_version": version,
            "split_json": json.dumps(
                {
                    "seed": req.seed,
                    "holdout_fraction": req.holdout_fraction,
                    "train": [i for i, _, _ in train],
                    "holdout": [i for i, _, _ in held_out],
                }
            ),
            "description": synth.rule_description
            if generator == "synthesizer"
            else f"written by {generator}",
            "created_at": now,
            "status": "active" if meets else "candidate",
            "promoted_at": now if meets else None,
            "target_accuracy": target,
            "candidates_json": json.dumps([c.to_dict() for c in candidates]),
        }
        return GenerationResult(
            "promoted" if meets else "candidate",
            train_accuracy,
            holdout_accuracy,
            usage,
            message,
            save=save,
            candidates=candidates,
        )

    async def _llm(
        self, req: GenerateRequest, tester: Any, start_code: str, emit: Emit, on_usage: OnUsage
    ) -> Any:
        from agenteval.eval_generator.agent_loop import run_agent_loop
        from agenteval.eval_generator.loop_backends import SplitTraceSource

        async def on_event(ev: Any) -> None:
            await emit(
                Progress(
                    _LOOP_EVENTS.get(ev.type, "thinking"), ev.message, accuracy=ev.accuracy, step=ev.step
                )
            )
            await on_usage(
                Usage(
                    model=req.model,
                    input_tokens=ev.input_tokens,
                    output_tokens=ev.output_tokens,
                    attempts=ev.attempts,
                    steps=ev.step,
                )
            )

        return await run_agent_loop(
            req.name,
            SplitTraceSource(tester.train),
            tester,
            model=req.model,
            target_accuracy=req.target_accuracy,
            max_attempts=req.max_attempts,
            max_steps=req.max_steps,
            wrap_up_at=max(1, req.max_steps - 5),
            start_code=start_code,
            on_event=on_event,
        )


__all__ = [
    "Backends",
    "EvalGenerator",
    "GenerateRequest",
    "GenerationResult",
    "Labeled",
    "ModelUnusable",
    "Progress",
    "Usage",
    "validate",
]
