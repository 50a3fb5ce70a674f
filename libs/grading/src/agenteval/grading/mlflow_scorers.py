"""agenteval graders as MLflow GenAI scorers, for ``mlflow.genai.evaluate(..., scorers=[...])``.

:func:`mlflow_scorer` turns one registered grader with its parameters into an MLflow
``Scorer``. MLflow calls it with the row's ``inputs``, ``outputs``, ``expectations`` and the
``trace`` of the prediction; the scorer reads them as an agenteval trace (tool and LLM
spans become steps), runs the grader and answers with a ``Feedback``: value = passed, the
grader's explanation as rationale, its score in the metadata. So ``<name>/mean`` in the
evaluation's metrics is the share of rows that passed.

Needs ``mlflow-skinny`` (and ``pandas`` for ``mlflow.genai.evaluate``): the ``mlflow`` extra
of ``agenteval-grading``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from pathlib import Path
from typing import Any

from agenteval.contracts.suite import Case, GraderSpec
from agenteval.contracts.trace import Message, Step, Trace, TrialError, Usage
from agenteval.grading._registry import Grade, GradeContext, run_grader, validate_spec

__all__ = ["mlflow_scorer", "trace_from_mlflow"]

_EXPECTED_OUTPUT_KEYS = ("expected_output", "expected_response", "expected")
_OUTPUT_KEYS = ("output", "response", "answer", "content", "text")
_LLM_SPAN_TYPES = frozenset({"LLM", "CHAT_MODEL"})


def mlflow_scorer(grader: str, *, name: str | None = None, **params: Any) -> Any:
    """An MLflow scorer that runs agenteval grader ``grader`` with ``params``.

    ``name`` is the scorer's (and its feedback's) name, ``grader`` by default. A grader that
    is not registered, or parameters it does not take, raise ``ValueError`` here, not in the
    middle of an evaluation. ``eval_function`` with ``path=`` reads the file now (relative to
    the working directory) and runs it in a one-worker sandbox per row.
    """
    from mlflow.entities import AssessmentError, Feedback
    from mlflow.genai.scorers import scorer

    if grader == "eval_function" and params.get("path") and not params.get("code"):
        params = {**params, "code": Path(str(params["path"])).read_text(encoding="utf-8")}
    spec = GraderSpec(name=grader, params=params)
    validate_spec(spec)  # UnknownGraderError is a ValueError too

    def score(
        inputs: Any = None, outputs: Any = None, expectations: Any = None, trace: Any = None
    ) -> Feedback:
        agent_trace = trace_from_mlflow(trace, inputs=inputs, outputs=outputs)
        case = _case(agent_trace, expectations)
        grade = _run(spec, agent_trace, case)
        return Feedback(
            value=grade.passed,
            rationale=grade.explanation,
            error=AssessmentError(error_code="GRADER_ERROR", error_message=grade.error)
            if grade.error
            else None,
            metadata={"score": repr(grade.score), "grader": grader, "params": _params_text(spec.params)},
        )

    return scorer(score, name=name or grader, description=f"agenteval grader {grader}")


def trace_from_mlflow(trace: Any, inputs: Any = None, outputs: Any = None) -> Trace:
    """An agenteval :class:`Trace` from an MLflow trace (``None`` allowed) and a row's inputs
    and outputs: TOOL spans become tool calls, LLM and CHAT_MODEL spans LLM calls, in order."""
    spans = list(getattr(getattr(trace, "data", None), "spans", None) or [])
    root = next((s for s in spans if s.parent_id is None), None)
    if inputs is None and root is not None:
        inputs = root.inputs
    if outputs is None and root is not None:
        outputs = root.outputs
    steps: list[Step] = []
    models: dict[str, dict[str, int]] = {}
    for span in sorted((s for s in spans if s is not root), key=lambda s: s.start_time_ns or 0):
        latency_ms = max(0, (span.end_time_ns or 0) - (span.start_time_ns or 0)) / 1e6
        failed = _status(span) == "ERROR"
        if span.span_type == "TOOL":
            arguments = span.inputs if isinstance(span.inputs, dict) else {"input": span.inputs}
            steps.append(
                Step(
                    type="tool_call",
                    name=span.name,
                    arguments=arguments if span.inputs is not None else {},
                    result=span.outputs,
                    error=(getattr(span.status, "description", "") or "error") if failed else None,
                    latency_ms=latency_ms,
                )
            )
        elif span.span_type in _LLM_SPAN_TYPES:
            usage = span.get_attribute("mlflow.chat.tokenUsage") or {}
            model = str(span.get_attribute("model") or span.name)
            tokens_in, tokens_out = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
            per_model = models.setdefault(model, {"input_tokens": 0, "output_tokens": 0})
            per_model["input_tokens"] += tokens_in
            per_model["output_tokens"] += tokens_out
            steps.append(
                Step(
                    type="llm_call",
                    model=model,
                    content=_text(span.outputs),
                    input_tokens=tokens_in,
                    output_tokens=tokens_out,
                    latency_ms=latency_ms,
                )
            )
    failed_trace = str(getattr(getattr(trace, "info", None), "state", "") or "") == "ERROR"
    latency = 0.0
    if root is not None and root.end_time_ns and root.start_time_ns:
        latency = (root.end_time_ns - root.start_time_ns) / 1e6
    return Trace(
        input=_messages(inputs),
        steps=steps,
        output=None if outputs is None else _text(outputs),
        usage=Usage(
            input_tokens=sum(m["input_tokens"] for m in models.values()),
            output_tokens=sum(m["output_tokens"] for m in models.values()),
            models=models,
        ),
        latency_ms=latency,
        status="error" if failed_trace else "ok",
        error=TrialError(code="agent_error", message="the traced call failed") if failed_trace else None,
    )


def _status(span: Any) -> str:
    code = getattr(getattr(span, "status", None), "status_code", "")
    return str(getattr(code, "value", code))


def _messages(inputs: Any) -> list[Message]:
    if isinstance(inputs, dict) and isinstance(inputs.get("messages"), list):
        found = [Message.model_validate(m) for m in inputs["messages"] if isinstance(m, dict)]
        if found:
            return found
    if isinstance(inputs, dict) and len(inputs) == 1:
        (inputs,) = inputs.values()
    return [Message(role="user", content=_text(inputs))]


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in _OUTPUT_KEYS:
            if isinstance(value.get(key), str):
                return str(value[key])
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def _case(trace: Trace, expectations: Any) -> Case:
    expected = expectations if isinstance(expectations, dict) else {}
    output = next((expected[k] for k in _EXPECTED_OUTPUT_KEYS if k in expected), None)
    tools = expected.get("expected_tools")
    return Case(
        id="mlflow",
        input=trace.input or [Message(content="")],
        expected_output=None if output is None else _text(output),
        expected_tools=[str(t) for t in tools] if isinstance(tools, list) else None,
    )


def _params_text(params: dict[str, Any]) -> str:
    shown = {k: v for k, v in params.items() if k != "code"}
    return json.dumps(shown, sort_keys=True, default=str)


def _run(spec: GraderSpec, trace: Trace, case: Case) -> Grade:
    """Run the grader to completion from synchronous code (MLflow calls scorers in threads)."""

    async def grade() -> Grade:
        if spec.name != "eval_function":
            return await run_grader(spec, trace, GradeContext(case=case))
        from agenteval.sandbox import SandboxPool

        async with SandboxPool(workers=1) as pool:
            return await run_grader(spec, trace, GradeContext(case=case, services={"sandbox": pool}))

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(grade())
    # Called from inside an event loop: grade on a thread of its own.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, grade()).result()
