"""A run as an Inspect AI eval log (the JSON form ``inspect_ai.log.read_eval_log`` reads).

The mapping: the suite is the task, each case a sample (its id), each trial an epoch
(``trial_index + 1``), the agent the model. Each sample carries the conversation (tool
calls as assistant tool calls and tool messages), the final answer, token usage, and one
score per grader (value = the grader's score, its pass/fail and params in metadata) plus
``passed`` (1.0 when the trial finished and every grader passed). The results hold each
score's mean over trials, and for ``passed`` the pass rate, pass@k and pass^k of the run.

Built by hand rather than with inspect_ai's classes so that exporting needs no
``inspect-ai`` install; the tests read the output with the real reader.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from agenteval.contracts.summary import RunSummary

__all__ = ["INSPECT_LOG_VERSION", "ExportTrial", "inspect_eval_log"]

INSPECT_LOG_VERSION = 2
"""The Inspect eval log format version written."""
PASSED_SCORE = "passed"


@dataclass
class ExportTrial:
    """One graded trial, as the transcript store gives it."""

    trial_id: str
    case_id: str
    trial_index: int
    status: str
    """ok, error or timeout."""
    trace: dict[str, Any]
    """The transcript (``agenteval.contracts.trace.Trace`` as JSON)."""
    passed: bool | None = None
    """None until graded."""
    grades: list[dict[str, Any]] = field(default_factory=list)
    """Each grader's verdict: name, params, score, passed, explanation, error."""


def inspect_eval_log(
    summary: RunSummary,
    trials: list[ExportTrial],
    *,
    created_at: str = "",
    completed_at: str = "",
    status: str = "success",
    version: str = "",
) -> dict[str, Any]:
    """The Inspect eval log (a JSON-ready dict) of the run ``summary`` with its ``trials``."""
    created = created_at or datetime.now(UTC).isoformat()
    ordered = sorted(trials, key=lambda t: (t.case_id, t.trial_index))
    samples = [_sample(t, summary) for t in ordered]
    case_ids = sorted({t.case_id for t in ordered} | {c.case_id for c in summary.cases})
    usage = _usage_total(samples)
    return {
        "version": INSPECT_LOG_VERSION,
        "status": status,
        "eval": {
            "eval_id": summary.run_id,
            "run_id": summary.run_id,
            "created": created,
            "task": summary.suite or "agenteval",
            "task_id": summary.suite or "agenteval",
            "task_version": 0,
            "task_attribs": {},
            "task_args": {},
            "dataset": {"name": summary.suite, "samples": len(case_ids), "sample_ids": case_ids},
            "model": summary.agent or "agenteval/agent",
            "model_args": {},
            "config": {"epochs": summary.k or None},
            "packages": {"agenteval": version} if version else {},
            "metadata": {
                "agenteval": {
                    "run_id": summary.run_id,
                    "suite": summary.suite,
                    "agent": summary.agent,
                    "agent_version": summary.agent_version,
                }
            },
        },
        "plan": {"name": "agenteval", "steps": [{"solver": summary.agent or "agent", "params": {}}]},
        "results": {
            "total_samples": len(samples),
            "completed_samples": sum(1 for t in ordered if t.status == "ok"),
            "scores": _results(summary, samples),
        },
        "stats": {"started_at": created, "completed_at": completed_at or created, "model_usage": usage},
        "samples": samples,
    }


def _sample(trial: ExportTrial, summary: RunSummary) -> dict[str, Any]:
    trace = trial.trace
    inputs = [_message(m) for m in trace.get("input") or []] or [{"role": "user", "content": ""}]
    output = trace.get("output")
    answer = "" if output is None else str(output)
    usage = _model_usage(trace)
    sample: dict[str, Any] = {
        "id": trial.case_id,
        "epoch": trial.trial_index + 1,
        "input": inputs,
        "target": "",
        "messages": [*inputs, *_step_messages(trace), *([_assistant(answer)] if output is not None else [])],
        "output": {
            "model": summary.agent or "agenteval/agent",
            "choices": [{"message": _assistant(answer), "stop_reason": "stop"}] if output is not None else [],
            "completion": answer,
            "usage": _sum_usage(usage.values()),
        },
        "scores": _scores(trial, answer),
        "metadata": {
            "trial_id": trial.trial_id,
            "status": trial.status,
            "agent_version": summary.agent_version,
            "state": trace.get("state") or {},
        },
        "model_usage": usage,
        "total_time": float(trace.get("latency_ms") or 0.0) / 1000.0,
        "uuid": trial.trial_id,
    }
    error = trace.get("error")
    if trial.status != "ok":
        message = error.get("message") if isinstance(error, dict) else None
        code = error.get("code") if isinstance(error, dict) else trial.status
        text = f"{code}: {message or trial.status}"
        sample["error"] = {"message": text, "traceback": text, "traceback_ansi": text}
    return sample


