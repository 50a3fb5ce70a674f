"""Rich tables for the terminal, from the same cells as the Markdown."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

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


# Columns a narrow terminal loses first (lowest first); the first column (the case, the tag: what
# a later command takes) and every column not named here (verdicts, pass rates) always stay.
_DROP_FIRST = [
    "Tokens in/out",
    "p99 ms",
    "p95 ms",
    "p-value",
    "95% CI",
    "Passes",
    "pass@1",
    "Cost",
    "p50 ms",
    "Flaky",
    "Cases",
    "Change (points)",
]


def _rank(header: str) -> int:
    """Order in which a column goes on a narrow terminal: graders' scores first, then
    _DROP_FIRST's order; None-like (a large number) for the columns that always stay."""
    if header in _DROP_FIRST:
        return _DROP_FIRST.index(header)
    if header in _KEEP or header.startswith(("pass@", "pass^")):
        return 1_000
    return -1  # a grader's score


_KEEP = {"Case", "Tag", "Verdict", "Pass rate", "Baseline", "Candidate", "Adjusted p", "Trials needed"}


def _build(cells: Cells, keep: list[int], title: str | None) -> Table:
    table = Table(title=title, title_justify="left")
    body = [*cells.rows, *([cells.total] if cells.total else [])]
    for i in keep:
        if i == 0:
            widest = max((len(r[0]) for r in body), default=1)
            table.add_column(escape(cells.headers[0]), justify=cells.align[0], no_wrap=True, min_width=widest)
        else:
            # Fold rather than cut with an ellipsis: a figure wraps, never loses digits.
            table.add_column(escape(cells.headers[i]), justify=cells.align[i], overflow="fold")
    for row, verdict in zip(cells.rows, cells.verdicts, strict=True):
        table.add_row(*(escape(row[i]) for i in keep), style=_STYLES.get(verdict, ""))
    if cells.total is not None:
        table.add_section()
        table.add_row(*(escape(cells.total[i]) for i in keep), style="bold")
    return table


def _as_list(cells: Cells, keep: list[int], title: str | None) -> Group:
    """One entry per row when even the needed columns do not fit: the id on its own line (whole),
    then its figures as 'header value' pairs that wrap between pairs."""
    parts: list[Any] = [Text(title, style="italic")] if title else []
    rows = [*zip(cells.rows, cells.verdicts, strict=True)]
    if cells.total is not None:
        rows.append((cells.total, "total"))
    for row, verdict in rows:
        parts.append(Text(row[0], style=f"bold {_STYLES.get(verdict, '')}".strip()))
        figures = " · ".join(f"{cells.headers[i]} {row[i]}" for i in keep[1:] if row[i])
        parts.append(Text("  " + figures))
    return Group(*parts)


def rich_table(cells: Cells, title: str | None = None, width: int | None = None) -> RenderableType:
    """A rich Table of the cells, each row styled by its verdict. Within ``width`` characters it
    drops the least needed columns (and names them) rather than split ids or fold headers letter
    by letter; when even the needed ones do not fit, each row becomes a short entry. The first
    column (case ids, tags) is never wrapped or cut."""
    body = [*cells.rows, *([cells.total] if cells.total else [])]
    keep = [i for i in range(len(cells.headers)) if i == 0 or any(r[i] for r in body)]
    table = _build(cells, keep, title)
    if width is not None:
        console = Console(width=100_000)  # measured unclamped: the width the table wants
        droppable = sorted(
            (i for i in keep if i and _rank(cells.headers[i]) < 1_000), key=lambda i: _rank(cells.headers[i])
        )
        while Measurement.get(console, console.options, table).maximum > width and droppable:
            keep.remove(droppable.pop(0))
            table = _build(cells, keep, title)
        dropped = [
            cells.headers[i] for i in range(len(cells.headers)) if i not in keep and any(r[i] for r in body)
        ]
        if Measurement.get(console, console.options, table).maximum > width:
            listed = _as_list(cells, keep, title)
            return Group(listed, _dropped_note(dropped)) if dropped else listed
        if dropped:
            table.caption = _dropped_note(dropped).plain
            table.caption_justify = "left"
    return table


def _dropped_note(dropped: list[str]) -> Text:
    return Text(f"not shown at this width: {', '.join(dropped)} (--format markdown or json has all)")


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
        console.print(rich_table(comparison_cells(report), width=console.width))
    if report.grader_scores:
        changed = changed_grader_scores(report)
        console.print(escape(grader_sentence(report, len(changed))), highlight=False)
        if report.graders:
            console.print(rich_table(grader_cells(report), width=console.width))
        if changed:
            console.print(rich_table(grader_case_cells(changed), width=console.width))
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
        console.print(rich_table(plan_cells(plan), width=console.width))


def print_run(console: Console, report: RunReport) -> None:
    """The run: per-case table with totals, flaky cases, how many trials are needed."""
    t = report.totals
    who = report.agent_version or report.agent
    title = " · ".join(x for x in (report.suite, who, f"run {report.run_id}") if x)
    if report.cases:
        console.print(rich_table(run_cells(report), title=escape(title), width=console.width))
    if report.tags:
        console.print(rich_table(tag_cells(report), title="by tag", width=console.width))
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


def comparison_text(report: ComparisonReport, width: int = 180) -> str:
    """The terminal rendering as plain text within ``width`` (for --output FILE, or a pipe)."""
    return _to_text(lambda c: print_comparison(c, report), width)


def run_text(report: RunReport, width: int = 180) -> str:
    """The terminal rendering as plain text within ``width`` (for --output FILE, or a pipe)."""
    return _to_text(lambda c: print_run(c, report), width)
