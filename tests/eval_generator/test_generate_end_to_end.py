"""From labeled traces to a saved eval that grades a suite, with no API key:
traces import -> evals generate (synthesizer) -> evals test on held-out traces -> eval:NAME in a suite."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client
from tests.fixtures.labeled_datasets import DATASETS

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
        assert imported["problems"] == [
            {"line": 201, "unit": "line", "reason": imported["problems"][0]["reason"]}
        ]

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
                    {"id": "newest", "input": "hello", "graders": [{"eval:tool_errors": {}}]},
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
        assert "eval:tool_errors" in cases["newest"].grader_scores

        # a saved eval (or version) that does not exist is named at submit, not in every trial's grade
        (tmp_path / "missing.yaml").write_text(
            "name: uses-missing-evals\n"
            "cases:\n"
            "  - {id: ok, input: hello, graders: [eval:tool_errors@1]}\n"
            "  - {id: missing, input: hello, graders: [eval:nope]}\n"
            "  - {id: old, input: hello, graders: [{eval:tool_errors@7: {threshold: 0.9}}]}\n"
        )
        code, out, err = await cli(
            stack.target, "run", str(tmp_path / "missing.yaml"), "--agent", "python:tests.agents:echo_tool"
        )
        assert code == 2, (out, err)
        flat = " ".join(err.split())  # rich wraps long messages
        assert "case 'missing': grader 'eval:nope': no saved eval 'nope'" in flat, err
        assert "case 'old': grader 'eval:tool_errors@7': no saved eval 'tool_errors' version 7" in flat, err
        assert "'ok'" not in flat and "Traceback" not in err, err
        async with Client(stack.target) as client:
            runs = await client.list_runs(suite="uses-missing-evals")
        assert runs == []


async def test_generate_rejects_bad_requests(tmp_path: Path) -> None:
    async with EmbeddedStack(tmp_path / "data") as stack:
        code, _, err = await cli(stack.target, "evals", "generate", "x", "--dataset", "nope")
        assert code == 2 and "nope" in err
        code, _, err = await cli(stack.target, "evals", "generate", "9bad", "--dataset", "nope")
        assert code == 2 and "invalid eval name" in err
        code, _, err = await cli(stack.target, "evals", "generate", "x", "--dataset", "d", "--method", "llm")
        assert code == 2 and "ANTHROPIC_API_KEY" in err


async def test_generation_and_tests_see_traces_as_graders_do_and_name_traces_it_learned_from(
    tmp_path: Path,
) -> None:
    from agenteval.eval_generator.generation.backends import GrpcBackends

    train = DATASETS["support_tool_errors"](n=60, seed=2)
    write_jsonl(tmp_path / "labeled.jsonl", train.traces, train.labels, "t")  # line 61 is broken
    otlp = ROOT / "tests/importers/data/otlp_traces.jsonl"  # 2 labeled traces, 1 unlabeled

    async with EmbeddedStack(tmp_path / "data") as stack:
        for path, dataset in ((tmp_path / "labeled.jsonl", "support"), (otlp, "otel")):
            code, _, err = await cli(stack.target, "traces", "import", str(path), "--dataset", dataset)
            assert code == 0, err

        # a problem in one JSON document is named by record, not by a line of the file
        records = [json.loads(x) for x in (otlp.parent / "mlflow_traces.jsonl").read_text().splitlines() if x]
        (tmp_path / "mlflow.json").write_text(json.dumps([records[0], {"info": 5}, *records[1:]], indent=2))
        code, out, err = await cli(
            stack.target, "traces", "import", str(tmp_path / "mlflow.json"), "--dataset", "ml", "--json"
        )
        assert code == 0, err
        assert [(p["unit"], p["line"]) for p in json.loads(out)["problems"]] == [("record", 2)]

        # OTLP traces are stored without tool_calls; generation reads them as graders do
        backends = GrpcBackends(stack.target, stack.target)
        _, labeled = await backends.labeled_traces("otel")
        assert len(labeled) == 2 and all(t["tool_calls"] for _, t, _ in labeled), labeled
        assert all(
            t["tool_calls"] == [s for s in t["steps"] if s["type"] == "tool_call"] for _, t, _ in labeled
        )

        code, _, err = await cli(stack.target, "evals", "generate", "tool_errors", "--dataset", "support")
        assert code == 0, err

        # a file in any import format can be tested on; unlabeled traces are named, not silently dropped
        code, out, err = await cli(
            stack.target, "evals", "test", "tool_errors", "--traces", str(otlp), "--json"
        )
        assert code == 0, err
        tested = json.loads(out)
        assert tested["total"] == 2 and tested["seen_in_training"] == 0
        assert tested["unreadable_lines"] == ["trace 4bf92f3577b34da6a3ce929d0e0e4736: no label"]

        # on its own training file: the skipped line is shown and the traces it learned from counted
        code, out, err = await cli(
            stack.target, "evals", "test", "tool_errors", "--traces", str(tmp_path / "labeled.jsonl")
        )
        assert code == 0, err
        assert "skipped line 61" in out and "42 of these traces were in its training part" in out, out
        code, out, _ = await cli(
            stack.target, "evals", "test", "tool_errors", "--dataset", "support", "--json"
        )
        assert json.loads(out)["seen_in_training"] == 42

        code, out, _ = await cli(stack.target, "evals", "show", "tool_errors", "--code", "--json")
        assert "def eval_tool_errors" in json.loads(out)["code"]
        code, out, err = await cli(
            stack.target,
            "traces",
            "label",
            "t-0",
            "negative",
            "--dataset",
            "support",
            "--rater",
            "dana",
            "--json",
        )
        assert code == 0, err
        relabeled = json.loads(out)
        assert (relabeled["label"], relabeled["rater"], relabeled["dataset_version"]) == (
            "negative",
            "dana",
            2,
        )


async def test_a_run_is_not_refused_when_the_eval_generator_cannot_be_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from agenteval.runtime.nats_server import free_port

    # The runner asks an eval generator that is not there; the grader still asks the real one.
    monkeypatch.setenv("AGENTEVAL_RUNNER_EVALGEN_ADDR", f"127.0.0.1:{free_port()}")
    suite = Suite.model_validate(
        {"name": "unchecked", "cases": [{"id": "missing", "input": "hello", "graders": [{"eval:nope": {}}]}]}
    )
    async with EmbeddedStack(tmp_path / "data") as stack:
        async with Client(stack.target) as client:
            run = await client.submit(suite, agent="python:tests.agents:echo_tool", k=1)
            [ev async for ev in client.watch(run.run_id)]
            for _ in range(100):  # the transcript store records grades a moment after the run ends
                [trial] = await client.trials(run.run_id)
                if trial.grades:
                    break
                await asyncio.sleep(0.05)
    assert "could not check the suite's saved evals" in caplog.text
    [grade] = trial.grades
    assert not grade.passed and "no saved eval 'nope'" in grade.error, grade
