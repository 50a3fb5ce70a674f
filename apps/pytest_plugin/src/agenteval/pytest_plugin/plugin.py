"""The hooks: options, suite collection, tag markers, the session's runs and its summary."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from agenteval.pytest_plugin._runs import Runs

DEFAULT_PATTERNS = ["agenteval_*.yaml", "agenteval_*.yml"]
RUNS_KEY: pytest.StashKey[Runs] = pytest.StashKey()


def _unit(value: str) -> float:
    x = float(value)
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"must be between 0 and 1, got {value}")
    return x


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agenteval", "agenteval suites as tests")
    group.addoption(
        "--agenteval-suite",
        action="append",
        default=[],
        metavar="PATH",
        help="Collect this suite file (repeatable), whatever its name.",
    )
    group.addoption(
        "--agenteval-k", type=int, default=None, metavar="N", help="Trials per case (default: the suite's)."
    )
    group.addoption(
        "--agenteval-agent",
        default=None,
        metavar="SPEC",
        help="Agent under test (default: the suite's agent).",
    )
    group.addoption(
        "--agenteval-server",
        default=os.environ.get("AGENTEVAL_SERVER") or None,
        metavar="ADDR",
        help="gRPC address of a running agenteval (default: AGENTEVAL_SERVER, else an embedded stack).",
    )
    group.addoption(
        "--agenteval-min-pass-at-k",
        type=_unit,
        default=None,
        metavar="X",
        help="A case passes only if its pass@k is at least X (0..1).",
    )
    group.addoption(
        "--agenteval-min-pass-pow-k",
        type=_unit,
        default=None,
        metavar="X",
        help="A case passes only if its pass^k is at least X (0..1; default 1: every trial passes).",
    )
    group.addoption(
        "--agenteval-seed", type=int, default=0, metavar="N", help="Seed of the trials (0: random)."
    )
    group.addoption(
        "--agenteval-agent-version",
        default="",
        metavar="LABEL",
        help="Label of the agent version under test.",
    )
    group.addoption(
        "--agenteval-data-dir",
        default=None,
        metavar="DIR",
        help="Data dir of the embedded stack (default: a temporary dir, removed after the session).",
    )
    parser.addini(
        "agenteval_suites", "File name patterns of agenteval suites.", type="args", default=DEFAULT_PATTERNS
    )
    parser.addini("agenteval_min_pass_at_k", "Default threshold on pass@k (0..1).", default="")
    parser.addini("agenteval_min_pass_pow_k", "Default threshold on pass^k (0..1).", default="")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "agenteval: a case of an agenteval suite")
    config.addinivalue_line("markers", "fast: agenteval cases tagged fast")
    config.addinivalue_line("markers", "slow: agenteval cases tagged slow")
    suites = config.getoption("agenteval_suite") or []
    for path in suites:
        if not Path(path).is_file():
            raise pytest.UsageError(f"--agenteval-suite {path}: no such file")
    if suites:
        # Collected like paths given on the command line; with no test paths given there, only
        # the suites run (not the testpaths or the whole directory).
        if config.args_source != pytest.Config.ArgsSource.ARGS:
            config.args[:] = []
        config.args.extend(p for p in suites if p not in config.args)


def _is_suite(config: pytest.Config, file_path: Path) -> bool:
    if file_path.suffix not in (".yaml", ".yml", ".json"):
        return False
    # A suite file named on the command line, or with --agenteval-suite, whatever its name.
    given = [*(config.getoption("agenteval_suite") or []), *config.invocation_params.args]
    explicit = {Path(config.invocation_params.dir, str(p)).resolve() for p in given}
    if file_path.resolve() in explicit:
        return True
    patterns: list[str] = config.getini("agenteval_suites") or DEFAULT_PATTERNS
    return any(fnmatch.fnmatch(file_path.name, p) for p in patterns)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if not _is_suite(parent.config, file_path):
        return None
    from agenteval.pytest_plugin._items import SuiteFile

    return SuiteFile.from_parent(parent, path=file_path)


def runs_of(config: pytest.Config) -> Runs:
    """The session's runs (one per suite), made on first use."""
    found = config.stash.get(RUNS_KEY, None)
    if found is None:
        from agenteval.pytest_plugin._runs import Runs, RunSettings

        found = Runs(RunSettings.from_config(config))
        config.stash[RUNS_KEY] = found
    return found


def pytest_sessionfinish(session: pytest.Session) -> None:
    runs = session.config.stash.get(RUNS_KEY, None)
    if runs is not None:
        runs.close()


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    runs = config.stash.get(RUNS_KEY, None)
    if runs is None or not runs.results:
        return
    from agenteval.pytest_plugin._report import summary_lines

    terminalreporter.write_sep("=", "agenteval")
    for line in summary_lines(runs):
        terminalreporter.write_line(line)
