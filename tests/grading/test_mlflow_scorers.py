"""agenteval graders as MLflow GenAI scorers, through the real mlflow.genai.evaluate on a SQLite store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from agenteval.sdk import GradeContext, GradeOutcome, grader, mlflow_scorer

EVAL_CODE = """
def eval_refund_amount(trace, ctx=None):
    calls = [s for s in trace["steps"] if s["type"] == "tool_call" and s["name"] == "issue_refund"]
    if not calls:
        return 1.0, "no refund issued"
    amount = calls[0]["arguments"].get("amount", 0)
    return (1.0, "refund within limit") if amount <= 100 else (0.0, f"refund of {amount} is over 100")
"""


class _Expected(BaseModel):
    pass


@grader("test_matches_expected_output", _Expected)
def _matches_expected(trace: Any, params: _Expected, ctx: GradeContext) -> GradeOutcome:
    expected = ctx.case.expected_output if ctx.case else None
    ok = expected is not None and trace.output == expected
    return GradeOutcome(1.0 if ok else 0.0, ok, f"expected {expected!r}, got {trace.output!r}")


@pytest.fixture
def tracking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    import mlflow

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MLFLOW_GENAI_EVAL_SKIP_TRACE_VALIDATION", "true")
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    previous = mlflow.get_tracking_uri()
    mlflow.set_tracking_uri(uri)
    mlflow.set_experiment("scorers")
    yield uri
    mlflow.set_tracking_uri(previous)


def _refund_agent() -> Any:
    import mlflow

    @mlflow.trace(span_type="TOOL")
    def issue_refund(order: str, amount: int) -> dict[str, Any]:
        return {"order": order, "refunded": amount}

    @mlflow.trace(span_type="AGENT")
    def agent(question: str) -> str:
        amount = int(question.split()[-1])
        issue_refund(order="A1", amount=amount)
        return f"I refunded {amount} dollars"

    return agent


def test_graders_score_the_traces_of_mlflow_genai_evaluate(tracking: str) -> None:
    import mlflow

    scorers = [
        mlflow_scorer("tool_called", tool="issue_refund"),
        mlflow_scorer("output_contains", text="refunded 20"),
        mlflow_scorer("eval_function", name="refund_limit", code=EVAL_CODE),
    ]
    data = [{"inputs": {"question": "refund 20"}}, {"inputs": {"question": "refund 500"}}]
    result = mlflow.genai.evaluate(data=data, predict_fn=_refund_agent(), scorers=scorers)

    assert result.metrics["tool_called/mean"] == 1.0
    assert result.metrics["output_contains/mean"] == 0.5
    assert result.metrics["refund_limit/mean"] == 0.5

    traces = mlflow.search_traces(run_id=result.run_id, return_type="list")
    assert len(traces) == 2
    by_question = {json.loads(t.data.request)["question"]: t for t in traces}
    big = {a.name: a for a in by_question["refund 500"].info.assessments}
    assert big["refund_limit"].value is False
    assert big["refund_limit"].rationale == "refund of 500 is over 100"
    assert big["output_contains"].value is False and "refunded 20" in big["output_contains"].rationale
    assert big["tool_called"].value is True and big["tool_called"].metadata["score"] == "1.0"


def test_expectations_reach_the_grader_as_the_case(tracking: str) -> None:
    import mlflow

    data = [
        {
            "inputs": {"q": "capital of France"},
            "outputs": "Paris",
            "expectations": {"expected_response": "Paris"},
        },
        {
            "inputs": {"q": "capital of Italy"},
            "outputs": "Paris",
            "expectations": {"expected_response": "Rome"},
        },
    ]
    result = mlflow.genai.evaluate(data=data, scorers=[mlflow_scorer("test_matches_expected_output")])
    assert result.metrics["test_matches_expected_output/mean"] == 0.5


def test_a_scorer_can_be_called_on_its_own() -> None:
    check = mlflow_scorer("output_matches", pattern=r"order [A-Z]\d+")
    feedback = check(inputs={"question": "where is my order?"}, outputs="order A1001 ships today")
    assert feedback.value is True
    assert check(outputs="no idea").value is False


def test_an_unknown_grader_or_bad_params_fail_when_the_scorer_is_made() -> None:
    with pytest.raises(ValueError, match="unknown grader 'tool_caled'"):
        mlflow_scorer("tool_caled", tool="x")
    with pytest.raises(ValueError, match="bad parameters for grader 'tool_called'"):
        mlflow_scorer("tool_called", tol="x")
