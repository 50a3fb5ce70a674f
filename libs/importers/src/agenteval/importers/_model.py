"""What an import returns: the traces read, the problems met, and the unknown-format error.

``ImportProblem`` and ``Label`` are the contracts' own (an import's problems reach clients as they are).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from agenteval.contracts.errors import InvalidArgument
from agenteval.contracts.records import ImportProblem, Label
from agenteval.contracts.trace import Trace

FormatName = Literal["jsonl", "otlp", "mlflow", "langfuse", "generic", "inspect"]
FORMATS: tuple[FormatName, ...] = ("jsonl", "otlp", "mlflow", "langfuse", "generic", "inspect")

FORMAT_HELP = {
    "jsonl": 'agenteval JSON Lines: {"trace": {...}, "label": "positive"} per line',
    "otlp": 'OpenTelemetry OTLP JSON with GenAI spans: {"resourceSpans": [...]}, whole file or one per line',
    "mlflow": 'MLflow trace JSON: {"info": {...}, "data": {"spans": [...]}}, one per line or a JSON array',
    "langfuse": 'Langfuse traces: {"id", "input", "output", "observations": [...], "scores": [...]}',
    "generic": 'generic traces: {"id", "agent_id", "input": {"messages": [...]}, "steps": [{"type": "llm"|"tool"|'
    '"user", ...}], "output", "rating"}, bare, wrapped as {"trace": ...}, or a stored row with "steps" and '
    '"raw_data" as JSON strings',
    "inspect": "Inspect AI eval logs: an .eval archive or a .json log; one trace per sample and epoch, "
    "labeled by its first score (C/I, a number, a boolean)",
}


@dataclass
class ImportedTrace:
    """One trace read from a file, normalized, with the human label it carried."""

    trace_id: str
    """The source's id, else a content hash: importing the same trace twice gives one id."""
    trace: Trace
    label: Label | None
    comment: str | None
    rater: str | None
    source_format: str
    agent: str | None = None
    """The agent (or source) the trace came from, when the record names one."""


@dataclass
class ImportResult:
    """Everything an import produced."""

    traces: list[ImportedTrace] = field(default_factory=list)
    problems: list[ImportProblem] = field(default_factory=list)
    format: str = "unknown"


class UnknownTraceFormat(InvalidArgument):
    """The file is in none of the accepted formats (or an unknown format name was asked for)."""

    def __init__(self, detail: str) -> None:
        accepted = "; ".join(f"{name} ({help_})" for name, help_ in FORMAT_HELP.items())
        super().__init__(f"{detail}. Accepted formats: {accepted}")
        self.detail = detail
        self.accepted = FORMATS
