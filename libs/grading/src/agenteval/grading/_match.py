"""Expected-value matching and dotted paths, shared by tool_args, tool_called and state_check.

An expected value is either a literal or a one-key pattern:

- a literal scalar or list matches an equal value (``20 == 20.0``, but ``1 != True`` and
  ``20 != "20"``); a literal list matches element by element;
- a literal mapping matches a mapping holding at least those keys, each matching (a subset);
- ``{"regex": "..."}`` searches the value's text (numbers as written in JSON);
- ``{"one_of": [...]}`` matches a value equal to one of the options;
- ``{"contains": x}`` matches a string holding ``x`` (case-insensitive), a list with an
  element equal to ``x``, or a mapping with key ``x``;
- ``{"equals": x}`` matches a value exactly equal to ``x`` (for literal mappings that
  would otherwise be read as a subset or as a pattern).
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

from pydantic import AfterValidator

PATTERN_KEYS = ("regex", "one_of", "contains", "equals")


class _Missing:
    """The value at a path that does not exist (distinct from ``None``)."""

    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()


def check_expected(value: Any) -> Any:
    """Return ``value`` if it is a well-formed expected value, else raise ``ValueError``."""
    if isinstance(value, dict):
        ops = [k for k in value if k in PATTERN_KEYS]
        if not ops:
            for item in value.values():
                check_expected(item)
            return value
        if len(value) != 1:
            raise ValueError(
                f"a pattern has exactly one key ({', '.join(PATTERN_KEYS)}); got keys {sorted(value)}; "
                "write {'equals': {...}} to match a mapping with these keys literally"
            )
        op, arg = ops[0], value[ops[0]]
        if op == "regex":
            if not isinstance(arg, str):
                raise ValueError(f"regex must be a string, got {type(arg).__name__}")
            compile_regex(arg)
        elif op == "one_of" and (not isinstance(arg, list) or not arg):
            raise ValueError("one_of needs a non-empty list of options")
    elif isinstance(value, list):
        for item in value:
            check_expected(item)
    return value


def compile_regex(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """Compile ``pattern`` or raise ``ValueError`` naming it and the problem."""
    try:
        return re.compile(pattern, flags)
    except re.error as exc:
        raise ValueError(f"invalid regex {pattern!r}: {exc}") from None


Expected = Annotated[Any, AfterValidator(check_expected)]
"""A parameter holding an expected value (literal or pattern), validated at suite load."""


def show(value: Any, limit: int = 120) -> str:
    """A value as compact JSON for explanations, truncated to ``limit`` characters."""
    if value is MISSING:
        return "<missing>"
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def same(a: Any, b: Any) -> bool:
    """Deep equality where booleans are not numbers and mapping key order does not matter."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    try:
        return bool(a == b)
    except Exception:  # odd objects with a failing __eq__ simply do not match
        return False


def as_text(value: Any) -> str:
    """The text a regex is matched against: strings as-is, anything else as JSON."""
    return value if isinstance(value, str) else show(value, limit=100_000)


def mismatch(expected: Any, actual: Any) -> str | None:
    """``None`` when ``actual`` matches ``expected``, else why not (one line)."""
    if isinstance(expected, dict) and len(expected) == 1 and next(iter(expected)) in PATTERN_KEYS:
        ((op, arg),) = expected.items()
        return _pattern_mismatch(op, arg, actual)
    if actual is MISSING:
        return f"missing (expected {show(expected)})"
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"expected an object like {show(expected)}, got {show(actual)}"
        problems = []
        for key, sub in expected.items():
            why = mismatch(sub, actual.get(key, MISSING))
            if why is not None:
                problems.append(f"{key}: {why}")
        return "; ".join(problems) or None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"expected {show(expected)}, got {show(actual)}"
        for i, (sub, got) in enumerate(zip(expected, actual, strict=True)):
            why = mismatch(sub, got)
            if why is not None:
                return f"[{i}]: {why}"
        return None
    return None if same(expected, actual) else f"expected {show(expected)}, got {show(actual)}"


def _pattern_mismatch(op: str, arg: Any, actual: Any) -> str | None:
    if actual is MISSING:
        return f"missing (expected a value with {op} {show(arg)})"
    if op == "equals":
        return None if same(arg, actual) else f"expected exactly {show(arg)}, got {show(actual)}"
    if op == "one_of":
        if any(same(option, actual) for option in arg):
            return None
        return f"expected one of {show(arg)}, got {show(actual)}"
    if op == "regex":
        if actual is not None and re.search(arg, as_text(actual)):
            return None
        return f"expected a value matching /{arg}/, got {show(actual)}"
    # contains
    if isinstance(actual, str):
        if isinstance(arg, str) and arg.lower() in actual.lower():
            return None
        return f"expected text containing {show(arg)}, got {show(actual)}"
    if isinstance(actual, list):
        if any(same(arg, item) for item in actual):
            return None
        return f"expected a list containing {show(arg)}, got {show(actual)}"
    if isinstance(actual, dict):
        if isinstance(arg, str) and arg in actual:
            return None
        return f"expected an object with key {show(arg)}, got keys {show(sorted(map(str, actual)))}"
    return f"expected a string, list or object containing {show(arg)}, got {show(actual)}"


def check_path(path: str) -> str:
    """Return ``path`` if it is a usable dotted path (``orders.A1.status``), else raise."""
    if not path or any(not part for part in path.split(".")):
        raise ValueError(f"invalid path {path!r}: use dot-separated keys like 'orders.A1.status'")
    return path


StatePath = Annotated[str, AfterValidator(check_path)]
"""A dotted path into the trace's final state, validated at suite load."""


def resolve(data: Any, path: str) -> Any:
    """The value at dotted ``path`` in ``data``, or :data:`MISSING`.

    Integer segments index lists; a mapping key that itself contains dots is found too.
    """
    return _walk(data, path.split("."))


def _walk(node: Any, parts: list[str]) -> Any:
    if not parts:
        return node
    if isinstance(node, dict):
        # Longest key first, so {"a.b": 1} answers "a.b"; backtrack if that branch fails.
        for i in range(len(parts), 0, -1):
            key = ".".join(parts[:i])
            for candidate in _key_forms(key):
                if candidate in node:
                    found = _walk(node[candidate], parts[i:])
                    if found is not MISSING:
                        return found
        return MISSING
    if isinstance(node, list | tuple):
        try:
            return _walk(node[int(parts[0])], parts[1:])
        except (ValueError, IndexError):
            return MISSING
    return MISSING


def _key_forms(key: str) -> list[Any]:
    # State built in Python may use integer keys; JSON state always uses strings.
    return [key, int(key)] if key.lstrip("-").isdigit() else [key]


def where_missing(data: Any, path: str) -> str:
    """Why ``path`` does not resolve in ``data``, naming the first segment that fails."""
    node, seen = data, "state"
    for part in path.split("."):
        if isinstance(node, dict):
            hit = next((k for k in _key_forms(part) if k in node), MISSING)
            if hit is MISSING:
                keys = ", ".join(sorted(str(k) for k in node)[:10]) or "none"
                return f"{seen!r} has no key {part!r} (its keys: {keys})"
            node = node[hit]
        elif isinstance(node, list | tuple):
            try:
                node = node[int(part)]
            except (ValueError, IndexError):
                return f"{seen!r} is a list of {len(node)} items; {part!r} is not an index in it"
        else:
            return f"{seen!r} is {show(node)}, not an object"
        seen = part if seen == "state" else f"{seen}.{part}"
    return f"{path!r} is missing"
