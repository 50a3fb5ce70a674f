"""agenteval's own JSON Lines: ``{"trace": {...}, "label": ..., "id": ..., "comment", "rater",
"agent_id"}`` per line, or a bare trace with the label fields beside its own."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from agenteval.contracts.trace import Trace
from agenteval.importers._assemble import (
    RecordError,
    agent_of,
    imported,
    usage_of,
    validation_reason,
)
from agenteval.importers._labels import normalize_label
from agenteval.importers._model import ImportedTrace
from agenteval.importers._reader import Record

FORMAT = "jsonl"
RECORD_KEYS = {"label", "rating", "id", "trace_id", "comment", "rater", "agent_id", "agent"}


def parse_record(record: Record) -> ImportedTrace:
    doc = record.value
    if not isinstance(doc, dict):
        raise RecordError(f"expected a JSON object, got {_kind(doc)}")
    if "trace" in doc:
        data = doc["trace"]
        if not isinstance(data, dict):
            raise RecordError(f"'trace' must be a JSON object, got {_kind(data)}")
        prefix = "trace."
    else:
        data = {k: v for k, v in doc.items() if k not in RECORD_KEYS}
        prefix = ""
    if isinstance(data.get("input"), str):  # a bare prompt is one user message
        data = {**data, "input": [{"role": "user", "content": data["input"]}]}
    try:
        trace = Trace.model_validate(data)
    except ValidationError as exc:
        raise RecordError(validation_reason(exc, prefix)) from None
    if trace.usage.input_tokens == 0 and trace.usage.output_tokens == 0:
        trace.usage = usage_of(trace.steps)
    source_id = doc.get("id", doc.get("trace_id"))
    if isinstance(source_id, bool) or (source_id is not None and not isinstance(source_id, (str, int))):
        raise RecordError(f"'id' must be a string, got {_kind(source_id)}")
    label_value = doc["label"] if doc.get("label") is not None else doc.get("rating")
    return imported(
        trace,
        source_id=source_id,
        label=normalize_label(label_value),
        comment=doc.get("comment"),
        rater=doc.get("rater"),
        source_format=FORMAT,
        agent=agent_of(*({k: d.get(k) for k in ("agent_id", "agent")} for d in (doc, trace.metadata))),
    )


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")
