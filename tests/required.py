"""Tests that need something outside Python (chromium, initdb, an optional package): skipped on a
developer machine without it, a failure where it must be present. `.ci/run` sets
AGENTEVAL_TEST_REQUIRE_ALL=1, so in CI every test that guards a promise runs or fails."""

from __future__ import annotations

import os

import pytest


def missing(what: str) -> None:
    """Skip (module-level too) for want of ``what``, or fail when everything is required."""
    if os.environ.get("AGENTEVAL_TEST_REQUIRE_ALL") == "1":
        pytest.fail(f"required here but missing: {what}", pytrace=False)
    pytest.skip(f"missing: {what}", allow_module_level=True)
