"""Cases from a JSONL or CSV file of inputs and expectations.

One case per JSON line or CSV row. Fields (JSON keys or CSV columns):

==================  ================================================================
``input``           required: the user's message (JSONL may give a list of messages)
``id``              the case id (default ``case-<row number>``: give ids to keep diffs readable)
``expected_output`` the reference answer; graded as the ``expect`` argument says
``tags``            a list (JSONL) or words separated by ``,`` ``;`` or spaces
``expected_tools``  like tags
``description``     text
``trials``          an integer
``timeout_s``       a number of seconds
``graders``         a list of graders as in a suite file (CSV: JSON text)
``initial_state``   an object (CSV: JSON text); so are ``tool_mocks`` and ``metadata``
``metadata.KEY``    one metadata entry as text (CSV columns or JSON keys)
==================  ================================================================

Empty CSV cells are absent fields. Every problem is reported with its line, and nothing is
returned unless every row is good.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from agenteval.contracts.suite import Case, GraderSpec, Suite
from agenteval.suites._errors import SuiteError

Expect = Literal["contains", "equals", "none"]
"""How ``expected_output`` is graded: ``output_contains`` (case-insensitive), ``output_equals``
(exact, after trimming spaces), or not at all (kept for judges and people)."""

FIELDS = (
    "id",
    "input",
    "expected_output",
    "tags",
    "expected_tools",
    "description",
    "trials",
    "timeout_s",
    "graders",
    "initial_state",
    "tool_mocks",
    "metadata",
)
TABULAR_SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}
MAX_ERRORS = 20
_WORDS = re.compile(r"[,;\s]+")
_JSON_FIELDS = ("graders", "initial_state", "tool_mocks", "metadata")


def cases_format(path: str | Path) -> str | None:
    """``jsonl`` or ``csv`` by the file's suffix, None for anything else (a suite file)."""
    return TABULAR_SUFFIXES.get(Path(path).suffix.lower())


class _RowError(Exception):
    pass


def _words(value: Any, field: str) -> list[str]:
    if isinstance(value, str):
        return [w for w in _WORDS.split(value) if w]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise _RowError(f"{field}: give a list of strings or words separated by ',' ';' or spaces")


def _expectation(expected: str, expect: Expect) -> list[GraderSpec]:
    if expect == "contains":
        return [GraderSpec(name="output_contains", params={"text": expected})]
    if expect == "equals":
        return [GraderSpec(name="output_equals")]  # compares with the case's expected_output
    return []


def _case(raw: dict[str, Any], row: int, expect: Expect, from_csv: bool) -> Case:
    """One row's case; a _RowError names the field that is wrong."""
    data: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    for key, value in raw.items():
        if key is None:
            raise _RowError("more cells than the header has columns")
        key = key.strip()
        if from_csv and (value is None or value == ""):
            continue
        if key.startswith("metadata."):
            metadata[key.removeprefix("metadata.")] = value
            continue
        if key not in FIELDS:
            raise _RowError(
                f"unknown field {key!r}; fields: {', '.join(FIELDS)} (or metadata.KEY for your own)"
            )
        if from_csv and key in _JSON_FIELDS:
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise _RowError(f"{key}: not valid JSON: {exc.msg} (column {exc.colno})") from None
        if key in ("tags", "expected_tools"):
            value = _words(value, key)
        data[key] = value
    if "input" not in data:
        raise _RowError("input: missing (every row needs an input)")
    if metadata:
        if not isinstance(data.get("metadata", {}), dict):
            raise _RowError("metadata: give an object")
        data["metadata"] = {**data.get("metadata", {}), **metadata}
    data.setdefault("id", f"case-{row}")
    expected = data.get("expected_output")
    if expected is not None and not (isinstance(expected, str) and expected.strip()):
        raise _RowError("expected_output: give non-empty text")
    try:
        case = Case.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "row"
        more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
        raise _RowError(f"{where}: {first['msg'].removeprefix('Value error, ')}{more}") from None
    from agenteval import grading

    for gi, spec in enumerate(case.graders):
        try:
            grading.validate_spec(spec)
        except ValueError as exc:
            raise _RowError(f"graders[{gi}]: {exc}") from None
    if expected is not None:
        case = case.model_copy(update={"graders": [*case.graders, *_expectation(expected, expect)]})
    return case


