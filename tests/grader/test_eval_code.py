"""TestEvalCode: accuracy, mismatches and per-trace errors of an eval function on labeled traces."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.errors import InvalidArgument
from agenteval.grader.eval_code import EvalCodeTester
from agenteval.sandbox import SandboxPool
from agenteval.sdk import Client, LabeledTrace, Trace
from agenteval.v1 import grader_pb2

ROOT = Path(__file__).resolve().parents[2]

CODE = '''
def eval_no_errors(trace, ctx=None):
    """Positive when no tool call failed."""
    if trace["output"] == "boom":
        raise ValueError("cannot judge this one")
    failed = [c for c in trace["tool_calls"] if c.get("error")]
    return (0.0, f"{len(failed)} tool errors") if failed else (1.0, "no tool errors")
'''


def trace(error: str | None, output: str = "done") -> dict:
    return {
        "input": [{"role": "user", "content": "x"}],
        "output": output,
        "steps": [{"type": "tool_call", "name": "t", "arguments": {}, "error": error}],
        "tool_calls": [{"type": "tool_call", "name": "t", "arguments": {}, "error": error}],
    }


LABELED = [
    ("ok-1", trace(None), "positive"),
    ("ok-2", trace(None), "positive"),
    ("bad-1", trace("timeout"), "negative"),
    ("mislabeled", trace("500"), "positive"),  # the code says negative: a mismatch
    ("raises", trace(None, output="boom"), "positive"),  # the code raises: an error
]


@pytest.fixture
async def tester():
    async with SandboxPool(workers=2) as pool:
        yield EvalCodeTester(pool)


async def test_accuracy_mismatches_and_errors(tester: EvalCodeTester) -> None:
    report = await tester.test(CODE, LABELED)
    assert (report.total, report.correct, report.incorrect, report.errors) == (5, 3, 1, 1)
    assert report.accuracy == pytest.approx(3 / 5)
    by_id = {m.trace_id: m for m in report.mismatches}
    assert by_id["mislabeled"].predicted == "negative" and by_id["mislabeled"].expected == "positive"
    assert by_id["mislabeled"].explanation == "1 tool errors"
    assert by_id["raises"].error is not None and "cannot judge this one" in by_id["raises"].error
    assert report.code_error is None


async def test_code_that_breaks_a_rule_is_reported_once(tester: EvalCodeTester) -> None:
    report = await tester.test("import socket\ndef eval_x(trace, ctx=None):\n    return 1.0, ''\n", LABELED)
    assert report.code_error is not None and "socket" in report.code_error
    assert report.correct == 0 and report.errors == len(LABELED)


async def test_traces_reach_the_code_as_graders_give_them(tester: EvalCodeTester) -> None:
    # Stored and imported traces carry steps only; eval functions (generated ones too) read
    # trace["tool_calls"] and trace["output"], as they do when grading a suite.
    stored = {"steps": [{"type": "tool_call", "name": "t", "arguments": {}, "error": "timeout"}]}
    odd = {"steps": "not a list", "tool_calls": []}  # not a valid trace: passed on as given
    code = CODE.replace('if trace["output"] == "boom"', 'if trace.get("output") == "boom"')
    report = await tester.test(code, [("stored", stored, "negative"), ("odd", odd, "positive")])
    assert (report.correct, report.errors) == (2, 0), report.mismatches


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"allowed_imports": ["os.path"]}, "top-level module names, got 'os.path'"),
        ({"timeout_s": -1.0}, "timeout_s must be above 0"),
        ({"timeout_s": 3600.0}, "at most 60"),
    ],
)
async def test_bad_request_options_are_invalid_arguments(
    tester: EvalCodeTester, kwargs: dict, fragment: str
) -> None:
    with pytest.raises(InvalidArgument, match=fragment):
        await tester.test(CODE, LABELED, **kwargs)


async def test_test_eval_code_over_grpc(tmp_path: Path) -> None:
    labeled = [LabeledTrace(trace_id=i, trace=Trace.from_eval_dict(t), label=lab) for i, t, lab in LABELED]
    async with EmbeddedStack(tmp_path / "d") as stack, Client(stack.target) as client:
        report = await client.test_eval_code(CODE, labeled)
        with pytest.raises(InvalidArgument) as exc:
            await client.test_eval_code(CODE, labeled, allowed_imports=["os.path"])
        # A raw client that leaves a trace out is told which one.
        missing = grader_pb2.TestEvalCodeRequest(
            code=CODE, traces=[grader_pb2.LabeledTrace(trace_id="t0", label=grader_pb2.LABEL_POSITIVE)]
        )
        with pytest.raises(grpc.aio.AioRpcError) as raw:
            await client._stubs.grader.TestEvalCode(missing)
    assert (report.total, report.correct, report.incorrect, report.errors) == (5, 3, 1, 1)
    assert {m.trace_id for m in report.mismatches} == {"mislabeled", "raises"}
    wrong = next(m for m in report.mismatches if m.trace_id == "mislabeled")
    assert (wrong.expected, wrong.predicted, wrong.score) == ("positive", "negative", 0.0)
    assert "os.path" in str(exc.value)
    assert raw.value.code() == grpc.StatusCode.INVALID_ARGUMENT, raw.value
    assert "traces[0] (t0): trace is not set" in (raw.value.details() or "")


def test_cli_evals_check(tmp_path: Path) -> None:
    code = tmp_path / "eval.py"
    code.write_text(CODE)
    traces = tmp_path / "labeled.jsonl"
    lines = [json.dumps({"id": i, "trace": t, "label": lab}) for i, t, lab in LABELED]
    traces.write_text("\n".join([*lines, "{not json", json.dumps({"trace": {}, "label": "meh"})]) + "\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agenteval.cli",
            "evals",
            "check",
            str(code),
            "--traces",
            str(traces),
            "--json",
            "--data-dir",
            str(tmp_path / "data"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["accuracy"] == pytest.approx(0.6) and doc["errors"] == 1
    assert [p.split(":")[0] for p in doc["unreadable_lines"]] == ["line 6", "line 7"]
