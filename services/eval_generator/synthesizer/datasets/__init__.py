"""Labeled demo datasets: seeded generators of realistic traces with label noise.

Each generator is ``fn(n=300, seed=0, noise=...) -> LabeledDataset`` and covers one agent
and failure mode; ``DATASETS`` maps their names to them (the synthesizer tests and
``bench/bench_synthesizer.py`` run all of them).
"""

from collections.abc import Callable

from agenteval.eval_generator.synthesizer.datasets._build import LabeledDataset
from agenteval.eval_generator.synthesizer.datasets.loops import loops_and_evasion
from agenteval.eval_generator.synthesizer.datasets.mixed import billing_two_failures
from agenteval.eval_generator.synthesizer.datasets.multiturn import outdated_instruction
from agenteval.eval_generator.synthesizer.datasets.research import research_hallucination
from agenteval.eval_generator.synthesizer.datasets.risky import risky_actions
from agenteval.eval_generator.synthesizer.datasets.support import support_tool_errors

DATASETS: dict[str, Callable[..., LabeledDataset]] = {
    "support_tool_errors": support_tool_errors,
    "risky_actions": risky_actions,
    "research_hallucination": research_hallucination,
    "outdated_instruction": outdated_instruction,
    "loops_and_evasion": loops_and_evasion,
    "billing_two_failures": billing_two_failures,
}
"""Every demo dataset by name."""

__all__ = [
    "DATASETS",
    "LabeledDataset",
    "billing_two_failures",
    "loops_and_evasion",
    "outdated_instruction",
    "research_hallucination",
    "risky_actions",
    "support_tool_errors",
]
