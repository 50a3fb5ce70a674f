"""`agent-eval export RUN --format inspect` writes a log the real inspect_ai reader reads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "agenteval.cli"]

SUITE = {
    "name": "inspect-export",
    "cases": [
        {
            "id": "lookup_ok",
            "input": "hello",
            "graders": [
                {"tool_called": {"tool": "lookup"}},
                {"output_contains": {"text": "HELLO"}},
                {"output_contains": {"text": "ANSWER"}},
            ],
        },
        {"id": "wrong_answer", "input": "bye", "graders": [{"output_contains": {"text": "hello"}}]},
    ],
}


def agent_eval(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=180)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path, Path]:
    tmp = tmp_path_factory.mktemp("export")
    suite = tmp / "suite.yaml"
    suite.write_text(yaml.safe_dump(SUITE))
    data = tmp / "data"
    proc = agent_eval(
        "run",
        str(suite),
        "-k",
        "3",
        "--agent",
        "python:tests.agents:echo_tool",
        "--json",
        "--data-dir",
        str(data),
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    out = tmp / "log.json"
    proc = agent_eval(
        "export", summary["run_id"], "--format", "inspect", "-o", str(out), "--data-dir", str(data)
    )
    assert proc.returncode == 0, proc.stderr
    assert f"6 samples written to {out}" in proc.stderr
    return summary, out, data


def test_inspect_reads_every_trial_as_an_epoch_of_its_case(exported: tuple[dict, Path, Path]) -> None:
    from inspect_ai.log import read_eval_log

    summary, path, _ = exported
    log = read_eval_log(str(path))
    assert log.status == "success"
    assert log.eval.task == "inspect-export" and log.eval.run_id == summary["run_id"]
    assert log.eval.model == "python:tests.agents:echo_tool"
    assert log.eval.config.epochs == 3
    assert log.samples is not None
    assert sorted((s.id, s.epoch) for s in log.samples) == [
        (case, epoch) for case in ("lookup_ok", "wrong_answer") for epoch in (1, 2, 3)
    ]
    sample = next(s for s in log.samples if s.id == "lookup_ok")
    assert sample.input[0].text == "hello"
    assert sample.output.completion == "ANSWER: HELLO"
    # The tool call and its result are in the conversation, as Inspect shows tool use.
    [call] = [c for m in sample.messages if m.role == "assistant" for c in (m.tool_calls or [])]
    assert (call.function, call.arguments) == ("lookup", {"query": "hello"})
    [tool] = [m for m in sample.messages if m.role == "tool"]
    assert json.loads(tool.text) == {"answer": "HELLO"} and tool.tool_call_id == call.id
    assert sample.model_usage["claude-haiku-4-5"].input_tokens == 100


def test_each_grader_is_a_score_and_the_results_carry_pass_at_k(exported: tuple[dict, Path, Path]) -> None:
    from inspect_ai.log import read_eval_log

    summary, path, _ = exported
    log = read_eval_log(str(path))
    assert log.samples is not None
    good = next(s for s in log.samples if s.id == "lookup_ok")
    bad = next(s for s in log.samples if s.id == "wrong_answer")
    assert good.scores is not None and bad.scores is not None
    # A grader used twice on one case keeps both verdicts.
    assert set(good.scores) == {"tool_called", "output_contains", "output_contains#2", "passed"}
    assert good.scores["output_contains#2"].metadata == {"passed": True, "params": {"text": "ANSWER"}}
    assert good.scores["passed"].value == 1.0
    assert bad.scores["output_contains"].value == 0.0
    assert "hello" in (bad.scores["output_contains"].explanation or "")
    assert bad.scores["passed"].value == 0.0 and bad.scores["passed"].explanation == "failed: output_contains"

    assert log.results is not None
    results = {s.name: s for s in log.results.scores}
    passed = results["passed"].metrics
    assert passed["mean"].value == pytest.approx(0.5)
    assert passed["pass_at_3"].value == pytest.approx(summary["pass_at_k"]["3"])
    assert passed["pass_pow_3"].value == pytest.approx(summary["pass_pow_k"]["3"])
    assert results["tool_called"].metrics["mean"].value == 1.0


def test_export_errors_are_messages(exported: tuple[dict, Path, Path], tmp_path: Path) -> None:
    summary, _, data = exported
    proc = agent_eval("export", "no-such-run", "--data-dir", str(data))
    assert proc.returncode == 2 and "no-such-run" in proc.stderr and "Traceback" not in proc.stderr
    proc = agent_eval("export", summary["run_id"], "-o", str(tmp_path / "log.eval"), "--data-dir", str(data))
    assert proc.returncode == 2 and "must end in .json" in proc.stderr
    proc = agent_eval("export", summary["run_id"], "--format", "csv", "--data-dir", str(data))
    assert proc.returncode == 2 and "csv" in proc.stderr
