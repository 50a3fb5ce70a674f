"""The runner as its own process (``agent-eval serve runner``) with real NATS: a poisonous
agent does not freeze it, SIGTERM still stops it promptly and takes its agent workers with it,
and a restarted runner that gets the poisonous trial back stays responsive and judges it."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import nats
from grpc_health.v1 import health_pb2, health_pb2_grpc

from agenteval.contracts.subjects import Subjects
from agenteval.contracts.suite import Suite
from agenteval.runtime.nats_server import free_port
from agenteval.sdk import Client
from tests.runner.procs import alive, children_of

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 5.0


def start_runner(env: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    addr = f"127.0.0.1:{free_port()}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "agenteval.cli", "serve", "runner", "--address", addr],
        cwd=ROOT,
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )
    return proc, addr


async def serving(target: str, within_s: float) -> None:
    """Health answers SERVING within ``within_s`` (each check may take at most 1 s)."""
    deadline = asyncio.get_running_loop().time() + within_s
    async with grpc.aio.insecure_channel(target) as ch:
        stub = health_pb2_grpc.HealthStub(ch)
        while True:
            try:
                resp = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1.0)
                if resp.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"the runner at {target} did not answer SERVING within {within_s}s")
            await asyncio.sleep(0.1)


async def test_a_poisonous_trial_neither_freezes_the_runner_nor_survives_its_restart(
    nats_url: str, tmp_path: Path
) -> None:
    prefix = f"p{secrets.token_hex(4)}"
    env = {
        **os.environ,
        "AGENTEVAL_NATS_URL": os.environ.get("AGENTEVAL_TEST_NATS_URL", nats_url),
        "AGENTEVAL_BUS_PREFIX": prefix,
        "AGENTEVAL_DATABASE_URL": f"sqlite:///{tmp_path / 'runner.db'}",
        "AGENTEVAL_LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
        # A stopping runner hands its trials back, but the bus may still leave one of them
        # with the stopped runner until the ack wait passes (seen before agent workers too):
        # a short one keeps the test short.
        "AGENTEVAL_RUNNER_TRIAL_ACK_WAIT_S": "5",
    }
    nc = await nats.connect(env["AGENTEVAL_NATS_URL"])
    completed: list[dict[str, Any]] = []

    async def on_completed(msg: Any) -> None:
        completed.append(json.loads(msg.data))

    await nc.subscribe(Subjects(prefix).trial_completed, cb=on_completed)
    suite = Suite.model_validate(
        {
            "name": "poison",
            "cases": [
                {"id": "faulty", "input": "x", "metadata": {"fault": "block"}},
                *({"id": f"n{i}", "input": "x"} for i in range(4)),
            ],
        }
    )
    log = tmp_path / "runner.log"
    runner, addr = start_runner(env, log)
    restarted: subprocess.Popen[bytes] | None = None
    try:
        await serving(addr, within_s=60)
        async with Client(addr) as client:
            run = await client.submit(
                suite, agent="python:tests.runner.fault_agents:misbehaves", k=1, timeout_s=TIMEOUT_S
            )
        await asyncio.sleep(1.5)  # the faulty trial now blocks its worker's event loop
        await serving(addr, within_s=2)  # ... not the runner's
        workers = children_of(runner.pid)
        assert len(workers) >= 2, f"expected agent worker processes, found {workers}"

        runner.send_signal(signal.SIGTERM)
        await asyncio.to_thread(runner.wait, 20)  # raises if it ignores SIGTERM
        for _ in range(50):
            if not any(alive(pid) for pid in workers):
                break
            await asyncio.sleep(0.1)
        assert not any(alive(pid) for pid in workers), "agent workers outlived their runner"
        assert f"{run.run_id}/faulty/0" not in {ev["trial_id"] for ev in completed}

        # The faulty trial (and the neighbours its worker held) were handed back: the next
        # runner gets them during its start-up, and must stay responsive all along.
        restarted, addr = start_runner(env, log)
        await serving(addr, within_s=60)
        every = {f"{run.run_id}/{c.id}/0" for c in suite.cases}
        for _ in range(int((TIMEOUT_S + 20) / 0.2)):
            await serving(addr, within_s=2)
            if {ev["trial_id"] for ev in completed} >= every:
                break
            await asyncio.sleep(0.2)
        traces = {ev["trial_id"]: ev["trace"] for ev in completed}
        assert set(traces) == every, f"trials never completed: {every - set(traces)}"
        faulty = traces.pop(f"{run.run_id}/faulty/0")
        assert faulty["status"] in ("timeout", "error")
        assert "blocking call in an async agent" in faulty["error"]["message"]
        assert {t["output"] for t in traces.values()} == {"fine"}, "a neighbour did not pass"
    finally:
        await nc.close()
        for proc in (runner, restarted):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()


async def test_agent_workers_do_not_outlive_a_killed_runner(nats_url: str, tmp_path: Path) -> None:
    """kill -9 of the runner: its workers go too, even one whose event loop is blocked and one
    spinning in a sync agent's thread (neither would notice its closed pipe)."""
    env = {
        **os.environ,
        "AGENTEVAL_NATS_URL": os.environ.get("AGENTEVAL_TEST_NATS_URL", nats_url),
        "AGENTEVAL_BUS_PREFIX": f"k{secrets.token_hex(4)}",
        "AGENTEVAL_DATABASE_URL": f"sqlite:///{tmp_path / 'runner.db'}",
        "AGENTEVAL_LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
    }
    runner, addr = start_runner(env, tmp_path / "runner.log")
    try:
        await serving(addr, within_s=60)
        async with Client(addr) as client:
            for agent, fault in (("misbehaves", "block"), ("misbehaves_sync", "spin")):
                suite = Suite.model_validate(
                    {
                        "name": f"kill-{fault}",
                        "cases": [{"id": "faulty", "input": "x", "metadata": {"fault": fault}}],
                    }
                )
                await client.submit(
                    suite, agent=f"python:tests.runner.fault_agents:{agent}", k=2, timeout_s=60
                )
        await asyncio.sleep(1.5)
        workers = children_of(runner.pid)
        assert len(workers) >= 2, f"expected agent worker processes, found {workers}"
        runner.kill()
        runner.wait()
        for _ in range(100):
            if not any(alive(pid) for pid in workers):
                break
            await asyncio.sleep(0.1)
        assert not any(alive(pid) for pid in workers), "agent workers outlived their killed runner"
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()
