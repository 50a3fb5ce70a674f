"""Graders: plugins registered by name that score one transcript in [0, 1] with an explanation.

Importing this package registers every built-in code grader:

- tool calls: tool_called, tool_not_called, tool_args, tool_sequence, tool_selection
- the final answer: output_equals, output_contains, output_not_contains, output_matches, output_json
- the final state: state_check
- budgets: max_steps, efficiency, latency_budget
- behaviour: termination, grounding, error_handling
"""

from __future__ import annotations

# Imported for their side effect: each module registers its graders.
from agenteval.grading import (  # noqa: F401
    behaviour,
    budget,
    eval_function,
    grounding,
    llm_judge,
    output,
    state,
    tool_calls,
    tool_order,
)
from agenteval.grading._registry import (
    Grade,
    GradeContext,
    GradeOutcome,
    NoParams,
    UnknownGraderError,
    get_grader,
    grader,
    register_prefix,
    registered_graders,
    run_grader,
    validate_spec,
)

__all__ = [
    "Grade",
    "GradeContext",
    "GradeOutcome",
    "NoParams",
    "UnknownGraderError",
    "get_grader",
    "grader",
    "register_prefix",
    "registered_graders",
    "run_grader",
    "validate_spec",
]
