"""Offline eval-function synthesizer: learns a small readable rule over general trace signals
from labeled traces and emits it as a standalone ``def eval_NAME(trace, ctx=None)``.

Used when no LLM is available; the agent loop (with an API key) does the same job by
writing code. Labeled demo datasets live in ``tests.fixtures.labeled_datasets``, the
development families in ``tests.fixtures.dev_families``; held-out accuracy on families
written blind to it is in EVALGEN.md. Synthesis takes seconds for a few hundred traces:
call it off the event loop (its read caches are safe across threads).
"""

from agenteval.eval_generator.synthesizer._api import (
    ALLOWED_IMPORTS,
    SynthesisResult,
    evaluate_code,
    load_eval_function,
    run_code,
    signal_rows,
    split_dataset,
    synthesize,
    to_bool_label,
)
from agenteval.eval_generator.synthesizer.emit import function_name, imported_modules
from agenteval.eval_generator.synthesizer.signals import SIGNALS, SIGNALS_BY_NAME, Signal

__all__ = [
    "ALLOWED_IMPORTS",
    "SIGNALS",
    "SIGNALS_BY_NAME",
    "Signal",
    "SynthesisResult",
    "evaluate_code",
    "function_name",
    "imported_modules",
    "load_eval_function",
    "run_code",
    "signal_rows",
    "split_dataset",
    "synthesize",
    "to_bool_label",
]
