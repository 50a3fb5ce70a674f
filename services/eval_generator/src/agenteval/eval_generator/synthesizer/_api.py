"""synthesize(), split_dataset() and evaluate_code(): the offline eval generator's entry points."""

from __future__ import annotations

import builtins
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agenteval.eval_generator.synthesizer._trace_access import _signal_value
from agenteval.eval_generator.synthesizer.emit import emit, function_name
from agenteval.eval_generator.synthesizer.learn import learn
from agenteval.eval_generator.synthesizer.signals import SIGNALS

ALLOWED_IMPORTS: tuple[str, ...] = ("json", "re", "typing", "math", "datetime", "difflib")
"""Modules generated eval code may import (the sandbox's documented minimum)."""

EvalFunction = Callable[..., tuple[float, str]]

_POSITIVE = frozenset({"positive", "pos", "good", "pass", "passed", "true", "yes", "1", "thumbs_up", "up"})
_NEGATIVE = frozenset({"negative", "neg", "bad", "fail", "failed", "false", "no", "0", "thumbs_down", "down"})


@dataclass(frozen=True)
class SynthesisResult:
    """A synthesized eval function and how well its rule fit the training traces."""

    code: str
    """Standalone source of the eval function (imports only ALLOWED_IMPORTS)."""
    function_name: str
    """``eval_<name>``."""
    train_accuracy: float
    """Accuracy of the rule on all training traces."""
    cv_accuracy: float
    """Stratified cross-validated accuracy of the chosen rule shape, on the training traces only."""
    rule_description: str
    """The rule in a few IF/ELSE lines."""
    signals_used: list[str]
    """Names of the signals the rule reads."""
    seconds: float = 0.0
    """Wall time of the synthesis."""


def to_bool_label(label: object) -> bool:
    """A label as a bool: bools, 0/1, or words like positive/negative, good/bad, pass/fail."""
    if isinstance(label, bool):
        return label
    if isinstance(label, int) and label in (0, 1):
        return bool(label)
    if isinstance(label, str):
        word = label.strip().lower().replace("-", "_").replace(" ", "_")
        if word in _POSITIVE:
            return True
        if word in _NEGATIVE:
            return False
    raise ValueError(f"cannot read {label!r} as a positive/negative label")


def split_dataset(
    items: Sequence[Any], labels: Sequence[bool | str], holdout: float = 0.3, seed: int = 0
) -> tuple[list[int], list[int]]:
    """Seeded split stratified by label: (train indices, held-out indices), each sorted."""
    if len(items) != len(labels):
        raise ValueError(f"{len(items)} items but {len(labels)} labels")
    if not 0.0 < holdout < 1.0:
        raise ValueError(f"holdout must be between 0 and 1, got {holdout}")
    rng = random.Random(seed)
    flags = [to_bool_label(x) for x in labels]
    train: list[int] = []
    test: list[int] = []
    for cls in (True, False):
        members = [i for i, y in enumerate(flags) if y == cls]
        rng.shuffle(members)
        cut = round(len(members) * holdout)
        test += members[:cut]
        train += members[cut:]
    return sorted(train), sorted(test)


def signal_rows(traces: Sequence[dict[str, Any]]) -> list[list[float]]:
    """Every signal's value on every trace (one row per trace, SIGNALS order)."""
    return [[_signal_value(s.fn, t if isinstance(t, dict) else {}) for s in SIGNALS] for t in traces]


def synthesize(
    traces: Sequence[dict[str, Any]], labels: Sequence[bool | str], name: str, seed: int = 0
) -> SynthesisResult:
    """Learn a small rule over the signals from labeled traces and emit it as an eval function.

    The emitted code is checked to reproduce the in-process rule on every training trace.
    """
    started = time.perf_counter()
    if len(traces) != len(labels):
        raise ValueError(f"{len(traces)} traces but {len(labels)} labels")
    if not traces:
        raise ValueError("synthesize needs at least one labeled trace")
    flags = [to_bool_label(x) for x in labels]
    names = [s.name for s in SIGNALS]
    descriptions = {s.name: s.description for s in SIGNALS}
    rows = signal_rows(traces)
    polarity = {s.name: s.polarity for s in SIGNALS}
    learned = learn(rows, flags, names, seed=seed, descriptions=descriptions, polarity=polarity)
    model = learned.model
    code = emit(model, name, descriptions, learned.train_accuracy, learned.cv_accuracy, len(traces))
    emitted = load_eval_function(code)
    for trace, row in zip(traces, rows, strict=True):
        decision = model.decide(dict(zip(names, row, strict=True)))
        expected = (decision.outcome.score, decision.explanation(dict(zip(names, row, strict=True))))
        got = emitted(trace)
        if tuple(got) != expected:
            raise RuntimeError(f"emitted code disagrees with the learned rule: {got!r} != {expected!r}")
    return SynthesisResult(
        code=code,
        function_name=function_name(name),
        train_accuracy=learned.train_accuracy,
        cv_accuracy=learned.cv_accuracy,
        rule_description=model.describe(),
        signals_used=model.signals_used(),
        seconds=time.perf_counter() - started,
    )


def load_eval_function(code: str, allowed_imports: Sequence[str] = ALLOWED_IMPORTS) -> EvalFunction:
    """Exec eval code in a fresh namespace whose imports are limited to ``allowed_imports``.

    For tests and offline scoring only: this is not a sandbox (agenteval.sandbox is).
    """
    allowed = frozenset(allowed_imports) | {"__future__"}

    def guarded_import(
        name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        if level != 0 or name.partition(".")[0] not in allowed:
            raise ImportError(f"import of {name!r} is not allowed")
        return builtins.__import__(name, globals, locals, fromlist, level)

    safe_builtins = dict(vars(builtins))
    safe_builtins["__import__"] = guarded_import
    namespace: dict[str, Any] = {"__builtins__": safe_builtins, "__name__": "eval_code"}
    exec(compile(code, "<eval>", "exec"), namespace)
    functions = [v for k, v in namespace.items() if k.startswith("eval_") and callable(v)]
    if len(functions) != 1:
        raise ValueError(f"eval code must define exactly one eval_* function, found {len(functions)}")
    return functions[0]


def run_code(code: str, traces: Sequence[dict[str, Any]]) -> list[tuple[float, str]]:
    """(score, explanation) of the eval code on each trace; an exception scores 0 with its message."""
    fn = load_eval_function(code)
    out: list[tuple[float, str]] = []
    for trace in traces:
        try:
            score, explanation = fn(trace)
            out.append((float(score), str(explanation)))
        except Exception as exc:
            out.append((0.0, f"error: {type(exc).__name__}: {exc}"))
    return out


def evaluate_code(code: str, traces: Sequence[dict[str, Any]], labels: Sequence[bool | str]) -> float:
    """Accuracy of the eval code (score >= 0.5 means positive) against the labels."""
    if len(traces) != len(labels):
        raise ValueError(f"{len(traces)} traces but {len(labels)} labels")
    if not traces:
        return 0.0
    results = run_code(code, traces)
    hits = sum((score >= 0.5) == to_bool_label(y) for (score, _), y in zip(results, labels, strict=True))
    return hits / len(traces)
