"""How results look: rich tables for people, one JSON document for scripts."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from agenteval.contracts.summary import RunSummary


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def summary_table(s: RunSummary, width: int = 80) -> Table | Group:
    """Per case: passes/trials, pass@1, pass@k, pass^k, p50 latency and notes, within
    ``width`` (case ids whole; p50 goes first when narrow; no notes column when none). Case
    ids too long for a table at this width are listed, each above its figures."""
    from agenteval.cli.fit import Col, fit_table, fits

    k = s.k
    once = k <= 1  # pass@1 = pass^1 = the pass rate: one column, not three
    cols = [Col("case", "key"), Col("passes", "key", justify="right"), Col("pass@1", "key", justify="right")]
    if not once:
        cols += [Col(f"pass@{k}", "key", justify="right"), Col(f"pass^{k}", "key", justify="right")]
    cols += [Col("p50 ms", "key", drop=0, justify="right"), Col("notes", "text")]
    rows = []
    for c in s.cases:
        notes = []
        if c.errors:
            notes.append(f"{c.errors} error{'s' if c.errors > 1 else ''}")
        if c.timeouts:
            notes.append(f"{c.timeouts} timeout{'s' if c.timeouts > 1 else ''}")
        if c.flaky:
            notes.append("flaky")
        style = "green" if c.passes == c.trials else ("red" if c.passes == 0 else "yellow")
        row = [escape(c.case_id), f"[{style}]{c.passes}/{c.trials}[/]", _pct(c.pass_at_k.get(1, 0.0))]
        if not once:
            row += [
                _pct(c.pass_at_k.get(k, c.pass_at_k.get(max(c.pass_at_k, default=1), 0.0))),
                _pct(c.pass_pow_k.get(k, c.pass_pow_k.get(max(c.pass_pow_k, default=1), 0.0))),
            ]
        rows.append([*row, f"{c.latency.p50_ms:.1f}", ", ".join(notes)])
    total = ["[bold]total[/]", f"[bold]{s.passes}/{s.trials}[/]", _pct(s.pass_at_k.get(1, 0.0))]
    if not once:
        total += [_pct(s.pass_at_k.get(k, 0.0)), _pct(s.pass_pow_k.get(k, 0.0))]
    rows.append([*total, f"{s.latency.p50_ms:.1f}", ""])
    title = f"{escape(s.suite)} · {escape(s.agent_version or s.agent)} · run {escape(s.run_id)}"
    if not fits(cols, rows, width):
        lines = [title]
        for row in rows:
            figures = [f"{col.header} {cell}" for col, cell in zip(cols[1:], row[1:], strict=True) if cell]
            lines += [f"[bold]{row[0]}[/]", "  " + " · ".join(figures)]
        if once:
            lines.append("k = 1: pass@1 = pass^1 = the pass rate")
        return Group(*(Text.from_markup(line) for line in lines))
    table = fit_table(cols, rows, width)
    table.title = title
    table.title_justify = "left"
    if once:
        table.caption = "k = 1: pass@1 = pass^1 = the pass rate"
        table.caption_justify = "left"
    return table


def tags_table(s: RunSummary) -> Table:
    k = s.k
    table = Table(title="by tag", title_justify="left")
    for col in ("tag", "cases", "passes", "pass rate (95% CI)", "pass@1", f"pass@{k}", f"pass^{k}"):
        table.add_column(col, justify="left" if col == "tag" else "right")
    for t in s.tags:
        tk = max(t.pass_at_k, default=1)
        table.add_row(
            t.tag,
            str(t.cases),
            f"{t.passes}/{t.trials}",
            f"{_pct(t.pass_rate)} ({_pct(t.pass_rate_low)}–{_pct(t.pass_rate_high)})",
            _pct(t.pass_at_k.get(1, 0.0)),
            _pct(t.pass_at_k.get(tk, 0.0)),
            _pct(t.pass_pow_k.get(tk, 0.0)),
        )
    return table


def print_summary(console: Console, s: RunSummary) -> None:
    from agenteval.reports import cost_text

    console.print(summary_table(s, console.width))
    if s.tags:
        console.print(tags_table(s))
    low, high = s.pass_rate_low, s.pass_rate_high
    console.print(
        f"pass rate {_pct(s.pass_rate)} (95% CI {_pct(low)}–{_pct(high)}) · "
        f"{s.errors} errors · {s.timeouts} timeouts · tokens {s.input_tokens}+{s.output_tokens} · "
        f"cost {cost_text(s.cost_usd, s.cost_unknown_trials)} · latency p50 {s.latency.p50_ms:.1f} ms, p95 {s.latency.p95_ms:.1f} ms, "
        f"p99 {s.latency.p99_ms:.1f} ms"
    )
    for name, n in s.grader_failures.items():
        why = s.grader_failure_reasons.get(name, "")
        console.print(
            f"[yellow]grader {escape(name)} could not grade {n} of {s.trials} trials[/] (counted as failed): "
            f"{escape(why)}",
            highlight=False,
        )


def summary_json(s: RunSummary, status: str = "completed") -> dict[str, Any]:
    doc = s.model_dump(mode="json")
    doc["status"] = status
    return doc
