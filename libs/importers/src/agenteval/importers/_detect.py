"""Which format a file is in, judged from the shape of its first recognizable records."""

from __future__ import annotations

from typing import Any

from agenteval.contracts.trace import Step, Trace
from agenteval.importers._jsonl import RECORD_KEYS
from agenteval.importers._model import FormatName
from agenteval.importers._reader import Record, read_records

_SAMPLE = 50
_TRACE_KEYS = set(Trace.model_fields)
_STEP_KEYS = set(Step.model_fields)
_STEP_TYPES = {"message", "tool_call", "llm_call"}
_LANGFUSE_HINTS = {"observations", "scores", "sessionId", "userId", "htmlPath", "projectId", "totalCost"}


def classify(value: Any) -> FormatName | None:
    """The format one JSON record belongs to, or None when it matches none."""
    if not isinstance(value, dict):
        return None
    if any(k in value for k in ("resourceSpans", "resource_spans", "scopeSpans", "scope_spans")):
        return "otlp"
    if isinstance(value.get("info"), dict) and (
        "data" in value or value["info"].keys() & {"trace_id", "request_id"}
    ):
        return "mlflow"
    if isinstance(value.get("trace"), dict):
        return "jsonl"
    if _LANGFUSE_HINTS & value.keys():
        return "langfuse"
    steps = value.get("steps")
    if isinstance(steps, list) and steps:
        return "jsonl" if all(_is_our_step(s) for s in steps) else "langfuse"
    if (
        value.keys()
        and value.keys() <= _TRACE_KEYS | RECORD_KEYS
        and value.keys() & {"input", "output", "steps"}
    ):
        return "jsonl"
    if "id" in value and value.keys() & {"input", "output"}:
        return "langfuse"
    return None


def _is_our_step(step: Any) -> bool:
    return isinstance(step, dict) and step.get("type") in _STEP_TYPES and step.keys() <= _STEP_KEYS


def format_of(records: list[Record]) -> FormatName | None:
    """The format of the first recognizable record among the first few."""
    for record in records[:_SAMPLE]:
        found = classify(record.value)
        if found is not None:
            return found
    return None


def detect_format(data: bytes | str) -> str:
    """ "jsonl", "otlp", "mlflow" or "langfuse"; "unknown" when the file is empty or in none of them."""
    return format_of(read_records(data).records) or "unknown"
