"""The front door: one address routes every RPC of the distributed topology (separate
processes) to the service that serves it, streams and errors included."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from agenteval.contracts.errors import NotFound
from agenteval.contracts.suite import Suite
from agenteval.runtime.nats_server import free_port
from agenteval.sdk import Client
from agenteval.v1 import runner_pb2
from tests.integration.test_distributed import ROOT, topology, wait_serving  # noqa: F401 - fixture

SUITE = Suite.model_validate(
    {
        "name": "through-the-door",
        "trials": 2,
        "cases": [
            {"id": f"c{i}", "input": "flip", "graders": [{"output_contains": {"text": "heads"}}]}
            for i in range(5)
        ],
    }
)


@pytest.fixture
async def gateway(topology, tmp_path: Path):  # noqa: F811
    addrs, runner_addrs, _ = topology
    address = f"127.0.0.1:{free_port()}"
    http_port = free_port()
    env = {
        **os.environ,
        "AGENTEVAL_GATEWAY_RUNNER_ADDR": runner_addrs[0],
        "AGENTEVAL_GATEWAY_GRADER_ADDR": addrs["grader"],
        "AGENTEVAL_GATEWAY_METRICS_ADDR": addrs["metrics"],
        "AGENTEVAL_GATEWAY_TRANSCRIPTS_ADDR": addrs["transcript_store"],
        "AGENTEVAL_GATEWAY_EVALGEN_ADDR": addrs["eval_generator"],
        "AGENTEVAL_GATEWAY_SUITES_ADDR": addrs.get("suite_store", runner_addrs[0]),
        "AGENTEVAL_GATEWAY_HTTP_ADDRESS": f"127.0.0.1:{http_port}",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "agenteval.cli", "serve", "gateway", "--address", address],
        cwd=ROOT,
        env=env,
        stdout=open(tmp_path / "gateway.log", "wb"),
        stderr=subprocess.STDOUT,
    )
    try:
        await wait_serving(address)
        yield address, f"http://127.0.0.1:{http_port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.timeout(240)
async def test_one_address_serves_every_service(gateway: tuple[str, str]) -> None:
    address, http = gateway
    async with Client(address) as client:
        run = await client.submit(SUITE, agent="python:tests.agents:coin", seed=3)  # RunService
        events = [ev async for ev in client.watch(run.run_id)]  # a server stream, through the door
        assert events[-1].type == runner_pb2.RUN_EVENT_TYPE_COMPLETED
        assert sorted(t.trial_id for ev in events for t in ev.trials) == sorted(
            f"{run.run_id}/c{i}/{t}" for i in range(5) for t in range(2)
        )
        for _ in range(100):  # TranscriptService: the store may finish a moment after completion
            stored = await client.trials(run.run_id)
            if len(stored) == 10 and all(t.trace is not None for t in stored):
                break
            await asyncio.sleep(0.2)
        assert len(stored) == 10
        assert await client.list_evals() == []  # EvalGeneratorService
        with pytest.raises(NotFound):  # a backend's status comes back as it was
            await client.get_run("run-nope")
    # The gateway also serves the HTTP API and the dashboard, over the same front door.
    import httpx

    async with httpx.AsyncClient(base_url=http, timeout=30) as web:
        for _ in range(100):
            try:
                listed = await web.get("/api/v1/runs")
                break
            except httpx.ConnectError:
                await asyncio.sleep(0.1)
        assert [r["run_id"] for r in listed.json()] == [run.run_id]
        assert run.run_id in (await web.get(f"/runs/{run.run_id}")).text
        async with grpc.aio.insecure_channel(address) as ch:
            health = health_pb2_grpc.HealthStub(ch)
            ok = await health.Check(health_pb2.HealthCheckRequest(service="agenteval.v1.RunService"))
            assert ok.status == health_pb2.HealthCheckResponse.SERVING
            listed = await health.List(health_pb2.HealthListRequest())
            assert listed.statuses["agenteval.v1.RunService"].status == health_pb2.HealthCheckResponse.SERVING
            unknown = ch.unary_unary(
                "/agenteval.v1.Nope/Nothing",
                request_serializer=lambda b: b,
                response_deserializer=lambda b: b,
            )
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await unknown(b"")
            assert info.value.code() == grpc.StatusCode.UNIMPLEMENTED
