"""Tests that need something outside Python (chromium, initdb, an optional package) fail, with
what to install, when it is missing: a test that guards a promise never skips, in CI or anywhere."""

from __future__ import annotations

import pytest


def missing(what: str) -> None:
    """Fail the test (module-level too) for want of ``what``, saying what to install."""
    pytest.fail(f"required by this test but missing: {what}", pytrace=False)
