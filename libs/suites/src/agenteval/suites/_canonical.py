"""The canonical form of a suite, and the content address (digest) of a suite version.

Two suites that mean the same thing have the same canonical JSON and so the same digest,
however their files were written: shorthand or long-form graders, a string or a message
list as input, a default written out or left out, comments and key order. A field's
default value is left out, so a field added to the models later does not change the digest
of the suites that do not use it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from agenteval.contracts.suite import Case, Suite


def suite_data(suite: Suite) -> dict[str, Any]:
    """The suite as plain data, defaults left out (what is hashed and stored)."""
    return suite.model_dump(mode="json", exclude_defaults=True)


def case_data(case: Case) -> dict[str, Any]:
    """One case as plain data, defaults left out."""
    return case.model_dump(mode="json", exclude_defaults=True)


def canonical_json(data: Any) -> str:
    """Sorted keys, no spaces, UTF-8 as is: one text per value."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def suite_digest(suite: Suite) -> str:
    """The content address of ``suite``: sha256 (hex) of its canonical JSON."""
    return _sha256(canonical_json(suite_data(suite)))


def case_digest(case: Case) -> str:
    """The content address of one case (cases shared by versions are stored once)."""
    return _sha256(canonical_json(case_data(case)))
