"""Inspect AI eval logs as labeled traces. The logs are written by the real inspect-ai
(``write_eval_log``, in both the ``.eval`` archive and the ``.json`` form) from a log it read
(``read_eval_log``); the importer reads them back without inspect-ai: one trace per sample
and epoch, with its messages, tool calls and answer, labeled by the sample's score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval.contracts.summary import CaseSummary, RunSummary
from agenteval.importers import import_traces
from agenteval.reports import ExportTrial, inspect_eval_log
from tests.required import missing

try:
    import inspect_ai  # noqa: F401 - the optional test extra CI installs
except ImportError:
    missing("the inspect-ai package (the test extra)")


def trial(case: str, index: int, passed: bool) -> ExportTrial:
    looked_up = case == "order"
    steps = (
        [
            {
                "type": "tool_call",
                "name": "lookup_order",
                "arguments": {"id": "7"},
                "result": {"status": "shipped"},
            }
        ]
        if looked_up
        else []
    )
    trace = {
        "input": [{"role": "user", "content": f"question about {case}"}],
        "steps": steps,
        "output": "order 7 shipped" if passed else "no idea",
        "usage": {
            "input_tokens": 100,
            "output_tokens": 10,
            "models": {"claude-haiku-4-5": {"input_tokens": 100, "output_tokens": 10}},
        },
    }
    grade = {
        "name": "output_contains",
        "params": {"text": "shipped"},
        "score": 1.0 if passed else 0.0,
        "passed": passed,
        "explanation": "checked",
        "error": None,
    }
    return ExportTrial(f"run-x/{case}/{index}", case, index, "ok", trace, passed, [grade])


def write_with_inspect(tmp_path: Path, log_format: str) -> bytes:
    from inspect_ai.log import read_eval_log, write_eval_log

    trials = [
        trial("order", 0, True),
        trial("order", 1, False),
        trial("refund", 0, True),
        trial("refund", 1, True),
    ]
    summary = RunSummary(
        run_id="run-x",
        suite="support",
        agent="python:agent:run",
        agent_version="v1",
        k=2,
        trials=4,
        passes=3,
        cases=[
            CaseSummary(case_id="order", trials=2, passes=1, pass_rate=0.5),
            CaseSummary(case_id="refund", trials=2, passes=2, pass_rate=1.0),
        ],
    )
    source = tmp_path / "ours.json"
    source.write_text(json.dumps(inspect_eval_log(summary, trials)))
    log = read_eval_log(str(source))
    out = tmp_path / f"written.{log_format}"
    write_eval_log(log, str(out), format=log_format)
    return out.read_bytes()


@pytest.mark.parametrize("log_format", ["eval", "json"])
def test_a_log_written_by_inspect_ai_imports_one_labeled_trace_per_sample_and_epoch(
    tmp_path: Path, log_format: str
) -> None:
    result = import_traces(write_with_inspect(tmp_path, log_format))  # the format is recognized
    assert result.format == "inspect" and result.problems == []
    assert len(result.traces) == 4
    by_output = {(t.trace.input[0].content, t.trace.output): t for t in result.traces}
    shipped = [
        t for (q, out), t in by_output.items() if q == "question about order" and out == "order 7 shipped"
    ]
    [good] = shipped
    assert good.label == "positive"
    [call] = good.trace.tool_calls
    assert (call.name, call.arguments) == ("lookup_order", {"id": "7"}) and "shipped" in str(call.result)
    [bad] = [t for (q, out), t in by_output.items() if out == "no idea"]
    assert bad.label == "negative"
    assert sorted(t.label for t in result.traces) == ["negative", "positive", "positive", "positive"]
    assert len({t.trace_id for t in result.traces}) == 4


def test_a_broken_log_is_a_problem_not_a_crash() -> None:
    result = import_traces(b"PK\x03\x04not really a zip", format="inspect")
    assert result.traces == [] and result.problems and "Inspect log" in result.problems[0].reason
