"""Reports of runs and comparisons, with the same numbers as rich tables, Markdown and JSON;
and a run as an Inspect AI eval log (`inspect_eval_log`).

Build a model (`run_report` from a RunSummary, `comparison_report` from CompareRuns'
comparison JSON), then render it with `render_run` / `render_comparison`, or print it
with `print_run` / `print_comparison`. The JSON form is the model's dump
(`report.to_json_dict()`): its keys are documented on the models.
"""

from __future__ import annotations

import json
from typing import Literal

from agenteval.reports._comparison import (
    COMPARISON_REPORT_SCHEMA,
    CaseDelta,
    ComparisonReport,
    ReportError,
    RunRef,
    SuiteDelta,
    comparison_report,
    headline,
)
from agenteval.reports._format import cost as cost_text
from agenteval.reports._inspect import INSPECT_LOG_VERSION, ExportTrial, inspect_eval_log
from agenteval.reports._markdown import comparison_markdown, plan_markdown, run_markdown
from agenteval.reports._run import (
    DEFAULT_ALPHA,
    DEFAULT_DROP,
    DEFAULT_POWER,
    RUN_REPORT_SCHEMA,
    CaseFigures,
    PlannedCase,
    RunReport,
    RunTotals,
    TagFigures,
    TrialPlan,
    run_report,
    trial_plan,
)
from agenteval.reports._terminal import comparison_text, print_comparison, print_plan, print_run, run_text

ReportFormat = Literal["table", "markdown", "json"]
FORMATS: tuple[ReportFormat, ...] = ("table", "markdown", "json")


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r}; use one of {', '.join(FORMATS)}")


def render_run(report: RunReport, fmt: ReportFormat, width: int = 180) -> str:
    """The run report as text: 'table' (plain-text rich tables within ``width``), 'markdown' or 'json'."""
    _check_format(fmt)
    if fmt == "json":
        return json.dumps(report.to_json_dict(), indent=2) + "\n"
    return run_markdown(report) if fmt == "markdown" else run_text(report, width)


def render_comparison(report: ComparisonReport, fmt: ReportFormat, width: int = 180) -> str:
    """The comparison report as text: 'table' (plain-text rich tables within ``width``),
    'markdown' or 'json'."""
    _check_format(fmt)
    if fmt == "json":
        return json.dumps(report.to_json_dict(), indent=2) + "\n"
    return comparison_markdown(report) if fmt == "markdown" else comparison_text(report, width)


__all__ = [
    "COMPARISON_REPORT_SCHEMA",
    "DEFAULT_ALPHA",
    "DEFAULT_DROP",
    "DEFAULT_POWER",
    "FORMATS",
    "INSPECT_LOG_VERSION",
    "RUN_REPORT_SCHEMA",
    "CaseDelta",
    "CaseFigures",
    "ComparisonReport",
    "ExportTrial",
    "PlannedCase",
    "ReportError",
    "ReportFormat",
    "RunRef",
    "RunReport",
    "RunTotals",
    "SuiteDelta",
    "TagFigures",
    "TrialPlan",
    "comparison_markdown",
    "comparison_report",
    "cost_text",
    "headline",
    "inspect_eval_log",
    "plan_markdown",
    "print_comparison",
    "print_plan",
    "print_run",
    "render_comparison",
    "render_run",
    "run_markdown",
    "run_report",
    "trial_plan",
]
