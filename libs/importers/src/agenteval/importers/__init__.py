"""Trace importers: labeled production traces from other tools, normalized to our Trace schema.

Formats: ``jsonl`` (agenteval's own), ``otlp`` (OpenTelemetry GenAI spans), ``mlflow`` (MLflow
trace JSON), ``langfuse`` (Langfuse traces, or any "trace with steps") and ``generic`` (the
requirement notes' shape: llm / tool / user steps, bare, wrapped or as a stored row).
``import_traces`` detects the format, imports every readable record, and reports the others by line.
"""

from agenteval.importers._detect import detect_format
from agenteval.importers._importer import ImportFormat, import_traces
from agenteval.importers._labels import LABEL_HELP, LabelError, normalize_label
from agenteval.importers._model import (
    FORMATS,
    ImportedTrace,
    ImportProblem,
    ImportResult,
    UnknownTraceFormat,
)

__all__ = [
    "FORMATS",
    "LABEL_HELP",
    "ImportFormat",
    "ImportProblem",
    "ImportResult",
    "ImportedTrace",
    "LabelError",
    "UnknownTraceFormat",
    "detect_format",
    "import_traces",
    "normalize_label",
]
