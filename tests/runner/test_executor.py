"""A trial captures the agent's trace whatever the agent does, the same in an agent worker
process (the default) as in the runner's own process (trusted agents)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from agenteval.contracts.events import TrialRequested
from agenteval.contracts.suite import Case
from agenteval.contracts.trace import Trace
from agenteval.runner.executor import trial_seed
from agenteval.runner.settings import RunnerSettings
from agenteval.runner.trials import TrialRunner

Run = Callable[[TrialRequested], Awaitable[Trace]]


@pytest.fixture(params=["workers", "in_process"])
async def run_trial(request: pytest.FixtureRequest) -> AsyncIterator[Run]:
    trials = TrialRunner(RunnerSettings(agents_in_process=request.param == "in_process"))
    yield trials.run
    await trials.close()


def request(agent: str, timeout_s: float = 5.0, **case_fields) -> TrialRequested:
    case = Case(id="c1", input="hello there", **case_fields)
    return TrialRequested(
        event_id="e",
        run_id="r1",
        trial_id="r1/c1/0",
        case=case,
        graders=[],
        trial_index=0,
        trials_total=1,
        agent=agent,
        seed=trial_seed(1, "c1", 0),
        timeout_s=timeout_s,
    )


async def test_async_agent_tool_calls_and_tokens_are_recorded(run_trial: Run) -> None:
    trace = await run_trial(request("python:tests.agents:echo_tool"))
    assert trace.status == "ok"
    assert trace.output == "ANSWER: HELLO THERE"
    [call] = trace.tool_calls
    assert call.name == "lookup" and call.arguments == {"query": "hello there"}
    assert call.result == {"answer": "HELLO THERE"}
    assert trace.usage.input_tokens == 100 and trace.usage.output_tokens == 20
    assert trace.usage.models == {"claude-haiku-4-5": {"input_tokens": 100, "output_tokens": 20}}
    assert trace.latency_ms > 0
    assert trace.input[0].content == "hello there"


async def test_sync_agent_runs_off_the_event_loop(run_trial: Run) -> None:
    trace = await run_trial(request("python:tests.agents:sync_agent"))
    assert trace.status == "ok" and trace.output == "11 characters"
    assert trace.tool_calls[0].result == 11


async def test_agent_that_raises_gives_an_error_trial_not_a_crash(run_trial: Run) -> None:
    trace = await run_trial(request("python:tests.agents:raises"))
    assert trace.status == "error"
    assert trace.error is not None and trace.error.code == "agent_error"
    assert "the agent broke" in trace.error.message


async def test_agent_that_hangs_times_out(run_trial: Run) -> None:
    trace = await run_trial(request("python:tests.agents:slow", timeout_s=0.2))
    assert trace.status == "timeout"
    assert trace.error is not None and "0.2s" in trace.error.message


async def test_agent_may_return_its_own_trace(run_trial: Run) -> None:
    trace = await run_trial(request("python:tests.agents:returns_trace"))
    assert trace.output == "done"
    assert trace.tool_calls[0].name == "search"
    assert trace.usage.output_tokens == 7


async def test_tool_mock_replaces_the_tool_and_error_mocks_fail_it(run_trial: Run) -> None:
    trace = await run_trial(
        request("python:tests.agents:echo_tool", tool_mocks={"lookup": {"answer": "MOCKED"}})
    )
    assert trace.output == "ANSWER: MOCKED"
    trace = await run_trial(
        request("python:tests.agents:echo_tool", tool_mocks={"lookup": {"error": "down"}})
    )
    assert trace.status == "error"
    assert trace.tool_calls[0].error == "down"


async def test_missing_agent_is_an_error_trial_with_the_reason(run_trial: Run) -> None:
    trace = await run_trial(request("python:tests.agents:no_such_agent"))
    assert trace.status == "error" and trace.error is not None
    assert "no_such_agent" in trace.error.message


async def test_same_seed_same_behaviour(run_trial: Run) -> None:
    outs = {(await run_trial(request("python:tests.agents:coin"))).output for _ in range(5)}
    assert len(outs) == 1
    seeds = {trial_seed(1, "c1", i) for i in range(50)}
    assert len(seeds) == 50


@pytest.mark.parametrize("spec", ["", "python:", "python:nomodule", "ftp://x", "grpc://"])
async def test_bad_agent_specs_are_rejected_with_a_reason(spec: str) -> None:
    from agenteval.contracts.errors import InvalidArgument
    from agenteval.runner.agents import load_agent

    with pytest.raises(InvalidArgument):
        load_agent(spec)


async def test_an_oversized_transcript_is_kept_whole_and_its_bus_copy_is_cut_and_says_so(
    run_trial: Run,
) -> None:
    from agenteval.runner.executor import MAX_TRACE_BYTES, fit_trace, fits_bus

    trace = await run_trial(request("python:tests.agents:huge_output"))
    assert trace.status == "ok" and not fits_bus(trace)
    assert trace.tool_calls[0].result == "x" * 3_000_000 and trace.output == "done " + "y" * 2_000_000
    assert "truncated" not in trace.metadata
    cut = fit_trace(trace)
    assert len(cut.model_dump_json()) <= MAX_TRACE_BYTES
    assert cut.metadata["truncated"] is True
    assert "characters cut" in cut.tool_calls[0].result and cut.output.startswith("done yyy")
