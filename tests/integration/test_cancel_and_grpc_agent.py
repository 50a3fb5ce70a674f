"""CancelRun stops trials not yet started; an agent behind AgentService (grpc://) is run like any other."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import grpc

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client
from agenteval.v1 import agent_pb2, agent_pb2_grpc, trace_pb2


class EchoAgent(agent_pb2_grpc.AgentServiceServicer):
    """A remote agent: looks the question up, answers in upper case."""

    def __init__(self) -> None:
        self.requests: list[agent_pb2.RunAgentRequest] = []

    async def RunAgent(self, request: agent_pb2.RunAgentRequest, context: Any) -> agent_pb2.RunAgentResponse:
        self.requests.append(request)
        question = request.messages[-1].content
        if question == "mangled":  # an agent that breaks its contract
            return agent_pb2.RunAgentResponse(
                output="?", steps=[trace_pb2.Step(tool_call=trace_pb2.ToolCall(arguments_json="{oops"))]
            )
        stock = json.loads(request.initial_state_json)["stock"]
        return agent_pb2.RunAgentResponse(
            output=f"ANSWER: {question.upper()}",
            steps=[
                trace_pb2.Step(
                    tool_call=trace_pb2.ToolCall(
                        name="lookup",
                        arguments_json=json.dumps({"q": question, "n": stock}),
                        result_json='"ok"',
                    ),
                    latency_ms=1.5,
                ),
                trace_pb2.Step(llm_call=trace_pb2.LlmCall(model="m-1", input_tokens=7, output_tokens=3)),
            ],
            state_json=json.dumps({"seen": question, "stock": stock - 1}),
            input_tokens=7,
            output_tokens=3,
        )


async def test_grpc_agent(tmp_path: Path) -> None:
    agent = EchoAgent()
    server = grpc.aio.server()
    agent_pb2_grpc.add_AgentServiceServicer_to_server(agent, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        suite = Suite.model_validate(
            {
                "name": "remote",
                "cases": [
                    {
                        "id": "a",
                        "input": [
                            {"role": "system", "content": "be brief"},
                            {"role": "user", "content": "hello"},
                        ],
                        "initial_state": {"stock": 9007199254740993},
                        "graders": [
                            {"output_contains": {"text": "HELLO"}},
                            {"tool_called": {"tool": "lookup"}},
                            {"state_check": {"expected": {"seen": "hello"}}},
                        ],
                    },
                    {"id": "mangled", "input": "mangled"},
                ],
            }
        )
        async with EmbeddedStack(tmp_path / "d") as stack, Client(stack.target) as client:
            run = await client.submit(suite, agent=f"grpc://127.0.0.1:{port}", k=3)
            await client.wait(run.run_id, timeout_s=120)
            summary = await client.summary(run.run_id)
            trials = await client.trials(run.run_id, case_id="a")
            [broken, *_] = await client.trials(run.run_id, case_id="mangled")
    finally:
        await server.stop(0)
    assert summary is not None
    assert summary.cases[0].passes == 3 and summary.input_tokens == 21
    sent = next(r for r in agent.requests if r.case_id == "a")
    assert [(m.role, m.content) for m in sent.messages] == [
        (trace_pb2.ROLE_SYSTEM, "be brief"),
        (trace_pb2.ROLE_USER, "hello"),
    ]
    trace = trials[0].trace
    assert trace is not None
    call, llm = trace.steps
    # The integer the agent got from the state and passed on survives both trips exactly.
    assert call.arguments == {"q": "hello", "n": 9007199254740993} and call.result == "ok"
    assert call.latency_ms == 1.5 and (llm.model, llm.input_tokens) == ("m-1", 7)
    assert trace.state == {"seen": "hello", "stock": 9007199254740992}
    assert broken.status == "error" and broken.trace is not None and broken.trace.error is not None
    assert broken.trace.error.code == "bad_agent_output"
    assert "steps[0].tool_call.arguments_json" in broken.trace.error.message


async def test_cancel_skips_trials_not_started(tmp_path: Path) -> None:
    suite = Suite.model_validate(
        {"name": "slow", "timeout_s": 30, "cases": [{"id": f"c{i}", "input": "x"} for i in range(6)]}
    )
    async with EmbeddedStack(tmp_path / "d") as stack, Client(stack.target) as client:
        run = await client.submit(suite, agent="python:tests.agents:blocking_slow", k=2, concurrency=1)
        cancelled = await client.cancel_run(run.run_id)
        assert cancelled.status == "cancelled"
        events = [ev async for ev in client.watch(run.run_id)]
        summary = await client.summary(run.run_id)
        assert summary is not None and summary.trials == 12
        assert (
            summary.errors >= 10
        )  # skipped trials are errors with code "cancelled", the run still completes
        trials = await client.trials(run.run_id)
        codes = {t.trace.error.code for t in trials if t.trace is not None and t.trace.error is not None}
        assert "cancelled" in codes
        assert (await client.get_run(run.run_id)).status == "cancelled"
        assert events
