"""Runs always end: a stalled run is ended by the watchdog with a reason, an interrupted
embedded run is cancelled (and its NATS child stopped), and `agent-eval cancel` works."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.errors import InvalidArgument
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client
from agenteval.v1 import runner_pb2

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "agenteval.cli"]

SLOW = Suite.model_validate(
    {
        "name": "slow",
        "trials": 2,
        "timeout_s": 120,
        "cases": [{"id": "nap", "input": "zzz"}, {"id": "nap2", "input": "z"}],
    }
)


async def test_the_watchdog_ends_a_stalled_run_as_failed_with_a_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTEVAL_RUNNER_STALL_S", "1.5")
    monkeypatch.setenv("AGENTEVAL_RUNNER_WATCHDOG_INTERVAL_S", "0.2")
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        run = await client.submit(SLOW, agent="python:tests.agents:slow")  # each trial naps 30 s
        events = await asyncio.wait_for(_all(client.watch(run.run_id)), timeout=60)
        assert events[-1].type == runner_pb2.RUN_EVENT_TYPE_FAILED
        assert "stalled" in events[-1].reason and "AGENTEVAL_RUNNER_STALL_S" in events[-1].reason
        got = await client.get_run(run.run_id)
        assert got.status == "failed" and got.error is not None and "stalled" in got.error
        # A following normal run on the same stack is not affected.
        fine = await client.submit(
            Suite.model_validate({"name": "fine", "cases": [{"id": "a", "input": "hi"}]}),
            agent="python:tests.agents:instant",
        )
        done = await asyncio.wait_for(_all(client.watch(fine.run_id)), timeout=60)
        assert done[-1].type == runner_pb2.RUN_EVENT_TYPE_COMPLETED


async def _all(stream):  # type: ignore[no-untyped-def]
    return [ev async for ev in stream]


async def test_agent_eval_cancel_cancels_a_running_run(tmp_path: Path) -> None:
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        run = await client.submit(SLOW, agent="python:tests.agents:slow", k=3)
        proc = await asyncio.create_subprocess_exec(
            *CLI,
            "cancel",
            run.run_id,
            "--server",
            stack.target,
            "--json",
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
        assert proc.returncode == 0, err.decode()
        assert json.loads(out)["status"] == "cancelled"
        events = await asyncio.wait_for(_all(client.watch(run.run_id)), timeout=60)
        assert any(ev.type == runner_pb2.RUN_EVENT_TYPE_CANCELLED for ev in events)

        proc = await asyncio.create_subprocess_exec(
            *CLI,
            "cancel",
            "run-unknown",
            "--server",
            stack.target,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        _, err = await asyncio.wait_for(proc.communicate(), timeout=60)
        assert proc.returncode == 2 and b"no run" in err


def _runs(db: Path) -> list[tuple[str, str]]:
    try:
        with sqlite3.connect(db, timeout=1.0) as conn:
            return list(conn.execute("SELECT run_id, status FROM runner_runs"))
    except sqlite3.Error:
        return []


def _nats_children(data_dir: Path) -> list[str]:
    ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [line for line in ps.splitlines() if "nats-server" in line and str(data_dir) in line]


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupting_an_embedded_run_cancels_it_and_stops_nats(tmp_path: Path, sig: int, code: int) -> None:
    suite = tmp_path / "slow.yaml"
    suite.write_text(SLOW.model_dump_json())
    data = tmp_path / "data"
    proc = subprocess.Popen(
        [*CLI, "run", str(suite), "--agent", "python:tests.agents:slow", "--data-dir", str(data)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(600):  # until the run exists
            if _runs(data / "runner.db") or proc.poll() is not None:
                break
            subprocess.run(["sleep", "0.1"])
        assert _runs(data / "runner.db"), (
            f"the run never started: {proc.stderr.read() if proc.poll() else ''}"
        )
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    ((run_id, status),) = _runs(data / "runner.db")
    assert status == "cancelled", f"run {run_id} was left {status}"
    assert f"run {run_id} cancelled" in err
    assert not _nats_children(data), "the embedded nats-server outlived the command"


async def test_a_run_too_large_for_the_bus_is_refused_before_anything_is_stored(tmp_path: Path) -> None:
    big = Suite.model_validate(
        {"name": "big", "cases": [{"id": f"c{i}", "input": "x" * 50_000} for i in range(40)]}
    )
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        with pytest.raises(InvalidArgument, match="AGENTEVAL_RUNNER_MAX_SUITE_BYTES"):
            await client.submit(big, agent="python:tests.agents:instant")
        listed = await client._stubs.runs.ListRuns(runner_pb2.ListRunsRequest())
        assert not listed.runs


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("timeout_s", float("nan"), "timeout_s"),
        ("timeout_s", float("inf"), "timeout_s"),
        ("concurrency", -3, "concurrency"),
        ("agent_version", "v" * 300, "agent_version"),
    ],
)
async def test_bad_run_settings_are_invalid_argument_and_store_nothing(
    tmp_path: Path, field: str, value: object, says: str
) -> None:
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        with pytest.raises(InvalidArgument, match=says):
            await client.submit(SLOW, agent="python:tests.agents:instant", **{field: value})
        assert not (await client._stubs.runs.ListRuns(runner_pb2.ListRunsRequest())).runs
