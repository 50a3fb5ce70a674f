"""Telemetry set up once for every service: structured logs, trace context, counters.

Trace context travels in NATS headers and gRPC metadata (W3C traceparent) so one run
is one distributed trace. Exporters are configured by the standard OTEL_* variables.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

from opentelemetry import propagate, trace
from prometheus_client import Counter

tracer = trace.get_tracer("agenteval")

REJECTED = Counter("agenteval_bus_rejected_messages_total", "Bus messages rejected as invalid", ["handler"])


def count_rejected(handler: str) -> None:
    REJECTED.labels(handler=handler).inc()


def inject_context(carrier: dict[str, str]) -> None:
    """Add the current trace context (traceparent) to outgoing headers."""
    propagate.inject(carrier)


def extract_context(carrier: dict[str, Any] | None):
    """The trace context carried by incoming headers."""
    return propagate.extract(carrier or {})


class JsonFormatter(logging.Formatter):
    """One JSON object per line, with the trace id when a span is active."""

    _skip = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        span = trace.get_current_span().get_span_context()
        if span.is_valid:
            doc["trace_id"] = format(span.trace_id, "032x")
            doc["span_id"] = format(span.span_id, "016x")
        for key, value in record.__dict__.items():
            if key not in self._skip:
                doc[key] = value
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        return json.dumps(doc, default=str)


def setup_logging(level: str = "INFO", json_logs: bool = True) -> None:
    """Configure the root logger once: JSON lines to stderr."""
    root = logging.getLogger()
    if getattr(root, "_agenteval_configured", False):
        root.setLevel(level.upper())
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonFormatter() if json_logs else logging.Formatter("%(levelname)s %(name)s: %(message)s")
    )
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root._agenteval_configured = True  # type: ignore[attr-defined]
