"""Rich tables for the terminal, from the same cells as the Markdown."""

from __future__ import annotations

import io
from collections.abc import Callable

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agenteval.reports import _format as f
from agenteval.reports._comparison import ComparisonReport
from agenteval.reports._run import RunReport, TrialPlan
from agenteval.reports._tables import (
    Cells,
    changed_grader_scores,
    compared_sentence,
    comparison_cells,
    comparison_method,
    grader_case_cells,
    grader_cells,
    grader_sentence,
    plan_cells,
    plan_sentence,
    reason_lines,
    run_cells,
    run_method,
    suite_sentence,
    suites_warning,
    tag_cells,
)

_STYLES = {
    "regressed": "red",
    "improved": "green",
    "unchanged": "",
    "pass": "green",
    "fail": "red",
    "flaky": "yellow",
}


def rich_table(cells: Cells, title: str | None = None) -> Table:
    """A rich Table of the cells, each row styled by its verdict."""
    table = Table(title=title, title_justify="left")
    for header, align in zip(cells.headers, cells.align, strict=True):
        # Fold rather than cut with an ellipsis: on a narrow terminal a figure wraps, never loses digits.
        table.add_column(escape(header), justify=align, overflow="fold")
    for row, verdict in zip(cells.rows, cells.verdicts, strict=True):
        table.add_row(*(escape(c) for c in row), style=_STYLES.get(verdict, ""))
    if cells.total is not None:
        table.add_section()
        table.add_row(*(escape(c) for c in cells.total), style="bold")
    return table


def _status(report: ComparisonReport) -> str:
    colour = "green" if report.passed else "red"
    return f"[bold {colour}]{escape(report.headline)}[/]"


def print_comparison(console: Console, report: ComparisonReport) -> None:
    """The comparison: verdict, runs compared, suite result, per-case table, method."""
    console.print(_status(report))
    warning = suites_warning(report)
    if warning:
        console.print(f"[bold red]{escape(warning)}[/]", highlight=False)
    console.print(escape(compared_sentence(report)), highlight=False)
    console.print(escape(suite_sentence(report)), highlight=False)
    if report.cases:
        console.print(rich_table(comparison_cells(report)))
    if report.grader_scores:
        changed = changed_grader_scores(report)
        console.print(escape(grader_sentence(report, len(changed))), highlight=False)
        if report.graders:
            console.print(rich_table(grader_cells(report)))
        if changed:
            console.print(rich_table(grader_case_cells(changed)))
    if report.added:
        console.print(f"added (not compared): {escape(', '.join(report.added))}", highlight=False)
    if report.removed:
        console.print(f"removed (not compared): {escape(', '.join(report.removed))}", highlight=False)
    for note in report.notes:
        console.print(f"note: {escape(note)}", highlight=False)
    for line in reason_lines(report):
        console.print(f"why: {escape(line)}", highlight=False)
    console.print(f"[dim]{escape(comparison_method(report))}[/]", highlight=False)


def print_plan(console: Console, plan: TrialPlan, show_cases: bool = True) -> None:
    """The trial plan: one sentence, and the per-case needs."""
    console.print(escape(plan_sentence(plan)), highlight=False)
    if show_cases and plan.cases:
        console.print(rich_table(plan_cells(plan)))


def print_run(console: Console, report: RunReport) -> None:
    """The run: per-case table with totals, flaky cases, how many trials are needed."""
    t = report.totals
    who = report.agent_version or report.agent
    title = " · ".join(x for x in (report.suite, who, f"run {report.run_id}") if x)
    if report.cases:
        console.print(rich_table(run_cells(report), title=escape(title)))
    if report.tags:
        console.print(rich_table(tag_cells(report), title="by tag"))
    console.print(
        f"[bold]{t.passes}/{t.trials} trials passed[/], pass rate {f.pct(t.pass_rate)} "
        f"(95% CI {f.ci(t.pass_rate_low, t.pass_rate_high)}) · {f.count(t.errors, 'error')} · "
        f"{f.count(t.timeouts, 'timeout')} · k = {report.k}",
        highlight=False,
    )
    if report.flaky_cases:
        flaky = ", ".join(f"{c.case_id} ({f.pct(c.pass_rate)})" for c in report.cases if c.flaky)
        console.print(f"[yellow]flaky cases:[/] {escape(flaky)}", highlight=False)
    else:
        console.print("flaky cases: none", highlight=False)
    if report.trial_plan is not None:
        console.print("[bold]How many trials?[/]")
        print_plan(console, report.trial_plan)
    console.print(f"[dim]{escape(run_method(report))}[/]", highlight=False)


def _to_text(render: Callable[[Console], None], width: int) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False, soft_wrap=False)
    render(console)
    return buffer.getvalue()


def comparison_text(report: ComparisonReport, width: int = 120) -> str:
    """The terminal rendering as plain text (for --output FILE)."""
    return _to_text(lambda c: print_comparison(c, report), width)


def run_text(report: RunReport, width: int = 180) -> str:
    """The terminal rendering as plain text (for --output FILE)."""
    return _to_text(lambda c: print_run(c, report), width)
