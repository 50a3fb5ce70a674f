"""Free-form user data in ``*_json`` fields: JSON text, so integers stay integers."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from pydantic_core import from_json, to_json

from agenteval.contracts.errors import InvalidArgument


def dump_json(value: Any) -> str:
    """Any JSON-compatible value as JSON text (what pydantic would store; repr for the rest)."""
    return to_json(value, fallback=repr).decode()


def json_object_to_pb(value: dict[str, Any] | None) -> str:
    """A free-form object as a ``*_json`` field ("" for an empty one)."""
    return dump_json(value) if value else ""


def load_json(text: str, where: str) -> Any:
    try:
        return from_json(text)
    except ValueError as exc:
        raise InvalidArgument(f"{where}: not a JSON document: {exc}") from None


def json_object_from_pb(text: str, where: str = "field") -> dict[str, Any]:
    """A ``*_json`` field as the object it holds; InvalidArgument naming ``where`` when it is not one."""
    if not text:
        return {}
    value = load_json(text, where)
    if not isinstance(value, dict):
        raise InvalidArgument(f"{where}: must be a JSON object, got {type(value).__name__}")
    return value


def validate_as(model: Any, data: Any, what: str) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidArgument(f"{what} is not valid: {exc}") from None
