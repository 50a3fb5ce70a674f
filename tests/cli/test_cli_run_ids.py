"""Run ids at the command line: unambiguous prefixes are taken, unknown ids and cases fail
with a message, and a trial's transcript reads as text at 80 columns."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client

pytestmark = pytest.mark.asyncio(loop_scope="module")
ROOT = Path(__file__).resolve().parents[2]
SUITE = Suite.model_validate(
    {
        "name": "ids",
        "graders": [{"tool_called": {"tool": "lookup"}}],
        "cases": [{"id": f"c{i}", "input": f"where is order {i}?"} for i in range(2)],
    }
)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def runs(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[str, list[str]]]:
    async with EmbeddedStack(tmp_path_factory.mktemp("ids")) as stack, Client(stack.target) as client:
        ids = []
        for seed in (1, 2):
            run = await client.submit(SUITE, agent="python:tests.agents:echo_tool", k=1, seed=seed)
            await client.wait(run.run_id, timeout_s=60)
            ids.append(run.run_id)
        for _ in range(100):  # the transcript store keeps its own pace
            if [len(await client.trials(r)) for r in ids] == [2, 2]:
                break
            await asyncio.sleep(0.1)
        yield stack.target, ids


async def agent_eval(*args: str, columns: int = 80) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agenteval.cli", *args,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "COLUMNS": str(columns)},
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    return proc.returncode or 0, out.decode(), err.decode()


def common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


async def test_an_unambiguous_prefix_names_its_run(runs: tuple[str, list[str]]) -> None:
    target, ids = runs
    shared = common_prefix(*ids)
    prefix = ids[0][: len(shared) + 1]  # one character past what the two share
    code, out, err = await agent_eval("trials", prefix, "--json", "--server", target)
    assert code == 0, err
    assert '"trial_id": "' + ids[0] + "/c0/0" in out
    code, out, err = await agent_eval("show", prefix, "--json", "--server", target)
    assert code == 0 and ids[0] in out, err


async def test_an_ambiguous_prefix_fails_naming_the_runs(runs: tuple[str, list[str]]) -> None:
    target, ids = runs
    prefix = common_prefix(*ids)
    assert len(prefix) >= 6, "run ids of one moment share their time part"
    code, _, err = await agent_eval("show", prefix, "--server", target)
    assert code == 2 and "ambiguous" in err and ids[0] in err and ids[1] in err, err


async def test_unknown_runs_and_cases_fail_with_a_message(runs: tuple[str, list[str]]) -> None:
    target, ids = runs
    code, out, err = await agent_eval("trials", "run-nope-000000", "--server", target)
    assert code == 2 and "no run" in err and out.strip() == "", (out, err)
    code, _, err = await agent_eval("trials", ids[0], "--case", "nope", "--server", target)
    assert code == 2 and "no trials of case 'nope'" in err, err


async def test_a_transcript_reads_as_text_within_80_columns(runs: tuple[str, list[str]]) -> None:
    target, ids = runs
    code, out, err = await agent_eval("trials", ids[0], "--case", "c1", "--transcript", "--server", target)
    assert code == 0, err
    assert f"{ids[0]}/c1/0" in out
    assert "user: where is order 1?" in out
    assert "tool lookup(" in out and "WHERE IS ORDER 1?" in out  # the call's argument and result
    assert "answer: ANSWER: WHERE IS ORDER 1?" in out
    assert "pass tool_called" in out
    assert all(len(line) <= 80 for line in out.splitlines()), max(out.splitlines(), key=len)


@pytest.mark.parametrize("columns", [80, 120])
async def test_runs_lists_whole_ids_within_the_terminal_width(
    runs: tuple[str, list[str]], columns: int
) -> None:
    target, ids = runs
    code, out, err = await agent_eval("runs", "--server", target, columns=columns)
    assert code == 0, err
    lines = out.splitlines()
    for run_id in ids:
        assert any(run_id in line for line in lines), f"{run_id} is cut or split:\n{out}"
    assert all(len(line) <= columns for line in lines), max(lines, key=len)


@pytest.mark.parametrize("columns", [80, 120])
async def test_trials_lists_whole_trial_ids_within_the_terminal_width(
    runs: tuple[str, list[str]], columns: int
) -> None:
    target, ids = runs
    code, out, err = await agent_eval("trials", ids[0], "--server", target, columns=columns)
    assert code == 0, err
    lines = out.splitlines()
    for case in ("c0", "c1"):
        assert any(f"{ids[0]}/{case}/0" in line for line in lines), f"a trial id is cut or split:\n{out}"
    assert all(len(line) <= columns for line in lines), max(lines, key=len)
