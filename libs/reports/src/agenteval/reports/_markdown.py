"""Markdown for pull-request comments (GitHub-flavoured tables)."""

from __future__ import annotations

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
    ordered_cases,
    plan_cells,
    plan_sentence,
    reason_lines,
    run_cells,
    run_method,
    suite_sentence,
    suites_warning,
    tag_cells,
)

# Past this many unchanged cases, a PR comment folds them away so the changes stay in view.
FOLD_UNCHANGED_OVER = 10


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    return f"`{text}`" if text else ""


def table(cells: Cells, code_first_column: bool = True) -> str:
    """A GitHub-flavoured Markdown table."""
    rule = {"left": "---", "right": "---:"}
    lines = [
        "| " + " | ".join(_cell(h) for h in cells.headers) + " |",
        "|" + "|".join(rule[a] for a in cells.align) + "|",
    ]
    for row in cells.rows:
        first = _code(row[0]) if code_first_column else row[0]
        lines.append("| " + " | ".join([_cell(first), *(_cell(c) for c in row[1:])]) + " |")
    if cells.total is not None:
        lines.append("| " + " | ".join(f"**{_cell(c)}**" if c else "" for c in cells.total) + " |")
    return "\n".join(lines)


def _bold_verdicts(cells: Cells) -> Cells:
    for row in cells.rows:
        if row[-1] != "unchanged":
            row[-1] = f"**{row[-1]}**"
    return cells


def comparison_markdown(report: ComparisonReport) -> str:
    """A heading, the one-line verdict in bold, the suite result, the per-case table, a method note."""
    suite = report.candidate.suite or report.baseline.suite
    parts = [
        f"## agenteval comparison{f': {suite}' if suite else ''}",
        f"**{report.headline}**",
        *([f"> **{suites_warning(report)}**"] if report.suites_differ else []),
        compared_sentence(report, _code),
        suite_sentence(report),
    ]
    ordered = ordered_cases(report)
    changed = [c for c in ordered if c.verdict != "unchanged"]
    unchanged = [c for c in ordered if c.verdict == "unchanged"]
    if ordered:
        if len(unchanged) > FOLD_UNCHANGED_OVER and changed:
            parts.append(table(_bold_verdicts(comparison_cells(report, changed))))
            parts.append(
                f"<details><summary>{f.count(len(unchanged), 'unchanged case')}</summary>\n\n"
                + table(comparison_cells(report, unchanged))
                + "\n\n</details>"
            )
        else:
            parts.append(table(_bold_verdicts(comparison_cells(report, ordered))))
    if report.grader_scores:
        changed_scores = changed_grader_scores(report)
        parts.append("### Grader scores")
        parts.append(grader_sentence(report, len(changed_scores)))
        if report.graders:
            parts.append(table(grader_cells(report)))
        if changed_scores:
            parts.append(table(grader_case_cells(changed_scores)))
    if report.added:
        parts.append(
            "Added cases (only in the candidate, not compared): " + ", ".join(map(_code, report.added))
        )
    if report.removed:
        parts.append(
            "Removed cases (only in the baseline, not compared): " + ", ".join(map(_code, report.removed))
        )
    parts.extend(f"> {note}" for note in report.notes)
    if report.reasons:
        parts.append("**Why:**\n" + "\n".join(f"- {_cell(line)}" for line in reason_lines(report)))
    parts.append(f"_{comparison_method(report)}_")
    return "\n\n".join(parts) + "\n"


def plan_markdown(plan: TrialPlan) -> str:
    """The 'How many trials?' section."""
    parts = ["### How many trials?", plan_sentence(plan)]
    if plan.cases:
        parts.append(table(plan_cells(plan)))
    return "\n\n".join(parts)


def run_markdown(report: RunReport) -> str:
    """A heading, the run's result in one line, the per-case table, flaky cases and the trial plan."""
    t = report.totals
    who = report.agent_version or report.agent
    parts = [
        f"## agenteval run report{f': {report.suite}' if report.suite else ''}",
        f"**{t.passes}/{t.trials} trials passed** (pass rate {f.pct(t.pass_rate)}, 95% CI "
        f"{f.ci(t.pass_rate_low, t.pass_rate_high)}): "
        + (f"agent {_code(who)}, " if who else "")
        + f"run {_code(report.run_id)}, k = {report.k}, {f.count(t.cases, 'case')}, "
        f"{t.flaky_cases} flaky, {f.count(t.errors, 'error')}, {f.count(t.timeouts, 'timeout')}.",
    ]
    if report.cases:
        parts.append(table(run_cells(report)))
    if report.tags:
        parts.append("### By tag")
        parts.append(table(tag_cells(report)))
    parts.append("### Flaky cases")
    flaky = [c for c in report.cases if c.flaky]
    parts.append(
        "\n".join(f"- {_code(c.case_id)}: {c.passes}/{c.trials} ({f.pct(c.pass_rate)})" for c in flaky)
        if flaky
        else "None: every case passed all its trials or none."
    )
    if report.trial_plan is not None:
        parts.append(plan_markdown(report.trial_plan))
    parts.append(f"_{run_method(report)}_")
    return "\n\n".join(parts) + "\n"
