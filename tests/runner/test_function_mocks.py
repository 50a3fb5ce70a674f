"""Tool mocks that are Python functions ({"python": "module:function"}), through the real
stack: a python: agent and an anthropic: agent (the real SDK against a local fake Messages API)
get what the function returns; what it raises is a tool error; a function that never returns
times the trial out while the runner goes on serving. The functions run in the runner's agent
worker processes, never in the runner's own process (this test's process)."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.errors import InvalidArgument
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client, TrialRecord
from tests.fakes.anthropic_server import FakeAnthropicServer, text_reply, tool_use_reply

pytestmark = pytest.mark.asyncio(loop_scope="module")
PYTHON_AGENT = "python:tests.agents:asks_weather"
CLAUDE = "anthropic:claude-sonnet-4-5"


def suite(mock: str, timeout_s: float = 30) -> Suite:
    return Suite.model_validate(
        {
            "name": f"weather-{mock}",
            "timeout_s": timeout_s,
            "cases": [
                {
                    "id": "paris",
                    "input": "Weather in Paris?",
                    "tool_mocks": {"weather": {"python": f"tests.tool_functions:{mock}"}},
                    "graders": [{"output_contains": {"text": "rain"}}],
                }
            ],
        }
    )


def reply(body: dict[str, Any]) -> Any:
    """Asks the weather tool about the question's city, then answers with its result."""
    last = body["messages"][-1]
    results = (
        [b for b in last["content"] if b.get("type") == "tool_result"]
        if isinstance(last["content"], list)
        else []
    )
    if not results:
        city = last["content"].rsplit(" ", 1)[-1].strip("?")
        return tool_use_reply("weather", {"city": city}, input_tokens=100, output_tokens=10)
    if results[0].get("is_error"):
        return text_reply(f"No forecast: {results[0]['content']}", input_tokens=120, output_tokens=10)
    return text_reply(f"Forecast: {results[0]['content']}", input_tokens=120, output_tokens=10)


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer(reply) as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def stack(
    fake: FakeAnthropicServer, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[EmbeddedStack]:
    saved = {k: os.environ.get(k) for k in fake.env()}
    os.environ.update(fake.env())  # the agent workers inherit it
    try:
        async with EmbeddedStack(tmp_path_factory.mktemp("function-mocks")) as s:
            yield s
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


async def one_trial(client: Client, s: Suite, agent: str, timeout_s: float | None = None) -> TrialRecord:
    run = await client.submit(s, agent=agent, k=1, timeout_s=timeout_s)
    await client.wait(run.run_id, timeout_s=90)
    for _ in range(200):
        trials = await client.trials(run.run_id)
        if trials and trials[0].passed is not None:
            return trials[0]
        await asyncio.sleep(0.1)
    raise AssertionError("the trial was never stored graded")


def sent_results(fake: FakeAnthropicServer, city: str = "Paris") -> list[dict[str, Any]]:
    """The tool results the fake API was sent, last first."""
    found = []
    for request in reversed(fake.message_requests):
        last = request.messages[-1]
        if isinstance(last["content"], list):
            found += [b for b in last["content"] if b.get("type") == "tool_result"]
    return found


async def test_a_python_agent_gets_what_the_function_returns_computed_in_a_worker(
    stack: EmbeddedStack,
) -> None:
    async with Client(stack.target) as client:
        trial = await one_trial(client, suite("weather"), PYTHON_AGENT)
    assert trial.status == "ok" and trial.passed, (trial.trace and trial.trace.error, trial.grades)
    assert trial.trace is not None and trial.trace.output is not None
    [call] = trial.trace.tool_calls
    assert call.name == "weather" and call.arguments == {"city": "Paris"}
    assert isinstance(call.result, dict) and call.result["forecast"] == "rain" and call.result["days"] == 1
    assert call.result["pid"] != os.getpid(), "the mock function ran in the runner's own process"


async def test_an_anthropic_agent_gives_the_model_what_the_function_returns(
    stack: EmbeddedStack, fake: FakeAnthropicServer
) -> None:
    async with Client(stack.target) as client:
        trial = await one_trial(client, suite("weather"), CLAUDE)
    assert trial.status == "ok" and trial.passed, (trial.trace and trial.trace.error, trial.grades)
    result = json.loads(sent_results(fake)[0]["content"])
    assert (result["city"], result["forecast"]) == ("Paris", "rain")
    assert result["pid"] != os.getpid(), "the anthropic agent's mock function ran in the runner's own process"
    assert trial.trace is not None and trial.trace.usage.input_tokens == 220


async def test_what_the_function_raises_is_a_tool_error_for_both_agents(
    stack: EmbeddedStack, fake: FakeAnthropicServer
) -> None:
    async with Client(stack.target) as client:
        by_python = await one_trial(client, suite("down"), PYTHON_AGENT)
        by_claude = await one_trial(client, suite("down"), CLAUDE)
    for trial in (by_python, by_claude):
        assert trial.status == "ok" and not trial.passed, "a failing tool is the agent's to handle"
        assert trial.trace is not None
        [call] = trial.trace.tool_calls
        assert call.error == "the weather service is down (asked ['city'])" and call.result is None
    assert by_python.trace is not None and by_python.trace.output == (
        "no forecast: the weather service is down (asked ['city'])"
    )
    [sent] = sent_results(fake)[:1]
    assert sent.get("is_error") is True and "the weather service is down" in sent["content"]


@pytest.mark.parametrize("agent", [PYTHON_AGENT, CLAUDE])
async def test_a_function_that_never_returns_times_the_trial_out_and_the_runner_goes_on(
    stack: EmbeddedStack, agent: str
) -> None:
    async with Client(stack.target) as client:
        trial = await one_trial(client, suite("blocks", timeout_s=1), agent)
        assert trial.status == "timeout", trial.trace and trial.trace.error
        assert trial.trace is not None and trial.trace.error is not None
        assert "did not finish within 1s" in trial.trace.error.message
        after = await one_trial(client, suite("weather"), agent)
        assert after.status == "ok" and after.passed, "the runner did not go on running trials"


async def test_a_mock_function_that_cannot_be_loaded_refuses_the_run(stack: EmbeddedStack) -> None:
    async with Client(stack.target) as client:
        for agent in (PYTHON_AGENT, CLAUDE):
            with pytest.raises(
                InvalidArgument, match=r"tool mock 'weather' of case 'paris'.*no attribute 'nowhere'"
            ):
                await client.submit(suite("nowhere"), agent=agent)
            with pytest.raises(InvalidArgument, match=r"tool mock 'weather' of case 'paris'.*not callable"):
                await client.submit(suite("NOT_CALLABLE"), agent=agent)
