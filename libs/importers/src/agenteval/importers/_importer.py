"""``import_traces``: read a file, pick its format, normalize every record, report the rest."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from agenteval.importers import _generic, _inspect, _jsonl, _langfuse, _mlflow, _otlp
from agenteval.importers._detect import format_of
from agenteval.importers._model import (
    FORMATS,
    ImportedTrace,
    ImportProblem,
    ImportResult,
    UnknownTraceFormat,
)
from agenteval.importers._reader import Record, read_records

ImportFormat = Literal["auto", "jsonl", "otlp", "mlflow", "langfuse", "generic", "inspect"]
Parsed = tuple[list[tuple[Record, ImportedTrace]], list[ImportProblem]]


def import_traces(data: bytes | str, format: ImportFormat = "auto") -> ImportResult:
    """Normalize a file of traces to :class:`~agenteval.contracts.trace.Trace` records.

    Unreadable records become :class:`ImportProblem` entries and the rest is still imported.
    Raises :class:`UnknownTraceFormat` for an unknown ``format`` name, or when ``format="auto"``
    and the file is in none of the accepted formats.
    """
    if format != "auto" and format not in FORMATS:
        raise UnknownTraceFormat(f"unknown format {format!r}")
    raw = data.encode() if isinstance(data, str) else data
    if format == "inspect" or (format == "auto" and _inspect.looks_like_inspect(raw)):
        found, problems = _inspect.parse(raw)
        last = {t.trace_id: n for n, t in enumerate(found)}  # one trace per id, the later wins
        return ImportResult(
            traces=[t for n, t in enumerate(found) if last[t.trace_id] == n],
            problems=problems,
            format="inspect",
        )
    read = read_records(data)
    named = "unknown" if format == "auto" else format
    if read.empty:
        return ImportResult(
            problems=[ImportProblem(0, "the file is empty; nothing to import", "file")], format=named
        )
    if read.fatal:
        return ImportResult(problems=read.problems, format=named)
    if not read.records and not read.problems:  # "[]" or {"data": []}
        return ImportResult(
            problems=[ImportProblem(0, "the file holds no traces; nothing to import", "file")], format=named
        )
    chosen = format if format != "auto" else format_of(read.records)
    if chosen is None:
        if not read.records:
            first = f" ({read.problems[0]})" if read.problems else ""
            raise UnknownTraceFormat(f"the file is neither JSON nor JSON Lines{first}")
        raise UnknownTraceFormat("no record in the file looks like a trace of a known format")
    traces, problems = _PARSERS[chosen](read.records)
    traces, duplicates = _dedupe(traces)
    all_problems = sorted(read.problems + problems + duplicates, key=lambda p: (p.unit == "file", p.line))
    return ImportResult(traces=[t for _, t in traces], problems=all_problems, format=chosen)


def _each_record(parse_record: Callable[[Record], ImportedTrace]) -> Callable[[list[Record]], Parsed]:
    """A parser for formats where every record is one trace: a bad record is a problem, not a stop."""

    def parse(records: list[Record]) -> Parsed:
        traces: list[tuple[Record, ImportedTrace]] = []
        problems: list[ImportProblem] = []
        for record in records:
            try:
                traces.append((record, parse_record(record)))
            except ValueError as exc:  # RecordError, LabelError, pydantic errors
                problems.append(record.problem(str(exc)))
            except Exception as exc:  # a shape no rule foresaw must not sink the whole file
                problems.append(record.problem(f"cannot read this record ({type(exc).__name__}: {exc})"))
        return traces, problems

    return parse


_PARSERS: dict[str, Callable[[list[Record]], Parsed]] = {
    "jsonl": _each_record(_jsonl.parse_record),
    "mlflow": _each_record(_mlflow.parse_record),
    "langfuse": _each_record(_langfuse.parse_record),
    "generic": _each_record(_generic.parse_record),
    "otlp": _otlp.parse,
}


def _dedupe(
    traces: list[tuple[Record, ImportedTrace]],
) -> tuple[list[tuple[Record, ImportedTrace]], list[ImportProblem]]:
    """The same trace twice in one file is imported once: the later record wins (its label is newer)."""
    last: dict[str, int] = {t.trace_id: i for i, (_, t) in enumerate(traces)}
    kept: list[tuple[Record, ImportedTrace]] = []
    problems: list[ImportProblem] = []
    for i, (record, trace) in enumerate(traces):
        if last[trace.trace_id] == i:
            kept.append((record, trace))
            continue
        later = traces[last[trace.trace_id]][0]
        problems.append(
            record.problem(
                f"same trace as {later.unit} {later.index} (id {trace.trace_id}); the later one is imported"
            )
        )
    return kept, problems
