"""A suite run end to end: real NATS, all five services, gRPC on loopback, SQLite."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts import pb
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client, InvalidArgument, NotFound
from agenteval.v1 import runner_pb2

SUITE = Suite.model_validate(
    {
        "name": "integration",
        "trials": 3,
        "graders": [{"tool_called": {"tool": "lookup"}}],
        "cases": [
            {"id": "shout", "input": "hello", "graders": [{"output_contains": {"text": "HELLO"}}]},
            {"id": "never", "input": "hello", "graders": [{"output_contains": {"text": "goodbye"}}]},
            {"id": "negative", "input": "x", "graders": [{"tool_not_called": {"tool": "delete_everything"}}]},
        ],
    }
)


@pytest.fixture
async def stack(tmp_path):
    async with EmbeddedStack(tmp_path / "data") as s:
        yield s


async def run_to_completion(client: Client, **kw) -> tuple[str, list[runner_pb2.WatchRunResponse]]:
    run = await client.submit(SUITE, **kw)
    events = [ev async for ev in client.watch(run.run_id)]
    return run.run_id, events


async def test_suite_runs_through_all_services(stack: EmbeddedStack) -> None:
    async with Client(stack.target) as client:
        run_id, events = await run_to_completion(client, agent="python:tests.agents:echo_tool", k=4, seed=3)
        assert events[-1].type == runner_pb2.RUN_EVENT_TYPE_COMPLETED
        summary = await client.summary(run_id)
        assert summary is not None
        cases = {c.case_id: c for c in summary.cases}
        assert (cases["shout"].passes, cases["shout"].trials) == (4, 4)
        assert (cases["never"].passes, cases["never"].trials) == (0, 4)
        assert cases["negative"].passes == 4
        assert cases["never"].pass_at_k == {1: 0.0, 2: 0.0, 3: 0.0, 4: 0.0}
        assert cases["shout"].pass_pow_k[4] == 1.0
        assert (summary.trials, summary.passes) == (12, 8)
        assert summary.input_tokens == 12 * 100
        assert summary.latency.p50_ms > 0

        for _ in range(100):  # the runner records completion a moment after watchers see it
            run = await client.get_run(run_id)
            if run.status == "completed":
                break
            await asyncio.sleep(0.05)
        assert run.status == "completed" and run.trials_graded == 12
        assert run.summary == summary and run.created_at is not None and run.k == 4

        trials = await client.trials(run_id)
        assert len(trials) == 12
        assert {t.trial_id for t in trials} == {f"{run_id}/{c}/{i}" for c in cases for i in range(4)}
        stored = next(t for t in trials if t.case_id == "shout").trace
        assert stored is not None
        assert stored.output == "ANSWER: HELLO" and stored.tool_calls[0].name == "lookup"
        assert all(t.status == "ok" for t in trials)


async def test_failing_agents_give_error_and_timeout_trials_not_a_crashed_run(stack: EmbeddedStack) -> None:
    async with Client(stack.target) as client:
        run_id, _events = await run_to_completion(client, agent="python:tests.agents:raises", k=2)
        summary = await client.summary(run_id)
        assert summary is not None and summary.errors == 6 and summary.passes == 0
        trials = await client.trials(run_id)
        trace = trials[0].trace
        assert trace is not None and trace.status == "error"
        assert trace.error is not None and "the agent broke" in trace.error.message

        run_id, _ = await run_to_completion(client, agent="python:tests.agents:slow", k=1, timeout_s=0.2)
        summary = await client.summary(run_id)
        assert summary is not None and summary.timeouts == 3


async def test_bad_submissions_are_rejected_with_reasons(stack: EmbeddedStack) -> None:
    async with Client(stack.target) as client:
        with pytest.raises(InvalidArgument, match="missing"):
            await client.submit(SUITE, agent="python:tests.agents:missing")
        with pytest.raises(NotFound):
            await client.get_run("run-nope")
        # A client in another language sends a suite the models refuse: told which field.
        bad = pb.suite_to_pb(SUITE)
        bad.cases[1].initial_state_json = "[1, 2]"
        with pytest.raises(grpc.aio.AioRpcError) as exc:
            await client._stubs.runs.SubmitRun(runner_pb2.SubmitRunRequest(suite=bad, agent="python:x:y"))
        assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "suite.cases[1].initial_state_json: must be a JSON object" in (exc.value.details() or "")
        with pytest.raises(grpc.aio.AioRpcError) as exc:
            await client._stubs.runs.SubmitRun(runner_pb2.SubmitRunRequest(agent="python:x:y"))
        assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert exc.value.details() == "give a suite, or suite_ref naming a stored one"


async def test_health_and_reflection_are_served(stack: EmbeddedStack) -> None:
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    async with grpc.aio.insecure_channel(stack.target) as ch:
        health = health_pb2_grpc.HealthStub(ch)
        for name in (
            "",
            "agenteval.v1.RunService",
            "agenteval.v1.TranscriptService",
            "agenteval.v1.GraderService",
            "agenteval.v1.MetricsService",
            "agenteval.v1.EvalGeneratorService",
        ):
            resp = await health.Check(health_pb2.HealthCheckRequest(service=name))
            assert resp.status == health_pb2.HealthCheckResponse.SERVING, name
        refl = reflection_pb2_grpc.ServerReflectionStub(ch)
        call = refl.ServerReflectionInfo()
        await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
        await call.done_writing()
        names = {s.name async for r in call for s in r.list_services_response.service}
        assert {"agenteval.v1.RunService", "grpc.health.v1.Health"} <= names


async def test_data_survives_a_restart(tmp_path) -> None:
    async with EmbeddedStack(tmp_path / "d") as s, Client(s.target) as client:
        run_id, _ = await run_to_completion(client, agent="python:tests.agents:echo_tool", k=1)
    async with EmbeddedStack(tmp_path / "d") as s, Client(s.target) as client:
        summary = await client.summary(run_id)
        assert summary is not None and summary.trials == 3
        assert len(await client.trials(run_id)) == 3
