"""From labeled traces to a saved eval that grades a suite, with no API key:
traces import -> evals generate (synthesizer) -> evals test on held-out traces -> eval:NAME in a suite."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from agenteval.client import Client
from agenteval.contracts.suite import Suite
from agenteval.eval_generator.synthesizer.datasets import DATASETS
from agenteval.stack import EmbeddedStack

ROOT = Path(__file__).resolve().parents[2]


def write_jsonl(path: Path, traces: list[dict], labels: list[bool], prefix: str) -> None:
    with path.open("w") as fh:
        for i, (t, good) in enumerate(zip(traces, labels, strict=True)):
            fh.write(
                json.dumps({"id": f"{prefix}-{i}", "trace": t, "label": "positive" if good else "negative"})
                + "\n"
            )
        fh.write("{broken line\n")


async def cli(target: str, *args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agenteval.cli",
        *args,
        "--server",
        target,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    return proc.returncode or 0, out.decode(), err.decode()


@pytest.fixture(autouse=True)
def no_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


async def test_import_generate_test_and_grade_offline(tmp_path: Path) -> None:
    train = DATASETS["support_tool_errors"](n=200, seed=1)
    fresh = DATASETS["support_tool_errors"](n=100, seed=99)  # traces the generator never saw
    write_jsonl(tmp_path / "labeled.jsonl", train.traces, train.labels, "t")
    write_jsonl(tmp_path / "fresh.jsonl", fresh.traces, fresh.labels, "f")

    async with EmbeddedStack(tmp_path / "data") as stack:
        code, out, err = await cli(
            stack.target,
            "traces",
            "import",
            str(tmp_path / "labeled.jsonl"),
            "--dataset",
            "support",
            "--json",
        )
        assert code == 0, err
        imported = json.loads(out)
        assert imported["imported"] == 200 and imported["dataset_version"] == 1
        assert imported["problems"] == [{"line": 201, "reason": imported["problems"][0]["reason"]}]

        # importing the same file again adds nothing and keeps the version
        code, out, _ = await cli(
            stack.target,
            "traces",
            "import",
            str(tmp_path / "labeled.jsonl"),
            "--dataset",
            "support",
            "--json",
        )
        again = json.loads(out)
        assert again["imported"] == 0 and again["duplicates"] == 200 and again["dataset_version"] == 1

        code, out, err = await cli(
            stack.target, "evals", "generate", "tool_errors", "--dataset", "support", "--json"
        )
        assert code == 0, err
        doc = json.loads(out)
        saved = doc["eval"]
        assert saved["generator"] == "synthesizer" and saved["version"] == 1
        assert saved["holdout_accuracy"] >= 0.75, saved
        split = saved["split"]
        assert not set(split["train"]) & set(split["holdout"])
        assert len(split["holdout"]) == 60
        kinds = [e["type"] for e in doc["events"]]
        assert kinds[0] == "started" and kinds[-1] == "saved" and "test_result" in kinds

        code, out, err = await cli(
            stack.target, "evals", "test", "tool_errors", "--traces", str(tmp_path / "fresh.jsonl"), "--json"
        )
        assert code == 0, err
        tested = json.loads(out)
        assert tested["total"] == 100 and tested["accuracy"] >= 0.75
        assert tested["unreadable_lines"][0].startswith("line 101")

        code, out, _ = await cli(stack.target, "evals", "list", "--json")
        assert [e["name"] for e in json.loads(out)["evals"]] == ["tool_errors"]
        code, out, _ = await cli(stack.target, "evals", "show", "tool_errors@1", "--code")
        assert "def eval_tool_errors" in out

        # the saved eval grades a suite run by name
        suite = Suite.model_validate(
            {
                "name": "uses-saved-eval",
                "cases": [
                    {"id": "c", "input": "hello", "graders": [{"eval:tool_errors@1": {}}]},
                    {"id": "missing", "input": "hello", "graders": [{"eval:nope": {}}]},
                ],
            }
        )
        async with Client(stack.target) as client:
            run = await client.submit(suite, agent="python:tests.agents:echo_tool", k=2)
            [ev async for ev in client.watch(run.run_id)]
            summary = await client.summary(run.run_id)
        assert summary is not None
        cases = {c.case_id: c for c in summary.cases}
        assert "eval:tool_errors@1" in cases["c"].grader_scores
        assert (
            cases["missing"].passes == 0
        )  # an unknown saved eval fails the grade, it does not crash the run


async def test_generate_rejects_bad_requests(tmp_path: Path) -> None:
    async with EmbeddedStack(tmp_path / "data") as stack:
        code, _, err = await cli(stack.target, "evals", "generate", "x", "--dataset", "nope")
        assert code == 2 and "nope" in err
        code, _, err = await cli(stack.target, "evals", "generate", "9bad", "--dataset", "nope")
        assert code == 2 and "invalid eval name" in err
        code, _, err = await cli(stack.target, "evals", "generate", "x", "--dataset", "d", "--method", "llm")
        assert code == 2 and "ANTHROPIC_API_KEY" in err
