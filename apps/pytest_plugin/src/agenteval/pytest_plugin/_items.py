"""Suite files as pytest collectors, their cases as pytest items."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agenteval.contracts.suite import Case, Suite


class SuiteFileError(Exception):
    """The suite file could not be read or is invalid."""


class CaseFailed(Exception):
    """A case missed its thresholds, or its run could not be done; carries the report."""

    def __init__(self, report: str) -> None:
        super().__init__(report)
        self.report = report


class SuiteFile(pytest.File):
    """An agenteval suite: one item per case, marked with the case's tags."""

    def collect(self) -> Any:
        from agenteval.suites import SuiteError, load_suite

        try:
            suite = load_suite(self.path)
        except SuiteError as exc:
            raise SuiteFileError(str(exc)) from None
        for case in suite.cases:
            item = EvalCaseItem.from_parent(self, name=case.id, suite=suite, case=case)
            item.add_marker(pytest.mark.agenteval)
            for tag in case.tags:
                if tag.isidentifier():
                    _register_marker(self.config, tag)
                    item.add_marker(getattr(pytest.mark, tag))
            yield item

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, SuiteFileError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


def _register_marker(config: pytest.Config, tag: str) -> None:
    known = {line.split(":")[0].split("(")[0].strip() for line in config.getini("markers")}
    if tag not in known:
        config.addinivalue_line("markers", f"{tag}: agenteval cases tagged {tag}")


class EvalCaseItem(pytest.Item):
    """One case of a suite: passes when its pass@k and pass^k over k trials reach the thresholds."""

    def __init__(self, *, suite: Suite, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite = suite
        self.case = case

    @property
    def suite_path(self) -> Path:
        return Path(self.path)

    def runtest(self) -> None:
        from agenteval.pytest_plugin._report import failure_report, judge
        from agenteval.pytest_plugin.plugin import runs_of

        result = runs_of(self.config).result_for(self)
        if result.error:
            raise CaseFailed(f"suite {self.suite.name!r} could not be run: {result.error}")
        verdict = judge(self.case, result, runs_of(self.config).settings)
        self.user_properties.extend(verdict.properties())
        if not verdict.passed:
            raise CaseFailed(failure_report(verdict, result))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailed):
            return excinfo.value.report
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"agenteval case {self.case.id} of suite {self.suite.name}"
