"""Agents run in worker processes: an agent that blocks, spins, exits, hangs, floods its
output, returns what cannot be serialized or eats memory ends as a ``timeout`` or ``error``
trial that says why; its innocent neighbours in the same run pass, the run ends within its
timeout plus a margin, and the next run on the same runner passes.

Everything is real: the embedded stack (NATS, all five services, gRPC on loopback) and the
runner's agent worker processes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client
from agenteval.v1 import runner_pb2

ASYNC_AGENT = "python:tests.runner.fault_agents:misbehaves"
SYNC_AGENT = "python:tests.runner.fault_agents:misbehaves_sync"
TIMEOUT_S = 1.0
MARGIN_S = 30.0
"""Generous: the run must *end*, not be fast (kill grace, a new worker, re-runs, grading)."""
NEIGHBOURS = 6


def fault_suite(fault: str, neighbours: int = NEIGHBOURS) -> Suite:
    return Suite.model_validate(
        {
            "name": f"fault-{fault}",
            "trials": 2,
            "graders": [{"output_contains": {"text": "fine"}}],
            "cases": [
                {"id": "faulty", "input": "misbehave", "metadata": {"fault": fault}, "trials": 1},
                *({"id": f"n{i}", "input": "behave"} for i in range(neighbours)),
            ],
        }
    )


@pytest.fixture
async def stack(tmp_path: Path) -> AsyncIterator[EmbeddedStack]:
    async with EmbeddedStack(tmp_path / "data") as s:
        yield s


async def run_and_read(
    client: Client, suite: Suite, agent: str, k: int | None = None, timeout_s: float = TIMEOUT_S
) -> dict[str, list[dict[str, Any]]]:
    """Submit, wait for the run to end (within its timeout plus the margin), and return each
    case's graded trials: {case_id: [{"passed": bool, "trace": dict}, ...]}."""
    async with asyncio.timeout(timeout_s + MARGIN_S):
        run = await client.submit(suite, agent=agent, k=k, timeout_s=timeout_s)
        events = [ev async for ev in client.watch(run.run_id)]
    assert events[-1].type == runner_pb2.RUN_EVENT_TYPE_COMPLETED, "the run did not complete"
    total = sum(suite.trials_for(case, k) for case in suite.cases)
    for _ in range(200):  # the transcript store catches up a moment after run.completed
        trials = await client.trials(run.run_id)
        if len(trials) == total and all(t.passed is not None and t.trace is not None for t in trials):
            break
        await asyncio.sleep(0.05)
    assert len(trials) == total, f"{len(trials)} of {total} trials were stored"
    out: dict[str, list[dict[str, Any]]] = {}
    for t in trials:
        trace = t.trace.to_eval_dict() if t.trace is not None else {}
        out.setdefault(t.case_id, []).append({"passed": t.passed, "trace": trace})
    return out


def assert_neighbours_pass(cases: dict[str, list[dict[str, Any]]]) -> None:
    for case_id, trials in cases.items():
        if case_id == "faulty":
            continue
        for trial in trials:
            trace = trial["trace"]
            assert trial["passed"], (
                f"innocent neighbour {case_id} failed: {trace['status']} {trace.get('error')}"
            )
            assert trace["output"] == "fine"


async def assert_runner_still_runs_agents(client: Client) -> None:
    """The next run on the same runner passes, async and sync agents alike."""
    for agent in (ASYNC_AGENT, SYNC_AGENT):
        cases = await run_and_read(client, fault_suite("none", neighbours=3), agent, k=2, timeout_s=10.0)
        assert all(t["passed"] for trials in cases.values() for t in trials), (
            f"a normal run of {agent} failed"
        )


