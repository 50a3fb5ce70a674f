"""A JSON-Schema subset, checked by hand (no dependency) for the ``output_json`` grader.

Supported keywords: type, properties, required, items, enum, const, minimum, maximum,
minLength, maxLength, minItems, maxItems, pattern, additionalProperties. Annotations
(title, description, default, examples, $schema, $id, $comment) are accepted and ignored;
any other keyword is rejected at suite load so nothing is silently not enforced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agenteval.grading._match import compile_regex, same, show

TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")
_ANNOTATIONS = {"title", "description", "default", "examples", "$schema", "$id", "$comment"}
_KEYWORDS = {
    "type", "properties", "required", "items", "enum", "const", "minimum", "maximum",
    "minLength", "maxLength", "minItems", "maxItems", "pattern", "additionalProperties",
}  # fmt: skip


def check_schema(schema: Any, where: str = "schema") -> None:
    """Raise ``ValueError`` naming the place when ``schema`` is not a valid schema of the subset."""
    if not isinstance(schema, dict):
        raise ValueError(f"{where}: a schema must be an object, got {type(schema).__name__}")
    for key in schema:
        if key not in _KEYWORDS and key not in _ANNOTATIONS:
            raise ValueError(
                f"{where}: unsupported keyword {key!r} (supported: {', '.join(sorted(_KEYWORDS))})"
            )
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not kinds or any(k not in TYPES for k in kinds):
            raise ValueError(
                f"{where}.type: {show(kind)} is not one of {', '.join(TYPES)} (or a list of them)"
            )
    props = schema.get("properties")
    if props is not None:
        if not isinstance(props, dict):
            raise ValueError(f"{where}.properties: must be an object of schemas")
        for name, sub in props.items():
            check_schema(sub, f"{where}.properties.{name}")
    required = schema.get("required")
    if required is not None and (
        not isinstance(required, list) or not all(isinstance(r, str) for r in required)
    ):
        raise ValueError(f"{where}.required: must be a list of property names")
    if "items" in schema:
        check_schema(schema["items"], f"{where}.items")
    extra = schema.get("additionalProperties")
    if extra is not None and not isinstance(extra, bool):
        check_schema(extra, f"{where}.additionalProperties")
    if "enum" in schema and (not isinstance(schema["enum"], list) or not schema["enum"]):
        raise ValueError(f"{where}.enum: must be a non-empty list")
    for key in ("minimum", "maximum"):
        value = schema.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise ValueError(f"{where}.{key}: must be a number")
    for key in ("minLength", "maxLength", "minItems", "maxItems"):
        value = schema.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"{where}.{key}: must be a non-negative integer")
    if "pattern" in schema:
        if not isinstance(schema["pattern"], str):
            raise ValueError(f"{where}.pattern: must be a string")
        try:
            compile_regex(schema["pattern"])
        except ValueError as exc:
            raise ValueError(f"{where}.pattern: {exc}") from None


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def _is(value: Any, kind: str) -> bool:
    seen = _type_of(value)
    if kind == "number":
        return seen in ("integer", "number")
    if kind == "integer":
        return seen == "integer" or (seen == "number" and float(value).is_integer())
    return seen == kind


@dataclass
class Validation:
    """Outcome of validating one value: how many checks ran and what failed."""

    checks: int = 0
    errors: list[str] = field(default_factory=list)

    def check(self, ok: bool, where: str, why: str) -> bool:
        self.checks += 1
        if not ok:
            self.errors.append(f"{where}: {why}")
        return ok


def validate(
    schema: dict[str, Any], value: Any, where: str = "$", out: Validation | None = None
) -> Validation:
    """Check ``value`` against ``schema`` (already :func:`check_schema`-ed); every keyword is one check."""
    out = out if out is not None else Validation()
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not out.check(
            any(_is(value, k) for k in kinds), where, f"expected {' or '.join(kinds)}, got {_type_of(value)}"
        ):
            return out  # the other keywords say nothing useful about a value of the wrong type
    if "enum" in schema:
        out.check(
            any(same(o, value) for o in schema["enum"]),
            where,
            f"{show(value)} is not one of {show(schema['enum'])}",
        )
    if "const" in schema:
        out.check(same(schema["const"], value), where, f"expected {show(schema['const'])}, got {show(value)}")
    if _is(value, "number"):
        if "minimum" in schema:
            out.check(value >= schema["minimum"], where, f"{value} is below the minimum {schema['minimum']}")
        if "maximum" in schema:
            out.check(value <= schema["maximum"], where, f"{value} is above the maximum {schema['maximum']}")
    if isinstance(value, str):
        if "minLength" in schema:
            out.check(
                len(value) >= schema["minLength"], where, f"shorter than {schema['minLength']} characters"
            )
        if "maxLength" in schema:
            out.check(
                len(value) <= schema["maxLength"], where, f"longer than {schema['maxLength']} characters"
            )
        if "pattern" in schema:
            ok = re.search(schema["pattern"], value) is not None
            out.check(ok, where, f"{show(value)} does not match /{schema['pattern']}/")
    if isinstance(value, list):
        if "minItems" in schema:
            out.check(len(value) >= schema["minItems"], where, f"fewer than {schema['minItems']} items")
        if "maxItems" in schema:
            out.check(len(value) <= schema["maxItems"], where, f"more than {schema['maxItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                validate(schema["items"], item, f"{where}[{i}]", out)
    if isinstance(value, dict):
        _validate_object(schema, value, where, out)
    return out


def _validate_object(schema: dict[str, Any], value: dict[str, Any], where: str, out: Validation) -> None:
    for name in schema.get("required", []):
        out.check(name in value, where, f"missing required property {name!r}")
    props = schema.get("properties", {})
    for name, sub in props.items():
        if name in value:
            validate(sub, value[name], f"{where}.{name}", out)
    extra_schema = schema.get("additionalProperties")
    extras = [k for k in value if k not in props]
    if extra_schema is False:
        for name in extras:
            out.check(False, where, f"unexpected property {name!r}")
    elif isinstance(extra_schema, dict):
        for name in extras:
            validate(extra_schema, value[name], f"{where}.{name}", out)
