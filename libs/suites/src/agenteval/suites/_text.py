"""Suites as text: YAML in the shape of a suite file, both ways.

``dump_suite_yaml`` writes the short forms people write (``- tool_called: {tool: x}``, a
string input), so an exported suite reads like the file it came from and loads back to the
same content. ``loads_suite`` reads untrusted text (a pushed suite, a stored one): bad YAML,
NUL bytes, alias bombs and deep nesting are errors naming where, never a crash.
"""

from __future__ import annotations

import json
import math
from typing import Any

import yaml

from agenteval.contracts.suite import Suite
from agenteval.suites._canonical import case_data, suite_data
from agenteval.suites._errors import SuiteError

MAX_NODES = 1_000_000
"""Values a suite may hold once YAML aliases are expanded (a few aliases can expand to billions)."""
MAX_DEPTH = 64
"""How deeply values may nest (deeper would only exhaust the stack of whoever reads them)."""

_SUITE_ORDER = ("name", "description", "agent", "trials", "timeout_s", "allowed_imports", "graders", "cases")
_CASE_ORDER = (
    "id",
    "description",
    "tags",
    "input",
    "initial_state",
    "tool_mocks",
    "expected_tools",
    "expected_output",
    "graders",
    "trials",
    "timeout_s",
    "metadata",
)


# libyaml (when PyYAML has it) reads and writes suites several times faster than pure Python:
# a 10,000-case suite is ~1 MB of YAML.
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SafeDumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_SafeDumper):
    """Block YAML, short lists and mappings on one line, multi-line text as ``|`` blocks."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


def _flat(items: list[Any]) -> bool:
    """Short and made of one-line scalars: written on one line (``[fast, slow]``, ``{tool: x}``)."""
    scalars = all(
        isinstance(v, (int, float, bool)) or v is None or (isinstance(v, str) and "\n" not in v)
        for v in items
    )
    return scalars and len(items) <= 6 and sum(len(str(v)) + 2 for v in items) <= 60


def _list(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=bool(value) and _flat(value))


def _dict(dumper: yaml.SafeDumper, value: dict[Any, Any]) -> yaml.MappingNode:
    flat = bool(value) and _flat([*value.keys(), *value.values()])
    node = dumper.represent_mapping("tag:yaml.org,2002:map", value.items(), flow_style=flat)
    return node


_Dumper.add_representer(str, _str)
_Dumper.add_representer(list, _list)
_Dumper.add_representer(dict, _dict)


def _ordered(data: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    out = {k: data[k] for k in order if k in data}
    out.update({k: v for k, v in data.items() if k not in out})
    return out


def _short_graders(specs: list[dict[str, Any]]) -> list[Any]:
    return [{s["name"]: s["params"]} if s.get("params") else s["name"] for s in specs]


def _short_input(messages: list[dict[str, Any]]) -> Any:
    if (
        len(messages) == 1
        and set(messages[0]) <= {"content", "role"}
        and messages[0].get("role", "user") == "user"
    ):
        return messages[0].get("content", "")
    return messages


def suite_file_data(suite: Suite) -> dict[str, Any]:
    """The suite as the data of a suite file: short forms, keys in the usual order."""
    data = suite_data(suite)
    if "graders" in data:
        data["graders"] = _short_graders(data["graders"])
    cases = []
    for case in suite.cases:
        c = case_data(case)
        c["input"] = _short_input(c["input"])
        if "graders" in c:
            c["graders"] = _short_graders(c["graders"])
        cases.append(_ordered(c, _CASE_ORDER))
    data["cases"] = cases
    return _ordered(data, _SUITE_ORDER)


def dump_yaml(data: Any) -> str:
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return text.removesuffix("...\n")  # the end-of-document mark PyYAML puts after a lone scalar


def dump_suite_yaml(suite: Suite) -> str:
    """The suite as a YAML suite file that loads back to the same content (same digest)."""
    return dump_yaml(suite_file_data(suite))


def _check_size(data: Any, source: str) -> None:
    """Refuse data holding more than MAX_NODES values with aliases expanded, or nested deeper
    than MAX_DEPTH; the walk stops at the first excess."""
    seen = 0
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        item, depth = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            raise SuiteError(f"{source}: holds more than {MAX_NODES:,} values once its aliases are expanded")
        if depth > MAX_DEPTH:
            raise SuiteError(f"{source}: nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, float) and not math.isfinite(item):
            raise SuiteError(f"{source}: holds {item!r}: numbers must be finite")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
            seen += len(item)  # the keys
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def load_yaml_text(text: str, source: str) -> Any:
    """Parse untrusted YAML (JSON is YAML too); errors say where."""
    nul = text.find("\x00")
    if nul >= 0:
        raise SuiteError(f"{source}: contains a NUL byte at offset {nul}")
    if text.lstrip().startswith("{"):  # JSON (which is YAML too) reads faster as JSON
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            pass  # YAML's flow style starts with "{" too: let the YAML reader say what is wrong
        else:
            _check_size(data, source)
            return data
    try:
        data = yaml.load(text, Loader=_SafeLoader)
    except yaml.YAMLError as exc:
        raise SuiteError(f"{source}: not valid YAML: {exc}") from None
    except RecursionError:
        raise SuiteError(f"{source}: nested too deeply") from None
    _check_size(data, source)
    return data


def loads_suite(text: str, source: str = "<suite>") -> Suite:
    """Read and validate a suite given as YAML or JSON text."""
    from agenteval.suites import parse_suite

    return parse_suite(load_yaml_text(text, source), source)
