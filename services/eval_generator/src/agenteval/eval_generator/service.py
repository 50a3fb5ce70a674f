"""The eval-generator's domain: from a labeled dataset to the eval function worth saving.

The dataset is split (seeded, stratified) into a training part the generator may see and a
held-out part it never sees. Every candidate (the synthesizer's rule, each function the model
tested, the model's final function, the version saved before) is measured on the same
training split by the grader's sandbox (TestEvalCode), not in this process; code that fails
or times out on any trace is never chosen. The chosen function is then measured on the
held-out part. It is promoted (what ``eval:NAME`` resolves to) only when both accuracies
reach the target; otherwise it is saved as a candidate. Saving is the job runner's business
(:mod:`agenteval.eval_generator.generation.jobs`), so a generation ends in one transaction.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import Any

from agenteval.contracts.errors import Unavailable
from agenteval.contracts.evals import EvalSplit, GenerationRequest
from agenteval.eval_generator.agent.loop import FAILED_STOPS
from agenteval.eval_generator.generation.request import (
    Backends,
    Emit,
    GenerationResult,
    Labeled,
    ModelUnusable,
    OnUsage,
    Progress,
    ProgressType,
    Usage,
    check_counts,
    llm_available,
    validate,
)
from agenteval.eval_generator.generation.selection import Candidate, choose, gather, measure_all
from agenteval.eval_generator.repository import EvalRepository

_LOOP_EVENTS: dict[str, ProgressType] = {
    "tool_called": "tool_called",
    "tool_result": "tool_result",
    "test_result": "test_result",
    "failed": "warning",
}
"""The loop's events as generation events (the others are its thinking)."""


class EvalGenerator:
    def __init__(self, repo: EvalRepository, backends: Backends) -> None:
        self.repo = repo
        self.backends = backends

    async def check(self, req: GenerationRequest) -> None:
        """Arguments and the dataset, before a job is queued: InvalidArgument or NotFound."""
        validate(req)
        positives, negatives = await self.backends.label_counts(req.dataset)
        check_counts(req.dataset, positives, negatives)

    async def generate(self, req: GenerationRequest, emit: Emit, on_usage: OnUsage) -> GenerationResult:
        """Split, synthesize, let the model work (if it is to), choose, measure on the held-out part."""
        from agenteval.eval_generator.agent.sources import SplitCodeTester
        from agenteval.eval_generator.synthesizer import split_dataset, synthesize

        validate(req)
        version, labeled = await self.backends.labeled_traces(req.dataset)
        labels = [lab for _, _, lab in labeled]
        check_counts(req.dataset, labels.count("positive"), labels.count("negative"))
        train_idx, test_idx = split_dataset(labeled, labels, holdout=req.holdout_fraction, seed=req.seed)
        train = [labeled[i] for i in train_idx]
        held_out = [labeled[i] for i in test_idx]
        method = req.method if req.method != "auto" else ("llm" if llm_available() else "synthesizer")
        if method == "llm" and not llm_available():  # validate() let it through: a fallback is allowed
            await emit(Progress("warning", "no ANTHROPIC_API_KEY: the synthesizer instead, as allowed"))
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
            final_code, usage = await self._model(req, tester, synth.code, emit, on_usage)

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
        await self._explain(chosen, candidates, method, emit)

        holdout = await self.backends.test_code(chosen.code, held_out)
        holdout_accuracy = float(holdout["accuracy"])
        holdout_errors = int(holdout.get("errors") or 0)
        await emit(
            Progress(
                "test_result",
                f"held-out accuracy {holdout_accuracy:.1%} on {len(held_out)} traces never seen"
                + (f" ({holdout_errors} failed)" if holdout_errors else ""),
                accuracy=holdout_accuracy,
            )
        )
        result = GenerationResult(
            "candidate", chosen.train_accuracy, holdout_accuracy, usage, "", candidates=candidates
        )
        if chosen.source == "previous":
            assert previous is not None
            result.outcome, result.kept = "kept", previous
            result.message = (
                f"kept {req.name} v{previous['version']}: no candidate did better on the training traces"
            )
            return result
        target = req.target_accuracy
        short = [
            f"{what} {accuracy:.1%}"
            for what, accuracy in (("training", chosen.train_accuracy), ("held-out", holdout_accuracy))
            if accuracy < target
        ] + ([f"{holdout_errors} held-out traces failed"] if holdout_errors else [])
        if not short:
            result.outcome = "promoted"
            result.message = f"saved {req.name} v{{version}}: the current version, eval:{req.name} uses it"
        else:
            result.message = (
                f"saved {req.name} v{{version}} as a candidate below the target of {target:.0%} "
                f"({', '.join(short)}): eval:{req.name} does not use it until it is promoted "
                f"(agent-eval evals promote {req.name}@{{version}})"
            )
        now = datetime.now(UTC)
        generator = req.model if chosen.source.startswith("model") else "synthesizer"
        result.save = {
            "name": req.name,
            "code": chosen.code,
            "generator": generator,
            "train_accuracy": chosen.train_accuracy,
            "holdout_accuracy": holdout_accuracy,
            "dataset": req.dataset,
            "dataset_version": version,
            "split_json": EvalSplit(
                seed=req.seed,
                holdout_fraction=req.holdout_fraction,
                train=[i for i, _, _ in train],
                holdout=[i for i, _, _ in held_out],
            ).model_dump_json(),
            "description": synth.rule_description
            if generator == "synthesizer"
            else f"written by {generator}",
            "created_at": now,
            "status": "active" if result.outcome == "promoted" else "candidate",
            "promoted_at": now if result.outcome == "promoted" else None,
            "target_accuracy": target,
            "candidates_json": json.dumps([c.to_dict() for c in candidates]),
        }
        return result

    async def _model(
        self, req: GenerationRequest, tester: Any, start_code: str, emit: Emit, on_usage: OnUsage
    ) -> tuple[str | None, Usage]:
        """Run the model's loop: its final code (None when it cannot be used and a fallback is
        allowed) and what it spent. ModelUnusable when it cannot be used and no fallback is."""
        result = await self._llm(req, tester, start_code, emit, on_usage)
        usage = Usage(
            model=req.model,
            input_tokens=result.input_tokens,
            output_tokens=result.output_tokens,
            attempts=result.attempts,
            steps=result.steps,
            stop_reason=result.stopped,
        )
        await on_usage(usage)
        if result.stopped not in FAILED_STOPS:
            return result.code, usage
        if not (req.allow_fallback or req.method == "auto"):
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
        return None, usage

    @staticmethod
    async def _explain(chosen: Candidate, candidates: list[Candidate], method: str, emit: Emit) -> None:
        if method != "llm" or chosen.source.startswith("model"):
            await emit(Progress("thinking", f"chose {chosen.describe()}: {chosen.note}"))
            return
        model_best = max(
            (c for c in candidates if c.source.startswith("model") and c.eligible),
            key=lambda c: c.train_accuracy,
            default=None,
        )
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

    async def _llm(
        self, req: GenerationRequest, tester: Any, start_code: str, emit: Emit, on_usage: OnUsage
    ) -> Any:
        from agenteval.eval_generator.agent.loop import run_agent_loop
        from agenteval.eval_generator.agent.sources import SplitTraceSource

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
    "GenerationRequest",
    "GenerationResult",
    "Labeled",
    "ModelUnusable",
    "Progress",
    "Usage",
    "validate",
]
