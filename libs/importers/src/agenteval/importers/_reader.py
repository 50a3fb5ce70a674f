"""Turn the bytes of an uploaded file into JSON records, each with where it came from.

A file is either one JSON document (an object, an array of records, or ``{"data": [...]}``)
or JSON Lines. Lines that cannot be decoded or parsed become problems; the others are kept.
"""

from __future__ import annotations

import gzip
import json
import zlib
from dataclasses import dataclass, field
from typing import Any, Literal

from agenteval.importers._model import ImportProblem

Unit = Literal["line", "record"]

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_GZIP_MAGIC = b"\x1f\x8b"
# Keys under which exports wrap their list of traces (Langfuse API pages use "data").
_LIST_KEYS = ("data", "traces")


@dataclass
class Record:
    """One JSON value of the file and where it is, for problem reports."""

    index: int
    unit: Unit
    value: Any

    def problem(self, reason: str) -> ImportProblem:
        return ImportProblem(self.index, reason, self.unit)


@dataclass
class ReadFile:
    """The records of a file and the problems met reading it."""

    records: list[Record] = field(default_factory=list)
    problems: list[ImportProblem] = field(default_factory=list)
    empty: bool = False
    fatal: bool = False
    """Nothing in the file could be read (the problems say why)."""


def read_records(data: bytes | str) -> ReadFile:
    """Decode and parse ``data``; never raises on bad content."""
    if isinstance(data, bytes):
        return _read_bytes(data)
    return _read_text(data)


def _read_bytes(data: bytes) -> ReadFile:
    if data.startswith(_GZIP_MAGIC):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            return _fatal(f"the file looks gzip-compressed but cannot be decompressed ({exc})")
    if data.startswith(_UTF16_BOMS):
        try:
            return _read_text(data.decode("utf-16"))
        except UnicodeDecodeError as exc:
            return _fatal(f"the file starts like UTF-16 text but is not valid UTF-16 ({exc.reason})")
    data = data.removeprefix(_UTF8_BOM)
    try:
        return _read_text(data.decode("utf-8"))
    except UnicodeDecodeError:
        return _read_undecodable(data)


def _read_text(text: str) -> ReadFile:
    text = text.removeprefix("\ufeff")
    stripped = text.strip()
    if not stripped:
        return ReadFile(empty=True)
    whole_error: json.JSONDecodeError | None = None
    if stripped[0] in "[{":
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            whole_error = exc
        except RecursionError:
            return _fatal("the file's JSON is nested too deeply to read")
        else:
            unit: Unit = "line" if "\n" not in stripped else "record"
            return ReadFile(records=_expand_document(value, unit))
    # Split on "\n" only: str.splitlines would also split on U+2028 etc. inside JSON strings.
    read = _parse_lines([(n, line) for n, line in enumerate(text.split("\n"), start=1)])
    if whole_error is not None and _looks_like_one_document(text, read):
        # A pretty-printed JSON document with a syntax error: its lines are not records.
        err = whole_error
        return _fatal(
            f"the file is not valid JSON: {err.msg} (line {err.lineno}, column {err.colno})", err.lineno
        )
    return read


def _read_undecodable(data: bytes) -> ReadFile:
    """Bytes that are not UTF-8 as a whole: decode line by line, report the bad lines."""
    lines: list[tuple[int, str]] = []
    bad: list[tuple[int, str]] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            lines.append((number, raw.decode("utf-8")))
        except UnicodeDecodeError as exc:
            bad.append((number, f"byte 0x{raw[exc.start]:02x} at column {exc.start + 1}"))
    read = _parse_lines(lines)
    first_line = next((text for _, text in lines if text.strip()), "")
    if not read.records or first_line.strip() in ("[", "{"):
        number, where = bad[0]
        return _fatal(
            f"the file is not UTF-8 text (line {number}: {where}); export it as UTF-8 JSON or JSON Lines",
            number,
        )
    problems = [ImportProblem(n, f"not UTF-8 text ({where}); export the file as UTF-8") for n, where in bad]
    read.problems = sorted(problems + read.problems, key=lambda p: p.line)
    return read


def _parse_lines(lines: list[tuple[int, str]]) -> ReadFile:
    read = ReadFile()
    for number, line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            read.problems.append(ImportProblem(number, f"not valid JSON ({exc.msg} at column {exc.colno})"))
            continue
        except RecursionError:
            read.problems.append(ImportProblem(number, "JSON nested too deeply to read"))
            continue
        if isinstance(value, list):
            read.records.extend(Record(number, "line", item) for item in value)
        else:
            read.records.append(Record(number, "line", value))
    return read


def _expand_document(value: Any, unit: Unit) -> list[Record]:
    if isinstance(value, list):
        return [Record(i, "record", item) for i, item in enumerate(value, start=1)]
    if isinstance(value, dict):
        for key in _LIST_KEYS:
            items = value.get(key)
            if isinstance(items, list) and "info" not in value:
                return [Record(i, "record", item) for i, item in enumerate(items, start=1)]
    return [Record(1, unit, value)]


def _looks_like_one_document(text: str, read: ReadFile) -> bool:
    if not read.records:
        return True
    first_line = next(line for line in text.split("\n") if line.strip())
    return first_line.strip() in ("[", "{")


def _fatal(reason: str, line: int = 0) -> ReadFile:
    return ReadFile(problems=[ImportProblem(line, reason, "line" if line else "file")], fatal=True)