def _message(m: dict[str, Any]) -> dict[str, Any]:
    role = m.get("role") if m.get("role") in ("system", "user", "assistant", "tool") else "user"
    return {"role": role, "content": str(m.get("content") or "")}


def _assistant(text: str, tool_calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return message


def _step_messages(trace: dict[str, Any]) -> list[dict[str, Any]]:
    """Tool calls as an assistant tool call and its tool message; messages as they were."""
    out: list[dict[str, Any]] = []
    for i, step in enumerate(trace.get("steps") or [], start=1):
        kind = step.get("type")
        if kind == "tool_call":
            call_id = f"call_{i}"
            name = str(step.get("name") or "tool")
            arguments = step.get("arguments") if isinstance(step.get("arguments"), dict) else {}
            out.append(
                _assistant(
                    "", [{"id": call_id, "function": name, "arguments": arguments, "type": "function"}]
                )
            )
            tool: dict[str, Any] = {
                "role": "tool",
                "content": _text(step.get("result")),
                "tool_call_id": call_id,
                "function": name,
            }
            if step.get("error"):
                tool["error"] = {"type": "unknown", "message": str(step["error"])}
            out.append(tool)
        elif kind == "message" and step.get("content"):
            out.append(_message({"role": step.get("role") or "assistant", "content": step.get("content")}))
    return out


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _model_usage(trace: dict[str, Any]) -> dict[str, dict[str, int]]:
    usage = trace.get("usage") or {}
    models: dict[str, Any] = usage.get("models") or {}
    out = {
        str(model): _usage(int(t.get("input_tokens") or 0), int(t.get("output_tokens") or 0))
        for model, t in models.items()
        if isinstance(t, dict)
    }
    if not out and (usage.get("input_tokens") or usage.get("output_tokens")):
        out["unknown"] = _usage(int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0))
    return out


def _usage(input_tokens: int, output_tokens: int) -> dict[str, int]:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
    }


def _sum_usage(usages: Any) -> dict[str, int]:
    listed = list(usages)
    return _usage(sum(u["input_tokens"] for u in listed), sum(u["output_tokens"] for u in listed))


def _usage_total(samples: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    total: dict[str, list[dict[str, int]]] = {}
    for sample in samples:
        for model, usage in sample["model_usage"].items():
            total.setdefault(model, []).append(usage)
    return {model: _sum_usage(usages) for model, usages in total.items()}


def score_names(grades: list[dict[str, Any]]) -> list[str]:
    """A score name per grade: the grader's name, ``#2``, ``#3``... when a name repeats."""
    seen: dict[str, int] = {}
    names = []
    for grade in grades:
        name = str(grade.get("name") or "grader")
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return names


def _scores(trial: ExportTrial, answer: str) -> dict[str, Any]:
    scores: dict[str, Any] = {}
    for name, grade in zip(score_names(trial.grades), trial.grades, strict=True):
        metadata = {"passed": bool(grade.get("passed")), "params": grade.get("params") or {}}
        if grade.get("error"):
            metadata["error"] = str(grade["error"])
        scores[name] = {
            "value": float(grade.get("score") or 0.0),
            "answer": answer,
            "explanation": str(grade.get("explanation") or ""),
            "metadata": metadata,
        }
    if trial.passed is not None:
        scores[PASSED_SCORE] = {
            "value": 1.0 if trial.passed else 0.0,
            "answer": answer,
            "explanation": "finished and every grader passed" if trial.passed else _why_failed(trial),
        }
    return scores


def _why_failed(trial: ExportTrial) -> str:
    if trial.status != "ok":
        return f"the trial ended with status {trial.status}"
    failed = [str(g.get("name")) for g in trial.grades if not g.get("passed")]
    return "failed: " + ", ".join(failed) if failed else "failed"


def _metric(name: str, value: float) -> dict[str, Any]:
    return {"name": name, "value": value, "params": {}}


def _results(summary: RunSummary, samples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    values: dict[str, list[float]] = {}
    for sample in samples:
        for name, score in sample["scores"].items():
            values.setdefault(name, []).append(float(score["value"]))
    out = []
    for name, vals in values.items():
        metrics = {"mean": _metric("mean", sum(vals) / len(vals))}
        if name == PASSED_SCORE:
            metrics["pass_rate"] = _metric("pass_rate", summary.pass_rate)
            if summary.k:
                k = summary.k
                metrics[f"pass_at_{k}"] = _metric(f"pass_at_{k}", summary.pass_at_k.get(k, 0.0))
                metrics[f"pass_pow_{k}"] = _metric(f"pass_pow_{k}", summary.pass_pow_k.get(k, 0.0))
        out.append(
            {
                "name": name,
                "scorer": name,
                "reducer": "mean",
                "scored_samples": len(vals),
                "unscored_samples": len(samples) - len(vals),
                "params": {},
                "metrics": metrics,
            }
        )
    return out