def _jsonl_rows(text: str) -> Iterator[tuple[int, dict[str, Any] | _RowError]]:
    for line_no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            yield line_no, _RowError(f"not valid JSON: {exc.msg} (column {exc.colno})")
            continue
        if not isinstance(value, dict):
            yield line_no, _RowError(f"give one JSON object per line, got {type(value).__name__}")
            continue
        yield line_no, value


def _csv_rows(text: str) -> Iterator[tuple[int, dict[str, Any] | _RowError]]:
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    try:
        header = reader.fieldnames
    except csv.Error as exc:
        yield 1, _RowError(f"not valid CSV: {exc}")
        return
    if not header:
        return
    blank = [i + 1 for i, name in enumerate(header) if not (name or "").strip()]
    if blank:
        yield 1, _RowError(f"the header has no name for column {blank[0]}")
        return
    seen: set[str] = set()
    for name in header:
        if name.strip() in seen:
            yield 1, _RowError(f"the header names column {name.strip()!r} twice")
            return
        seen.add(name.strip())
    start = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield start, _RowError(f"not valid CSV: {exc}")
            return
        if any(v not in (None, "") for v in row.values()) or None in row:
            yield start, dict(row)
        start = reader.line_num + 1


def load_cases(path: str | Path, expect: Expect = "contains") -> list[Case]:
    """The cases of a JSONL or CSV file, each row checked; SuiteError lists every bad row by line."""
    p = Path(path)
    kind = cases_format(p)
    if kind is None:
        raise SuiteError(f"{p}: not a .jsonl or .csv file of cases")
    try:
        text = p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise SuiteError(f"{p}: no such file") from None
    except UnicodeDecodeError as exc:
        raise SuiteError(f"{p}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise SuiteError(f"{p}: cannot read: {exc.strerror}") from None
    if "\x00" in text:
        raise SuiteError(f"{p}:{text[: text.index(chr(0))].count(chr(10)) + 1}: contains a NUL byte")
    rows = _jsonl_rows(text) if kind == "jsonl" else _csv_rows(text)
    cases: list[Case] = []
    first_line: dict[str, int] = {}
    problems: list[str] = []
    for row_no, (line, raw) in enumerate(rows, 1):
        try:
            if isinstance(raw, _RowError):
                raise raw
            case = _case(raw, row_no, expect, from_csv=kind == "csv")
            if case.id in first_line:
                raise _RowError(f"id: duplicate case id {case.id!r} (first on line {first_line[case.id]})")
        except _RowError as exc:
            problems.append(f"{p}:{line}: {exc}")
            continue
        first_line[case.id] = line
        cases.append(case)
    if problems:
        more = len(problems) - MAX_ERRORS
        shown = problems[:MAX_ERRORS] + ([f"... and {more} more bad rows"] if more > 0 else [])
        raise SuiteError("\n".join(shown) + "\nnothing was stored")
    if not cases:
        raise SuiteError(f"{p}: no cases in the file")
    return cases


def suite_from_cases(
    path: str | Path,
    name: str,
    expect: Expect = "contains",
    agent: str | None = None,
    trials: int | None = None,
) -> Suite:
    """A suite named ``name`` of the cases in a JSONL or CSV file."""
    cases = load_cases(path, expect)
    data: dict[str, Any] = {"name": name, "cases": cases}
    if agent:
        data["agent"] = agent
    if trials:
        data["trials"] = trials
    try:
        return Suite.model_validate(data)
    except ValidationError as exc:
        raise SuiteError(f"{path}: {exc.errors()[0]['msg']}") from None
