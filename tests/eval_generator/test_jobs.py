"""Generation as a job: it goes on when the client goes away, survives the service stopping (and
dying), can be watched again from any event, listed and cancelled; what it spent is kept."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from agenteval.cli.stack import EmbeddedStack
from agenteval.runtime.nats_server import free_port
from agenteval.sdk import Client, Conflict, NotFound
from agenteval.v1 import eval_generator_pb2 as pb
from tests.eval_generator.generation_helpers import (
    current_eval,
    follow,
    import_traces,
    kinds,
    outcome,
    parity_traces,
    perfect,
    request,
    request_pb,
    saved_eval,
    start,
    status,
)
from tests.fakes.anthropic_server import FakeAnthropicServer, Gate, tool_use_reply

ROOT = Path(__file__).resolve().parents[2]


async def arrived(gate: Gate) -> None:
    assert await asyncio.to_thread(gate.arrived.wait, 60), "the model call never came"


async def test_a_job_goes_on_when_its_client_goes_away_and_is_watched_again_from_any_event(
    tmp_path: Path, anthropic_env: FakeAnthropicServer
) -> None:
    gate = Gate(tool_use_reply("test_eval_code", {"code": perfect("parity")}))
    anthropic_env.enqueue(tool_use_reply("fetch_traces", {"rating": "positive"}), gate)
    try:
        async with EmbeddedStack(tmp_path / "data") as stack:
            async with Client(stack.target) as client:
                await import_traces(client, "tickets", parity_traces(40))
                # the one-call RPC, abandoned while the model is thinking (read in a task: no
                # event comes while the model call is held, so the loop cannot notice it itself)
                call = client._stubs.evals.GenerateEval(request_pb("parity", "tickets", method="llm"))

                async def read() -> None:
                    async for _ in call:
                        pass

                reading = asyncio.create_task(read())
                await arrived(gate)
                assert not reading.done(), "the stream ended before the model call came"
                call.cancel()
                await asyncio.gather(reading, return_exceptions=True)
            gate.release()  # no client is connected any more

            async with Client(stack.target) as client:
                [job] = await client.list_generation_jobs("parity")
                events, job = await follow(client, job.job_id)
                assert (status(job), outcome(job), job.runs) == ("done", "promoted", 1), job
                assert kinds(events)[-1] == "saved" and saved_eval(events).version == 1
                assert [e.sequence for e in events] == list(range(1, job.last_sequence + 1))
                # a watch resumes after any event, and a finished job's events are all still there
                later, _ = await follow(client, job.job_id, after=4)
                assert [e.sequence for e in later] == [e.sequence for e in events[4:]]
                assert [e.message for e in later] == [e.message for e in events[4:]]
                nothing, again = await follow(client, job.job_id, after=job.last_sequence)
                assert nothing == [] and status(again) == "done"
                saved = await current_eval(client, "parity")
                assert saved is not None and saved.code.strip() == perfect("parity").strip()
    finally:
        gate.release()


async def test_a_job_running_when_the_service_stops_runs_again_when_it_starts(
    tmp_path: Path, anthropic_env: FakeAnthropicServer
) -> None:
    gate = Gate(tool_use_reply("test_eval_code", {"code": perfect("parity")}))
    anthropic_env.enqueue(
        tool_use_reply("fetch_traces", {"rating": "negative"}, input_tokens=1000, output_tokens=50), gate
    )
    data = tmp_path / "data"
    try:
        async with EmbeddedStack(data) as stack, Client(stack.target) as client:
            await import_traces(client, "tickets", parity_traces(40))
            job = await start(client, request("parity", "tickets", method="llm"))
            seen = []
            # the raw stream, left mid-way (a typed watch would resume where this one stops)
            watch = client._stubs.evals.WatchGenerationJob(pb.WatchGenerationJobRequest(job_id=job.job_id))
            async for msg in watch:
                seen.append(msg.event)
                if msg.event.type == pb.GENERATE_EVENT_TYPE_TOOL_RESULT:
                    break
            watch.cancel()
            await arrived(gate)
        # the stack stopped mid-call; a new one on the same data runs the job again from the start
        anthropic_env.enqueue(
            tool_use_reply(
                "test_eval_code", {"code": perfect("parity")}, input_tokens=2000, output_tokens=100
            )
        )
        async with EmbeddedStack(data) as stack, Client(stack.target) as client:
            events, job = await follow(client, job.job_id, after=seen[-1].sequence)
    finally:
        gate.release()

    assert events[0].sequence == seen[-1].sequence + 1, "resumed after the last event seen, none lost"
    assert (status(job), outcome(job), job.runs) == ("done", "promoted", 2), job
    messages = [e.message for e in events]
    assert any("stopped during this run" in m for m in messages), messages
    assert any(m.startswith("run 2: an earlier run was interrupted") for m in messages), messages
    # both runs' tokens are counted
    assert (job.usage.input_tokens, job.usage.output_tokens) == (3000, 150)
    assert (job.usage.steps, job.usage.attempts, job.usage.stop_reason) == (2, 1, "target_reached")


async def test_a_job_whose_service_died_is_taken_over_by_another_instance_and_a_watch_resumes(
    tmp_path: Path, anthropic_env: FakeAnthropicServer, pg_url: str
) -> None:
    gate = Gate(tool_use_reply("test_eval_code", {"code": perfect("parity")}))
    anthropic_env.enqueue(tool_use_reply("fetch_traces", {}), gate)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        async with EmbeddedStack(tmp_path / "data") as stack:
            assert stack.nats.url
            env = {
                **os.environ,
                **anthropic_env.env(),
                "PYTHONPATH": str(ROOT),
                "AGENTEVAL_NATS_URL": stack.nats.url,
                "AGENTEVAL_EVALGEN_DATABASE_URL": pg_url,
                "AGENTEVAL_EVALGEN_TRANSCRIPTS_ADDR": stack.target,
                "AGENTEVAL_EVALGEN_GRADER_ADDR": stack.target,
                "AGENTEVAL_EVALGEN_JOB_LEASE_S": "2",
                "AGENTEVAL_EVALGEN_JOB_POLL_INTERVAL_S": "0.2",
            }

            async def instance(addr: str) -> None:
                from tests.integration.test_distributed import wait_serving

                log = open(tmp_path / f"evalgen-{len(procs)}.log", "wb")
                procs.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "agenteval.cli", "serve", "eval_generator", "--address", addr],
                        cwd=ROOT,
                        env=env,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                    )
                )
                await wait_serving(addr)

            async with Client(stack.target) as client:
                await import_traces(client, "tickets", parity_traces(40))
            addr = f"127.0.0.1:{free_port()}"
            await instance(addr)
            async with Client(addr) as client:
                job = await start(client, request("parity", "tickets", method="llm"))
                # the typed watch, on while the instance dies and another comes up at its address
                watching = asyncio.create_task(follow(client, job.job_id))
                await arrived(gate)
                procs[0].kill()  # no goodbye: its job stays "running" until its lease runs out
                procs[0].wait(10)
                assert not watching.done(), "the watch ended with the instance"

                anthropic_env.enqueue(tool_use_reply("test_eval_code", {"code": perfect("parity")}))
                await instance(addr)
                events, job = await asyncio.wait_for(watching, 120)
                assert (status(job), outcome(job), job.runs) == ("done", "promoted", 2), job
                assert any(m.message.startswith("run 2:") for m in events)
                # resumed after the last event it had: every event once, none missed
                assert [e.sequence for e in events] == list(range(1, job.last_sequence + 1))
                saved = await current_eval(client, "parity")
                assert saved is not None and saved.version == 1 and saved.job_id == job.job_id
    finally:
        gate.release()
        for proc in procs:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


async def test_cancel_a_running_job_and_list_jobs_by_status(
    tmp_path: Path, anthropic_env: FakeAnthropicServer
) -> None:
    gate = Gate(tool_use_reply("test_eval_code", {"code": perfect("parity")}))
    anthropic_env.enqueue(gate)
    try:
        async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
            await import_traces(client, "tickets", parity_traces(40))
            running = await start(client, request("parity", "tickets", method="llm"))
            await arrived(gate)
            listed = await client.list_generation_jobs(status="running")
            assert [j.job_id for j in listed] == [running.job_id]

            cancelled = await client.cancel_generation_job(running.job_id)
            assert status(cancelled) == "cancelled" and cancelled.error_code == "CANCELLED"
            events, _ = await follow(client, running.job_id)
            assert kinds(events)[-1] == "cancelled"
            assert await current_eval(client, "parity") is None
            assert await client.list_evals() == []

            with pytest.raises(Conflict, match="has already ended"):  # FAILED_PRECONDITION
                await client.cancel_generation_job(running.job_id)
            with pytest.raises(grpc.aio.AioRpcError) as ended:
                await client._stubs.evals.CancelGenerationJob(
                    pb.CancelGenerationJobRequest(job_id=running.job_id)
                )
            assert ended.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            with pytest.raises(NotFound):
                await client.cancel_generation_job("nope")
            with pytest.raises(NotFound):
                await follow(client, "nope")

            # a synthesizer job for the record: jobs list newest first, by status and name
            done = await start(
                client, request("offline", "tickets", method="synthesizer", target_accuracy=0.4)
            )
            _, done = await follow(client, done.job_id)
            assert (status(done), done.usage.stop_reason, done.usage.input_tokens) == (
                "done",
                "synthesizer",
                0,
            )
            every = await client.list_generation_jobs()
            assert [j.job_id for j in every] == [done.job_id, running.job_id]
            by_name = await client.list_generation_jobs(name="offline")
            assert [j.job_id for j in by_name] == [done.job_id]

            code, out, err = await _cli(stack.target, "evals", "jobs")
            assert code == 0, err
            assert running.job_id in out and "cancelled" in out and done.job_id in out, out
            code, _, err = await _cli(stack.target, "evals", "cancel", done.job_id)
            assert code == 1 and "has already ended (done)" in err, err

            # --detach only queues; the job is watched (and judged) later
            code, out, err = await _cli(
                stack.target,
                "evals",
                "generate",
                "later",
                "-d",
                "tickets",
                "--method",
                "synthesizer",
                "--detach",
            )
            assert code == 0, err
            code, out, err = await _cli(stack.target, "evals", "watch", out.strip(), "--json")
            doc = json.loads(out)
            assert doc["job"]["name"] == "later" and doc["job"]["status"] == "done", doc
            assert code == (0 if doc["job"]["outcome"] == "promoted" else 1), (doc, err)
    finally:
        gate.release()


async def _cli(target: str, *args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agenteval.cli",
        *args,
        "--server",
        target,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "120"},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_interrupting_an_embedded_generate_cancels_its_job_rather_than_leave_it_queued(
    tmp_path: Path, anthropic_env: FakeAnthropicServer
) -> None:
    import signal

    from tests.eval_generator.generation_helpers import jsonl

    data = tmp_path / "data"
    (tmp_path / "tickets.jsonl").write_bytes(jsonl(parity_traces(40)))
    gate = Gate(tool_use_reply("test_eval_code", {"code": perfect("parity")}))
    anthropic_env.enqueue(gate)
    base = [sys.executable, "-m", "agenteval.cli"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        imported = subprocess.run(
            [
                *base,
                "traces",
                "import",
                str(tmp_path / "tickets.jsonl"),
                "-d",
                "tickets",
                "--data-dir",
                str(data),
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            timeout=120,
        )
        assert imported.returncode == 0, imported.stderr
        proc = await asyncio.create_subprocess_exec(
            *base,
            "evals",
            "generate",
            "parity",
            "-d",
            "tickets",
            "--method",
            "llm",
            "--data-dir",
            str(data),
            cwd=ROOT,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        await arrived(gate)
        proc.send_signal(signal.SIGINT)
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode == 130, (out, err)
        assert b"cancelled" in err and b"Traceback" not in err, err
    finally:
        gate.release()
    # the next command on this data dir does not pick the job up again
    async with EmbeddedStack(data) as stack, Client(stack.target) as client:
        [job] = await client.list_generation_jobs()
        assert status(job) == "cancelled", job
    assert len(anthropic_env.message_requests) == 1


async def test_a_job_whose_grader_is_down_fails_saying_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("AGENTEVAL_EVALGEN_GRADER_ADDR", f"127.0.0.1:{free_port()}")
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        await import_traces(client, "tickets", parity_traces(20))
        events, job = await follow(client, (await start(client, request("parity", "tickets"))).job_id)
    assert (status(job), job.error_code) == ("failed", "UNAVAILABLE"), job
    assert job.error.startswith("the grader is unavailable") and kinds(events)[-1] == "failed"
