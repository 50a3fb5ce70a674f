"""The eval-generator's domain: from a labeled dataset to a saved, versioned eval function.

The dataset is split (seeded, stratified) into a training part the generator may see
and a held-out part it never sees; the saved eval records the accuracy on both, both
measured by the grader's sandbox (TestEvalCode), not in this process.
"""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from agenteval.contracts.errors import InvalidArgument
from agenteval.contracts.records import EvalSplit
from agenteval.eval_generator.repository import EvalRepository

EVAL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,99}$")
Labeled = tuple[str, dict[str, Any], str]  # (trace id, trace dict, "positive"|"negative")


class Backends(Protocol):
    """What generation needs from other services (the transcript-store and the grader)."""

    async def labeled_traces(self, dataset: str) -> tuple[int, list[Labeled]]:
        """(dataset version, its labeled traces)."""

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


@dataclass
class Progress:
    type: str  # started, thinking, tool_called, tool_result, test_result, saved, failed
    message: str
    accuracy: float | None = None
    step: int = 0
    eval: dict[str, Any] | None = None


Emit = Callable[[Progress], Awaitable[None]]


def llm_available() -> bool:
    return bool(os.environ.get("ANTHROPIC_API_KEY"))


class EvalGenerator:
    def __init__(self, repo: EvalRepository, backends: Backends) -> None:
        self.repo = repo
        self.backends = backends

    def _validate(self, req: GenerateRequest) -> None:
        if not EVAL_NAME.match(req.name or ""):
            raise InvalidArgument(f"invalid eval name {req.name!r}: a letter, then letters, digits or _")
        if not req.dataset:
            raise InvalidArgument("generation needs a dataset of labeled traces")
        if not 0.0 < req.holdout_fraction < 0.9:
            raise InvalidArgument("holdout fraction must be between 0 and 0.9")
        if req.method not in ("auto", "llm", "synthesizer"):
            raise InvalidArgument(f"method must be auto, llm or synthesizer, got {req.method!r}")
        if req.method == "llm" and not llm_available():
            raise InvalidArgument(
                "method 'llm' needs ANTHROPIC_API_KEY; use 'synthesizer' (or 'auto') offline"
            )

    async def generate(self, req: GenerateRequest, emit: Emit) -> dict[str, Any]:
        from agenteval.eval_generator.synthesizer import split_dataset, synthesize

        self._validate(req)
        version, labeled = await self.backends.labeled_traces(req.dataset)
        labels = [lab for _, _, lab in labeled]
        if len(labeled) < 10 or len(set(labels)) < 2:
            raise InvalidArgument(
                f"dataset {req.dataset!r} needs at least 10 labeled traces with both labels "
                f"(has {len(labeled)}: {labels.count('positive')} positive, {labels.count('negative')} negative)"
            )
        train_idx, test_idx = split_dataset(labeled, labels, holdout=req.holdout_fraction, seed=req.seed)
        train = [labeled[i] for i in train_idx]
        held_out = [labeled[i] for i in test_idx]
        method = req.method if req.method != "auto" else ("llm" if llm_available() else "synthesizer")
        await emit(
            Progress(
                "started",
                f"{len(train)} traces to learn from, {len(held_out)} held out "
                f"(dataset {req.dataset} v{version}); method {method}",
            )
        )

        synth = synthesize([t for _, t, _ in train], [lab for _, _, lab in train], req.name, seed=req.seed)
        await emit(Progress("thinking", f"synthesizer rule: {synth.rule_description}"))
        code, generator = synth.code, "synthesizer"
        if method == "llm":
            code, generator = await self._llm(req, train, synth.code, emit)

        train_report = await self.backends.test_code(code, train)
        if generator != "synthesizer" and train_report.get("code_error"):
            # The model's final code must run; the synthesizer's rule it started from does.
            await emit(
                Progress(
                    "thinking",
                    f"the model's code cannot run ({train_report['code_error']}); keeping the synthesizer's",
                )
            )
            code, generator = synth.code, "synthesizer"
            train_report = await self.backends.test_code(code, train)
        if train_report.get("code_error"):
            await emit(Progress("failed", f"the generated code cannot run: {train_report['code_error']}"))
            raise InvalidArgument(f"generated code failed validation: {train_report['code_error']}")
        await emit(
            Progress(
                "test_result",
                f"training accuracy {train_report['accuracy']:.1%}",
                accuracy=train_report["accuracy"],
            )
        )
        holdout_report = await self.backends.test_code(code, held_out)
        await emit(
            Progress(
                "test_result",
                f"held-out accuracy {holdout_report['accuracy']:.1%} on {len(held_out)} traces never seen",
                accuracy=holdout_report["accuracy"],
            )
        )
        row = await self.repo.save(
            name=req.name,
            code=code,
            generator=generator,
            train_accuracy=train_report["accuracy"],
            holdout_accuracy=holdout_report["accuracy"],
            dataset=req.dataset,
            dataset_version=version,
            split_json=EvalSplit(
                seed=req.seed,
                holdout_fraction=req.holdout_fraction,
                train=[i for i, _, _ in train],
                holdout=[i for i, _, _ in held_out],
            ).model_dump_json(),
            description=synth.rule_description if generator == "synthesizer" else f"written by {generator}",
            created_at=datetime.now(UTC),
        )
        await emit(
            Progress(
                "saved", f"saved {req.name} v{row['version']}", accuracy=holdout_report["accuracy"], eval=row
            )
        )
        return row

    async def _llm(
        self, req: GenerateRequest, train: list[Labeled], start_code: str, emit: Emit
    ) -> tuple[str, str]:
        from agenteval.eval_generator.agent_loop import run_agent_loop
        from agenteval.eval_generator.loop_backends import SplitCodeTester, SplitTraceSource

        async def on_event(ev: Any) -> None:
            await emit(
                Progress(
                    ev.type
                    if ev.type in ("thinking", "tool_called", "tool_result", "test_result")
                    else "thinking",
                    ev.message,
                    accuracy=ev.accuracy,
                    step=ev.step,
                )
            )

        result = await run_agent_loop(
            req.name,
            SplitTraceSource(train),
            SplitCodeTester(train, self.backends),
            model=req.model,
            target_accuracy=req.target_accuracy,
            max_attempts=req.max_attempts,
            max_steps=req.max_steps,
            wrap_up_at=max(1, req.max_steps - 5),
            start_code=start_code,
            on_event=on_event,
        )
        if not result.code:
            await emit(
                Progress(
                    "thinking", f"the model gave no usable code ({result.stopped}); keeping the synthesizer's"
                )
            )
            return start_code, "synthesizer"
        return result.code, req.model
