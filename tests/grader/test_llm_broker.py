"""ctx.call_llm through the grader's LLM broker: the eval function's temperature reaches the
model, and each grade is charged what its own calls cost (nothing for a cache hit)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agenteval.contracts.events import TrialCompleted
from agenteval.contracts.suite import Case, GraderSpec
from agenteval.contracts.trace import Trace
from agenteval.grader.app import GraderComponent
from agenteval.grader.settings import GraderSettings
from agenteval.runtime.settings import CommonSettings
from agenteval.stats import cost_usd
from tests.fakes.anthropic_server import FakeAnthropicServer, text_reply

MODEL = "claude-haiku-4-5"

LLM_EVAL = """
def eval_polite(trace, ctx=None):
    verdict = ctx.call_llm("Polite? " + trace["output"], temperature=0.7, max_tokens=5)
    return (1.0 if verdict == "yes" else 0.0), "llm said " + verdict
"""

# Tokens each prompt is billed for: a short answer is a cheap call, a long one an expensive one.
USAGE = {"short": (100, 10), "long": (20_000, 4_000)}


def completed(trial_index: int, output: str) -> TrialCompleted:
    return TrialCompleted(
        event_id=f"e{trial_index}",
        run_id="r1",
        trial_id=f"r1/c/{trial_index}",
        case=Case(id="c", input="hi"),
        graders=[GraderSpec(name="eval_function", params={"code": LLM_EVAL})],
        trial_index=trial_index,
        trials_total=3,
        trace=Trace(output=output),
    )


@pytest.fixture
async def grader(tmp_path: Path, anthropic_env: FakeAnthropicServer) -> AsyncIterator[GraderComponent]:
    def reply(request: dict[str, Any]) -> dict[str, Any]:
        prompt = request["messages"][-1]["content"]
        tokens = USAGE["long" if "long" in str(prompt) else "short"]
        return text_reply("yes", input_tokens=tokens[0], output_tokens=tokens[1])

    anthropic_env.handler = reply
    component = GraderComponent(CommonSettings(data_dir=tmp_path), GraderSettings(sandbox_workers=1))
    try:
        yield component
    finally:
        await component.close()


async def test_call_llm_passes_temperature_and_charges_each_call_its_own_cost(
    grader: GraderComponent, anthropic_env: FakeAnthropicServer
) -> None:
    # graded together: the sandbox runs both in one batch, yet each grade gets its own call's cost
    cheap, expensive = await grader.service.grade_many([completed(0, "short"), completed(1, "long")])
    assert cheap.passed and expensive.passed, (cheap.grades, expensive.grades)
    assert cheap.grades[0].cost_usd == pytest.approx(cost_usd(MODEL, *USAGE["short"]))
    assert expensive.grades[0].cost_usd == pytest.approx(cost_usd(MODEL, *USAGE["long"]))
    assert expensive.grading_cost_usd > 10 * cheap.grading_cost_usd > 0

    again = await grader.service.grade(completed(2, "short"))
    assert again.passed
    assert again.grades[0].cost_usd == 0.0, "a cached ctx.call_llm costs nothing"

    requests = anthropic_env.message_requests
    assert len(requests) == 2, "the third call was served from the cache"
    assert [r.body["temperature"] for r in requests if r.body] == [0.7, 0.7]
    assert grader.llm.calls == 3
    assert grader.llm.cost_usd == pytest.approx(cheap.grading_cost_usd + expensive.grading_cost_usd)