def faulty(cases: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [t["trace"] for t in cases["faulty"]]


async def test_a_blocking_async_agent_times_out_alone_and_the_runner_stays_serving(
    stack: EmbeddedStack,
) -> None:
    async with Client(stack.target) as client, grpc.aio.insecure_channel(stack.target) as ch:
        health = health_pb2_grpc.HealthStub(ch)
        run = asyncio.create_task(run_and_read(client, fault_suite("block"), ASYNC_AGENT))
        await asyncio.sleep(0.5)  # the faulty trials are blocking their workers' loops now
        for _ in range(5):  # the runner answers at once throughout
            resp = await health.Check(
                health_pb2.HealthCheckRequest(service="agenteval.v1.RunService"), timeout=2.0
            )
            assert resp.status == health_pb2.HealthCheckResponse.SERVING
            await asyncio.sleep(0.1)
        cases = await run
        for trace in faulty(cases):
            assert trace["status"] in ("timeout", "error"), trace
            assert "blocking call in an async agent" in trace["error"]["message"]
        assert_neighbours_pass(cases)
        await assert_runner_still_runs_agents(client)


async def test_a_busy_looping_async_agent_is_killed_with_its_worker(stack: EmbeddedStack) -> None:
    async with Client(stack.target) as client:
        cases = await run_and_read(client, fault_suite("spin"), ASYNC_AGENT)
        for trace in faulty(cases):
            assert trace["status"] in ("timeout", "error")
            assert (
                "held its worker's event loop" in trace["error"]["message"]
                or "blocked" in trace["error"]["message"]
            )
        assert_neighbours_pass(cases)
        await assert_runner_still_runs_agents(client)


async def test_an_agent_calling_os_exit_ends_as_an_error_naming_the_exit_code(stack: EmbeddedStack) -> None:
    async with Client(stack.target) as client:
        cases = await run_and_read(client, fault_suite("exit"), ASYNC_AGENT)
        for trace in faulty(cases):
            assert trace["status"] == "error"
            assert trace["error"]["code"] == "agent_exited"
            assert "agent process exited with code 3" in trace["error"]["message"]
        assert_neighbours_pass(cases)
        await assert_runner_still_runs_agents(client)


async def test_a_crash_that_names_nobody_is_found_by_quarantine(stack: EmbeddedStack) -> None:
    """A segfault says nothing before the process goes: every trial of the worker becomes a
    suspect and runs alone; the one that crashes alone is the guilty one."""
    async with Client(stack.target) as client:
        cases = await run_and_read(client, fault_suite("segfault"), ASYNC_AGENT)
        for trace in faulty(cases):
            assert trace["status"] == "error"
            assert trace["error"]["code"] == "agent_crashed"
            assert "agent process was killed by SIGSEGV" in trace["error"]["message"]
        assert_neighbours_pass(cases)
        await assert_runner_still_runs_agents(client)


async def test_hung_and_spinning_sync_agents_time_out_and_do_not_use_up_later_runs_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A timed-out sync agent keeps its thread (a thread cannot be stopped): its worker is
    retired and replaced, so hung agents neither use up the threads of later runs nor burn a
    core for ever."""
    monkeypatch.setenv("AGENTEVAL_RUNNER_AGENT_WORKER_THREADS", "8")
    retired = (
        REGISTRY.get_sample_value("agenteval_runner_agent_worker_exits_total", {"reason": "retired"}) or 0
    )
    hung = Suite.model_validate(
        {
            "name": "hung",
            "cases": [{"id": "faulty", "input": "x", "metadata": {"fault": "hang"}, "trials": 24}],
        }
    )
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        # More hung agents than all the workers' threads (2 x 8).
        cases = await run_and_read(client, hung, SYNC_AGENT, k=24)
        assert [t["trace"]["status"] for t in cases["faulty"]] == ["timeout"] * 24
        for _ in range(100):  # a worker asks to be retired at its next heartbeat
            now = REGISTRY.get_sample_value(
                "agenteval_runner_agent_worker_exits_total", {"reason": "retired"}
            )
            if (now or 0) > retired:
                break
            await asyncio.sleep(0.05)
        assert (now or 0) > retired, "no worker holding hung threads was retired"

        suite = Suite.model_validate(
            {
                "name": "hung-and-spinning",
                "graders": [{"output_contains": {"text": "fine"}}],
                "cases": [
                    {"id": "faulty", "input": "x", "metadata": {"fault": "hang"}},
                    {"id": "spinning", "input": "x", "metadata": {"fault": "spin"}},
                    *({"id": f"n{i}", "input": "x"} for i in range(4)),
                ],
            }
        )
        cases = await run_and_read(client, suite, SYNC_AGENT, k=1)
        for case_id in ("faulty", "spinning"):
            [trace] = faulty({"faulty": cases[case_id]})
            assert trace["status"] == "timeout" and "did not finish within 1s" in trace["error"]["message"]
        assert_neighbours_pass({k: v for k, v in cases.items() if k != "spinning"})
        await assert_runner_still_runs_agents(client)


async def test_a_10_mb_print_is_captured_capped_into_the_trace_and_nowhere_else(
    stack: EmbeddedStack, capfd: pytest.CaptureFixture[str]
) -> None:
    async with Client(stack.target) as client:
        cases = await run_and_read(client, fault_suite("print"), ASYNC_AGENT)
        for trial in cases["faulty"]:
            trace = trial["trace"]
            assert trial["passed"] and trace["output"] == "fine, after printing 10 MB"
            meta = trace["metadata"]
            assert meta["stdout"] == "x" * 65536
            assert meta["stdout_truncated"] is True and meta["stdout_chars"] == 10_000_001
            assert meta["stderr"] == "and a word on stderr\n"
            assert "stdout" not in cases["n0"][0]["trace"]["metadata"]
        assert_neighbours_pass(cases)
        await assert_runner_still_runs_agents(client)
    out, err = capfd.readouterr()
    assert "xxxxxxxxxx" not in out + err, "the agent's print reached the runner's output"
    assert "by C code" not in out + err and "a word on stderr" not in out + err


async def test_an_unserializable_result_is_an_error_trial_not_a_lost_batch(stack: EmbeddedStack) -> None:
    async with Client(stack.target) as client:
        cases = await run_and_read(client, fault_suite("unserializable"), ASYNC_AGENT)
        for trace in faulty(cases):
            assert trace["status"] == "error" and trace["error"]["code"] == "bad_agent_output"
            assert "cannot be serialized" in trace["error"]["message"]
            assert trace["output"] == "fine"  # what could be kept is
        assert_neighbours_pass(cases)
        await assert_runner_still_runs_agents(client)


async def test_a_memory_hog_hits_its_workers_limit_not_the_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTEVAL_RUNNER_AGENT_MEMORY_MB", "1024")
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        cases = await run_and_read(client, fault_suite("memory"), ASYNC_AGENT, timeout_s=10.0)
        for trace in faulty(cases):
            assert trace["status"] == "error", trace
            assert trace["error"]["code"] in ("agent_out_of_memory", "agent_crashed")
            assert "1024 MB" in trace["error"]["message"]
        assert_neighbours_pass(cases)
        await assert_runner_still_runs_agents(client)


async def test_sys_exit_in_an_agent_ends_its_trial_only(stack: EmbeddedStack) -> None:
    async with Client(stack.target) as client:
        cases = await run_and_read(client, fault_suite("sys_exit"), ASYNC_AGENT)
        for trace in faulty(cases):
            assert trace["status"] == "error" and trace["error"]["code"] == "agent_exited"
            assert "sys.exit(4)" in trace["error"]["message"]
        assert_neighbours_pass(cases)
