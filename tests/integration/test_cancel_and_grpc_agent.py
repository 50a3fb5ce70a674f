"""CancelRun stops trials not yet started; an agent behind AgentService (grpc://) is run like any other."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import grpc

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client
from agenteval.v1 import agent_pb2, agent_pb2_grpc, common_pb2, runner_pb2


class EchoAgent(agent_pb2_grpc.AgentServiceServicer):
    """A remote agent: looks the question up, answers in upper case."""

    async def RunAgent(self, request: agent_pb2.RunAgentRequest, context: Any) -> agent_pb2.RunAgentResponse:
        messages = json.loads(request.messages_json)
        question = messages[-1]["content"]
        steps = [
            {"type": "tool_call", "name": "lookup", "arguments": {"q": question}, "result": question.upper()}
        ]
        return agent_pb2.RunAgentResponse(
            output=f"ANSWER: {question.upper()}",
            steps_json=json.dumps(steps),
            state_json=json.dumps({"seen": question}),
            input_tokens=7,
            output_tokens=3,
        )


async def test_grpc_agent(tmp_path: Path) -> None:
    server = grpc.aio.server()
    agent_pb2_grpc.add_AgentServiceServicer_to_server(EchoAgent(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        suite = Suite.model_validate(
            {
                "name": "remote",
                "cases": [
                    {
                        "id": "a",
                        "input": "hello",
                        "graders": [
                            {"output_contains": {"text": "HELLO"}},
                            {"tool_called": {"tool": "lookup"}},
                            {"state_check": {"expected": {"seen": "hello"}}},
                        ],
                    }
                ],
            }
        )
        async with EmbeddedStack(tmp_path / "d") as stack, Client(stack.target) as client:
            run = await client.submit(suite, agent=f"grpc://127.0.0.1:{port}", k=3)
            [ev async for ev in client.watch(run.run_id)]
            summary = await client.summary(run.run_id)
            assert summary is not None and summary.passes == 3 and summary.input_tokens == 21
    finally:
        await server.stop(0)


async def test_cancel_skips_trials_not_started(tmp_path: Path) -> None:
    suite = Suite.model_validate(
        {"name": "slow", "timeout_s": 30, "cases": [{"id": f"c{i}", "input": "x"} for i in range(6)]}
    )
    async with EmbeddedStack(tmp_path / "d") as stack, Client(stack.target) as client:
        run = await client.submit(suite, agent="python:tests.agents:blocking_slow", k=2, concurrency=1)
        cancelled = (await client.runs.CancelRun(runner_pb2.CancelRunRequest(run_id=run.run_id))).run
        assert cancelled.status == common_pb2.RUN_STATUS_CANCELLED
        events = [ev async for ev in client.watch(run.run_id)]
        summary = await client.summary(run.run_id)
        assert summary is not None and summary.trials == 12
        assert (
            summary.errors >= 10
        )  # skipped trials are errors with code "cancelled", the run still completes
        trials = await client.trials(run.run_id)
        codes = {
            json.loads(t.trace_json)["error"]["code"]
            for t in trials
            if t.trace_json and json.loads(t.trace_json).get("error")
        }
        assert "cancelled" in codes
        assert (await client.get_run(run.run_id)).status == common_pb2.RUN_STATUS_CANCELLED
        assert events
