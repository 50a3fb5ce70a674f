"""Names of stored suites and references to their versions (``NAME``, ``NAME@3``, ``NAME@1a2b3c4``)."""

from __future__ import annotations

import re
from typing import NamedTuple

from agenteval.suites._errors import SuiteError

STORED_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}")
"""What a stored suite may be called: it appears in references, URLs and file names."""
VERSION = re.compile(r"v?[0-9]{1,6}|[0-9a-f]{7,64}")
"""A version number (``3``, ``v3``) or a prefix of a version's digest (7 to 64 hex digits)."""


class SuiteRef(NamedTuple):
    """A stored suite and one of its versions ("" for the current one)."""

    name: str
    version: str = ""

    def __str__(self) -> str:
        return f"{self.name}@{self.version}" if self.version else self.name


def check_stored_name(name: str, field: str = "name") -> None:
    """Raise SuiteError unless ``name`` can name a stored suite."""
    if not STORED_NAME.fullmatch(name):
        shown = name if len(name) <= 60 else name[:60] + "..."
        raise SuiteError(
            f"{field}: {shown!r} cannot name a stored suite: use 1 to 128 letters, digits, '_', '.' "
            "or '-', starting with a letter or digit"
        )


def check_version(version: str, field: str = "version") -> None:
    """Raise SuiteError unless ``version`` is empty, a version number or a digest prefix."""
    if version and not VERSION.fullmatch(version):
        shown = version if len(version) <= 70 else version[:70] + "..."
        raise SuiteError(
            f"{field}: {shown!r} is not a version: give a number (3 or v3) or at least 7 hex digits "
            "of a version's digest"
        )


def parse_ref(ref: str, field: str = "suite") -> SuiteRef:
    """``NAME`` or ``NAME@VERSION``, checked."""
    name, _, version = ref.partition("@")
    check_stored_name(name, field)
    check_version(version, f"{field} version")
    return SuiteRef(name, version)


def looks_like_ref(text: str) -> bool:
    """Whether ``text`` could be a stored suite reference (rather than a file path)."""
    name, _, version = text.partition("@")
    return bool(STORED_NAME.fullmatch(name)) and (not version or bool(VERSION.fullmatch(version)))
