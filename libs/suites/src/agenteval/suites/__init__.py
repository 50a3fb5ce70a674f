"""Suites from YAML files or Python, validated before any trial runs.

Errors name the file, the case and the field: ``suite.yaml: cases[3] (id 'refund'):
graders[1]: unknown grader 'tool_caled'; known graders: ...``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agenteval.contracts.suite import (
    Case,
    GraderSpec,
    Suite,
    is_function_mock,
    mock_answers,
    parse_function_spec,
)
from agenteval.suites._canonical import canonical_json, case_digest, suite_data, suite_digest
from agenteval.suites._diff import CaseChange, FieldChange, SuiteDiff, diff_suites
from agenteval.suites._errors import SuiteError
from agenteval.suites._refs import (
    SuiteRef,
    check_stored_name,
    check_version,
    looks_like_ref,
    parse_ref,
)
from agenteval.suites._tabular import FIELDS as CASE_FIELDS
from agenteval.suites._tabular import Expect, cases_format, load_cases, suite_from_cases
from agenteval.suites._text import dump_suite_yaml, dump_yaml, load_yaml_text, loads_suite

__all__ = [
    "CASE_FIELDS",
    "Case",
    "CaseChange",
    "Expect",
    "FieldChange",
    "GraderSpec",
    "Suite",
    "SuiteDiff",
    "SuiteError",
    "SuiteRef",
    "canonical_json",
    "case_digest",
    "cases_format",
    "check_stored_name",
    "check_version",
    "diff_suites",
    "dump_suite_yaml",
    "dump_yaml",
    "filter_cases",
    "load_cases",
    "load_suite",
    "load_yaml_text",
    "loads_suite",
    "looks_like_ref",
    "parse_ref",
    "parse_suite",
    "suite_data",
    "suite_digest",
    "suite_from_cases",
    "validate_suite",
]


def _where(data: Any, loc: tuple[Any, ...]) -> str:
    """Render a pydantic error location, naming the case by id when there is one."""
    parts: list[str] = []
    i = 0
    while i < len(loc):
        key = loc[i]
        if key == "cases" and i + 1 < len(loc) and isinstance(loc[i + 1], int):
            idx = loc[i + 1]
            case_id = None
            if isinstance(data, dict) and isinstance(data.get("cases"), list) and idx < len(data["cases"]):
                case = data["cases"][idx]
                if isinstance(case, dict):
                    case_id = case.get("id")
            parts.append(f"cases[{idx}]" + (f" (id {case_id!r})" if case_id else ""))
            i += 2
            continue
        if isinstance(key, int):
            parts[-1:] = [f"{parts[-1]}[{key}]"] if parts else [f"[{key}]"]
        else:
            parts.append(str(key))
        i += 1
    return ".".join(parts) or "suite"


def parse_suite(data: Any, source: str = "<suite>") -> Suite:
    """Validate a suite given as plain data (from YAML/JSON) and check its graders."""
    if not isinstance(data, dict):
        raise SuiteError(
            f"{source}: a suite must be a mapping with 'name' and 'cases', got {type(data).__name__}"
        )
    try:
        suite = Suite.model_validate(data)
    except ValidationError as exc:
        lines = []
        for err in exc.errors()[:10]:
            msg = err["msg"].removeprefix("Value error, ")
            lines.append(f"{source}: {_where(data, tuple(err['loc']))}: {msg}")
        more = len(exc.errors()) - 10
        if more > 0:
            lines.append(f"... and {more} more problems")
        raise SuiteError("\n".join(lines)) from None
    validate_suite(suite, source)
    return suite


def validate_suite(suite: Suite, source: str = "<suite>") -> None:
    """Check every grader name and its parameters, naming the case and field on failure."""
    from agenteval import grading  # registers the built-in graders

    problems: list[str] = []
    specs = [(f"{source}: graders[{gi}]", spec) for gi, spec in enumerate(suite.graders)]
    for ci, case in enumerate(suite.cases):
        where = f"{source}: cases[{ci}] (id {case.id!r})"
        specs += [(f"{where}: graders[{gi}]", spec) for gi, spec in enumerate(case.graders)]
    for where, spec in specs:
        try:
            grading.validate_spec(spec)
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
            continue
        problems += _import_problems(spec, suite.allowed_imports, where)
    for ci, case in enumerate(suite.cases):
        problems += _mock_problems(case, f"{source}: cases[{ci}] (id {case.id!r})")
    if problems:
        raise SuiteError("\n".join(problems))


def _mock_problems(case: Case, where: str) -> list[str]:
    """Malformed ``{"python": "module:function"}`` tool mocks (nothing is imported here: the
    runner decides which modules it may load, and loads them in its agent workers)."""
    problems = []
    for tool, mock in case.tool_mocks.items():
        for at, answer in mock_answers(mock):
            if not is_function_mock(answer):
                continue
            try:
                parse_function_spec(answer["python"])
            except ValueError as exc:
                problems.append(f"{where}: tool_mocks.{tool}{at}: {exc}")
    return problems


def _import_problems(spec: GraderSpec, suite_allowed: list[str], where: str) -> list[str]:
    """Imports of an inline eval function that neither the suite nor the grader allows.

    Only known once the suite is: the grader's own parameter check leaves them out.
    """
    code = spec.params.get("code")
    if spec.name != "eval_function" or not isinstance(code, str):
        return []
    from agenteval.sandbox import check_code

    allowed = [*suite_allowed, *spec.params.get("allowed_imports", [])]
    try:
        found = check_code(code, allowed, spec.params.get("function"))
    except ValueError:
        return []  # a malformed allowed_imports entry is reported by the parameter check
    return [
        f"{where}: in the eval function's code at {p.message}; allow it with the suite's allowed_imports"
        for p in found
        if p.rule == "import_not_allowed"
    ]


def load_suite(path: str | Path) -> Suite:
    """Read and validate a YAML (or JSON) suite file."""
    p = Path(path)
    if not p.exists():
        raise SuiteError(f"{p}: no such suite file")
    if p.is_dir():
        raise SuiteError(f"{p}: a directory, not a suite file")
    try:
        data = load_yaml_text(p.read_text(encoding="utf-8"), str(p))
    except UnicodeDecodeError:
        raise SuiteError(f"{p}: not UTF-8 text") from None
    except OSError as exc:
        raise SuiteError(f"{p}: cannot read: {exc.strerror}") from None
    if isinstance(data, dict):
        _inline_eval_files(data, p.parent, str(p))
    return parse_suite(data, str(p))


def _inline_eval_files(data: dict[str, Any], base: Path, source: str) -> None:
    """Replace ``eval_function: {path: ...}`` by the file's code, so a submitted suite stands alone."""

    def fix(specs: Any, where: str) -> None:
        if not isinstance(specs, list):
            return
        for gi, spec in enumerate(specs):
            if not (isinstance(spec, dict) and len(spec) == 1 and "eval_function" in spec):
                continue
            params = spec["eval_function"]
            if not isinstance(params, dict) or "path" not in params:
                continue
            path = (base / str(params["path"])).resolve()
            try:
                code = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise SuiteError(
                    f"{source}: {where}graders[{gi}]: cannot read eval function file {path}: {exc}"
                ) from None
            spec["eval_function"] = {**{k: v for k, v in params.items() if k != "path"}, "code": code}

    fix(data.get("graders"), "")
    for ci, case in enumerate(data.get("cases") or []):
        if isinstance(case, dict):
            fix(case.get("graders"), f"cases[{ci}] (id {case.get('id')!r}): ")


def filter_cases(suite: Suite, tags: Iterable[str]) -> Suite:
    """The suite with only the cases carrying one of ``tags`` (all when empty)."""
    wanted = set(tags)
    if not wanted:
        return suite
    cases = [c for c in suite.cases if wanted & set(c.tags)]
    if not cases:
        raise SuiteError(f"no case of suite {suite.name!r} has any of the tags {sorted(wanted)}")
    return suite.model_copy(update={"cases": cases})
