"""Which format a file is in, judged from the shape of its first recognizable records."""

from __future__ import annotations

from typing import Any

from agenteval.contracts.trace import Step, Trace
from agenteval.importers._generic import looks_generic
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
    if not _langfuse_hinted(value) and looks_generic(value):
        return "generic"
    if isinstance(value.get("trace"), dict):
        return "jsonl"
    if _langfuse_hinted(value):
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


def _langfuse_hinted(value: dict[str, Any]) -> bool:
    return bool(_LANGFUSE_HINTS & value.keys())


def _is_our_step(step: Any) -> bool:
    if not isinstance(step, dict) or not isinstance(step.get("type"), str):
        return False
    return step["type"] in _STEP_TYPES and step.keys() <= _STEP_KEYS


def format_of(records: list[Record]) -> FormatName | None:
    """The format of the first recognizable record among the first few.

    Except: when some of them are in the generic shape and the others are records the generic
    importer reads as well (bare traces, "trace with steps" without Langfuse's own keys), the
    file is generic, so a first record without tool steps does not decide for the rest.
    """
    found = [(f, r.value) for r in records[:_SAMPLE] if (f := classify(r.value)) is not None]
    if not found:
        return None
    if any(f == "generic" for f, _ in found) and all(
        f in ("generic", "jsonl") or (f == "langfuse" and not _langfuse_hinted(v)) for f, v in found
    ):
        return "generic"
    return found[0][0]


def detect_format(data: bytes | str) -> str:
    """ "jsonl", "otlp", "mlflow", "langfuse", "generic" or "inspect"; "unknown" when the file is
    empty or in none of them."""
    from agenteval.importers._inspect import looks_like_inspect

    if looks_like_inspect(data.encode() if isinstance(data, str) else data):
        return "inspect"
    return format_of(read_records(data).records) or "unknown"
