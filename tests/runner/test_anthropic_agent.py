"""anthropic:MODEL agents through the real anthropic SDK against a local fake Messages API:
a tool-use loop over the case's mocked tools, tokens and cost recorded, API errors as trials
that say why, and two models compared side by side in one table."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client, TrialRecord
from tests.fakes.anthropic_server import FakeAnthropicServer, server_error, text_reply, tool_use_reply

pytestmark = pytest.mark.asyncio(loop_scope="module")
ROOT = Path(__file__).resolve().parents[2]
SUITE = Suite.model_validate(
    {
        "name": "models",
        "cases": [
            {
                "id": "order",
                "input": [
                    {"role": "system", "content": "You are a support agent."},
                    {"role": "user", "content": "Where is order 7?"},
                ],
                "tool_mocks": {"lookup_order": {"status": "shipped"}, "refund": {"error": "not allowed"}},
                "graders": [
                    {"tool_called": {"tool": "lookup_order"}},
                    {"output_contains": {"text": "shipped"}},
                ],
            }
        ],
    }
)


def reply(body: dict[str, Any]) -> Any:
    """claude-sonnet-4-5 looks the order up then answers from the tool's result;
    claude-haiku-4-5 answers without looking; claude-opus-4-1 is down."""
    model = body["model"]
    if model == "claude-opus-4-1":
        return server_error(500, "the model is down")
    last = body["messages"][-1]
    results = (
        [b for b in last["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
        if isinstance(last["content"], list)
        else []
    )
    if model == "claude-sonnet-4-5":
        if not results:
            return tool_use_reply(
                "lookup_order", {"id": "7"}, model=model, input_tokens=400, output_tokens=40
            )
        return text_reply(
            f"Order 7: {results[0]['content']}", model=model, input_tokens=500, output_tokens=30
        )
    return text_reply("I am not sure where it is.", model=model, input_tokens=300, output_tokens=20)


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer(reply) as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def stack(
    fake: FakeAnthropicServer, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[EmbeddedStack]:
    saved = {k: os.environ.get(k) for k in fake.env()}
    os.environ.update(fake.env())  # the runner (in this process) calls the fake
    try:
        async with EmbeddedStack(tmp_path_factory.mktemp("models")) as s:
            yield s
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


async def one_trial(client: Client, agent: str) -> tuple[TrialRecord, Any]:
    run = await client.submit(SUITE, agent=agent, k=1, timeout_s=30)
    done = await client.wait(run.run_id, timeout_s=60)
    for _ in range(100):
        trials = await client.trials(run.run_id)
        if trials and trials[0].passed is not None:
            return trials[0], done
        await asyncio.sleep(0.1)
    raise AssertionError("the trial was never stored graded")


async def test_a_tool_use_loop_over_the_mocked_tools_with_tokens_and_cost(
    stack: EmbeddedStack, fake: FakeAnthropicServer
) -> None:
    async with Client(stack.target) as client:
        trial, run = await one_trial(client, "anthropic:claude-sonnet-4-5")
    assert trial.status == "ok" and trial.passed, trial.grades
    trace = trial.trace
    assert trace is not None and trace.output == 'Order 7: {"status": "shipped"}'
    [call] = trace.tool_calls
    assert (call.name, call.arguments, call.result) == ("lookup_order", {"id": "7"}, {"status": "shipped"})
    llm = [s for s in trace.steps if s.type == "llm_call"]
    assert [(s.model, s.input_tokens, s.output_tokens) for s in llm] == [
        ("claude-sonnet-4-5", 400, 40),
        ("claude-sonnet-4-5", 500, 30),
    ]
    assert run.summary.input_tokens == 900 and run.summary.cost_usd > 0, "the model's tokens are priced"
    sent = [r for r in fake.message_requests if r.model == "claude-sonnet-4-5"][-1]
    assert sent.system == "You are a support agent."
    assert {t["name"] for t in sent.body["tools"]} == {"lookup_order", "refund"}


async def test_an_api_error_ends_the_trial_saying_so(stack: EmbeddedStack) -> None:
    async with Client(stack.target) as client:
        trial, _ = await one_trial(client, "anthropic:claude-opus-4-1")
    assert trial.status == "error" and trial.trace is not None and trial.trace.error is not None
    assert "500" in trial.trace.error.message and "the model is down" in trial.trace.error.message


async def test_two_models_side_by_side_in_one_table(stack: EmbeddedStack, tmp_path: Path) -> None:
    suite_file = tmp_path / "suite.json"
    suite_file.write_text(SUITE.model_dump_json())
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agenteval.cli", "models", str(suite_file),
        "--agent", "anthropic:claude-sonnet-4-5", "--agent", "anthropic:claude-haiku-4-5",
        "-k", "2", "--server", stack.target,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "COLUMNS": "120"},
    )  # fmt: skip
    out_b, err_b = await asyncio.wait_for(proc.communicate(), 120)
    out = out_b.decode()
    assert proc.returncode == 0, err_b.decode()
    lines = out.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("case"))
    assert "anthropic:claude-sonnet-4-5" in header and "anthropic:claude-haiku-4-5" in header
    order = next(line for line in lines if line.lstrip().startswith("order"))
    assert order.split()[1:] == ["2/2", "0/2"], order
    rate = next(line for line in lines if "pass rate" in line)
    assert rate.split()[-2:] == ["100%", "0%"], rate
    cost = next(line for line in lines if line.lstrip().startswith("cost"))
    assert all(float(v.lstrip("$")) > 0 for v in cost.split()[1:]), cost
