"""Result streams (WatchRun / WatchRuns): every trial's verdict, exactly once, resumable."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.errors import NotFound
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client
from agenteval.v1 import runner_pb2
from tests.integration.test_distributed import ROOT, topology, wait_serving  # noqa: F401 - fixture

COMPLETED = runner_pb2.RUN_EVENT_TYPE_COMPLETED


def suite(cases: int, trials: int, name: str = "streams") -> Suite:
    return Suite.model_validate(
        {
            "name": name,
            "trials": trials,
            "cases": [
                {"id": f"c{i:04d}", "input": "flip", "graders": [{"output_contains": {"text": "heads"}}]}
                for i in range(cases)
            ],
        }
    )


def expected_ids(run_id: str, cases: int, trials: int) -> set[str]:
    return {f"{run_id}/c{i:04d}/{t}" for i in range(cases) for t in range(trials)}


@pytest.fixture
async def stack(tmp_path: Path):
    async with EmbeddedStack(tmp_path / "data") as s:
        yield s


def _reflected_classes(target: str) -> tuple[Any, Any, Any, Any]:
    """SubmitRun's and WatchRun's request and response classes, from server reflection only."""
    from google.protobuf import message_factory
    from google.protobuf.descriptor_pool import DescriptorPool
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

    with grpc.insecure_channel(target) as channel:
        pool = DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
        service = pool.FindServiceByName("agenteval.v1.RunService")
        submit, watch = service.methods_by_name["SubmitRun"], service.methods_by_name["WatchRun"]
        return (
            message_factory.GetMessageClass(submit.input_type),
            message_factory.GetMessageClass(submit.output_type),
            message_factory.GetMessageClass(watch.input_type),
            message_factory.GetMessageClass(watch.output_type),
        )


async def test_a_client_built_from_reflection_gets_every_trial_of_a_1000_trial_run_once(
    stack: EmbeddedStack,
) -> None:
    from google.protobuf.json_format import MessageToDict, ParseDict

    from agenteval.contracts.pb import suite_to_pb

    submit_cls, submitted_cls, watch_cls, event_cls = await asyncio.to_thread(
        _reflected_classes, stack.target
    )
    the_suite = suite(200, 5)
    request = submit_cls()
    # The suite as a client in any language writes it: the proto's JSON form.
    suite_doc = MessageToDict(suite_to_pb(the_suite))
    ParseDict({"suite": suite_doc, "agent": "python:tests.agents:coin", "seed": 7}, request)
    async with grpc.aio.insecure_channel(stack.target) as channel:
        submit_rpc = channel.unary_unary(
            "/agenteval.v1.RunService/SubmitRun",
            request_serializer=submit_cls.SerializeToString,
            response_deserializer=submitted_cls.FromString,
        )
        run = (await submit_rpc(request)).run
        watch_rpc = channel.unary_stream(
            "/agenteval.v1.RunService/WatchRun",
            request_serializer=watch_cls.SerializeToString,
            response_deserializer=event_cls.FromString,
        )
        events = [ev async for ev in watch_rpc(watch_cls(run_id=run.run_id))]

    ids = [t.trial_id for ev in events for t in ev.trials]
    assert len(ids) == 1000, f"{len(ids)} trials streamed, {len(ids) - len(set(ids))} of them twice"
    assert set(ids) == expected_ids(run.run_id, 200, 5)
    seqs = [ev.seq for ev in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), "sequence numbers must increase"
    assert events[0].type == runner_pb2.RUN_EVENT_TYPE_SUBMITTED
    assert events[-1].type == COMPLETED
    passes = sum(t.passed for ev in events for t in ev.trials)
    assert events[-1].summary.passes == passes
    heads = [t for ev in events for t in ev.trials if t.passed]
    assert heads and all(t.grades[0].name == "output_contains" and t.grades[0].passed for t in heads)


async def test_a_client_that_reconnects_with_after_gets_the_rest_with_no_gap_and_no_duplicate(
    stack: EmbeddedStack,
) -> None:
    async with Client(stack.target) as client:
        run = await client.submit(suite(80, 5), agent="python:tests.agents:timed_nap", concurrency=20)
        first: list[runner_pb2.WatchRunResponse] = []
        call = client._stubs.runs.WatchRun(runner_pb2.WatchRunRequest(run_id=run.run_id))
        async for ev in call:
            first.append(ev)
            if sum(len(e.trials) for e in first) >= 40:
                break
        call.cancel()
        got_first = [t.trial_id for ev in first for t in ev.trials]
        assert 40 <= len(got_first) < 400, "the test must disconnect in the middle of the run"

        rest = [ev async for ev in client.watch(run.run_id, after=first[-1].seq)]
        got_rest = [t.trial_id for ev in rest for t in ev.trials]
        assert not set(got_first) & set(got_rest), "a trial came again after the reconnect"
        assert sorted(got_first + got_rest) == sorted(expected_ids(run.run_id, 80, 5))
        assert rest[-1].type == COMPLETED
        assert all(ev.seq > first[-1].seq for ev in rest)

        # Watching the finished run replays all of it.
        replay = [ev async for ev in client.watch(run.run_id)]
        assert sorted(t.trial_id for ev in replay for t in ev.trials) == sorted(got_first + got_rest)
        assert [ev.seq for ev in replay] == [ev.seq for ev in first] + [ev.seq for ev in rest]


async def test_a_slow_subscriber_does_not_stall_the_run(stack: EmbeddedStack) -> None:
    async with Client(stack.target) as client:
        run = await client.submit(suite(100, 6), agent="python:tests.agents:coin", seed=5)
        slow = client._stubs.runs.WatchRun(runner_pb2.WatchRunRequest(run_id=run.run_id))
        first = await slow.read()  # then it stops reading while the run goes on
        assert first.type == runner_pb2.RUN_EVENT_TYPE_SUBMITTED

        status = None
        for _ in range(600):
            status = (await client.get_run(run.run_id)).status
            if status == "completed":
                break
            await asyncio.sleep(0.1)
        assert status == "completed", "the run did not complete while a subscriber idled"

        rest = []
        while (ev := await slow.read()) is not grpc.aio.EOF:
            rest.append(ev)
        summary = await client.summary(run.run_id)
        assert summary is not None
        ids = [t.trial_id for ev in rest for t in ev.trials]
        assert sorted(ids) == sorted(expected_ids(run.run_id, 100, 6))
        assert rest[-1].type == COMPLETED and rest[-1].summary.passes == summary.passes
        assert sum(t.passed for ev in rest for t in ev.trials) == summary.passes


async def test_watch_runs_follows_every_run_of_a_suite_and_only_those(stack: EmbeddedStack) -> None:
    async with Client(stack.target) as client:
        got: list[runner_pb2.WatchRunResponse] = []
        done = asyncio.Event()
        completed: set[str] = set()

        async def follow() -> None:
            async for ev in client.watch_runs(suite="followed"):
                got.append(ev)
                if ev.type == COMPLETED:
                    completed.add(ev.run_id)
                    if len(completed) == 2:
                        done.set()
                        return

        follower = asyncio.create_task(follow())
        await asyncio.sleep(0.5)  # the follower starts "from now": let it subscribe first
        a = await client.submit(suite(5, 2, name="followed"), agent="python:tests.agents:coin")
        other = await client.submit(suite(5, 2, name="not-followed"), agent="python:tests.agents:coin")
        b = await client.submit(suite(4, 3, name="followed"), agent="python:tests.agents:coin")
        await asyncio.wait_for(done.wait(), timeout=120)
        await follower

        assert {ev.run_id for ev in got} == {a.run_id, b.run_id}, f"{other.run_id} must not be followed"
        for run, cases, trials in ((a, 5, 2), (b, 4, 3)):
            ids = [t.trial_id for ev in got if ev.run_id == run.run_id for t in ev.trials]
            assert sorted(ids) == sorted(expected_ids(run.run_id, cases, trials))


async def test_watch_of_an_unknown_run_is_not_found(stack: EmbeddedStack) -> None:
    async with Client(stack.target) as client:
        with pytest.raises(NotFound, match="run-nope"):
            [ev async for ev in client.watch("run-nope")]


async def test_the_cli_watch_prints_one_json_line_per_trial(stack: EmbeddedStack) -> None:
    async with Client(stack.target) as client:
        run = await client.submit(suite(6, 2), agent="python:tests.agents:coin")
        [ev async for ev in client.watch(run.run_id)]
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agenteval.cli",
        "watch",
        run.run_id,
        "--json",
        "--server",
        stack.target,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    assert proc.returncode == 0, err.decode()
    lines = [json.loads(line) for line in out.decode().splitlines()]
    trials = [d for d in lines if d["event"] == "trial"]
    assert sorted(d["trial_id"] for d in trials) == sorted(expected_ids(run.run_id, 6, 2))
    assert all(
        {"case_id", "status", "passed", "score", "grades", "cost_usd", "latency_ms"} <= d.keys()
        for d in trials
    )
    assert lines[-1]["event"] == "completed" and lines[-1]["summary"]["trials"] == 12


# Seven services start one by one before the run: on a loaded machine that alone takes minutes.
@pytest.mark.timeout(600)
async def test_a_watch_resumes_across_a_runner_restart(topology, tmp_path: Path) -> None:  # noqa: F811
    _, runner_addrs, runner_procs = topology
    target = runner_addrs[0]
    async with Client(target) as client:
        run = await client.submit(suite(30, 4), agent="python:tests.agents:timed_nap", concurrency=8)
        got: list[runner_pb2.WatchRunResponse] = []
        restarted = asyncio.Event()

        async def follow() -> None:
            async for ev in client.watch(run.run_id):
                got.append(ev)
                if not restarted.is_set() and sum(len(e.trials) for e in got) >= 10:
                    restarted.set()

        follower = asyncio.create_task(follow())
        await asyncio.wait_for(restarted.wait(), timeout=120)
        runner_procs[0].send_signal(signal.SIGKILL)
        runner_procs[0].wait()
        replacement = subprocess.Popen(  # the same runner again, on the same address
            runner_procs[0].args,
            cwd=ROOT,
            env=runner_procs[0].agenteval_env,
            stdout=open(tmp_path / "runner-again.log", "wb"),
            stderr=subprocess.STDOUT,
        )
        try:
            await wait_serving(target)
            try:
                await asyncio.wait_for(follower, timeout=180)
            except TimeoutError:
                # Say where it stood: what arrived, what the run says, what the new runner logged.
                status = (await client.get_run(run.run_id)).status
                log = (tmp_path / "runner-again.log").read_text(errors="replace")[-3000:]
                got_ids = {t.trial_id for ev in got for t in ev.trials}
                pytest.fail(f"the watch did not end: {len(got_ids)} of 120 trials, run {status}\n{log}")
        finally:
            replacement.terminate()
            replacement.wait()

    ids = [t.trial_id for ev in got for t in ev.trials]
    assert len(ids) == len(set(ids)), "a trial came twice across the restart"
    assert set(ids) == expected_ids(run.run_id, 30, 4)
    assert got[-1].type == COMPLETED
