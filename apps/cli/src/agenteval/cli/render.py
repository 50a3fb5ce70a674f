"""How results look: rich tables for people, one JSON document for scripts."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from agenteval.contracts.summary import RunSummary


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def summary_table(s: RunSummary, title: str | None = None) -> Table:
    k = s.k
    table = Table(
        title=title or f"{s.suite} · {s.agent_version or s.agent} · run {s.run_id}", title_justify="left"
    )
    table.add_column("case", overflow="fold")
    table.add_column("passes", justify="right")
    table.add_column("pass@1", justify="right")
    table.add_column(f"pass@{k}", justify="right")
    table.add_column(f"pass^{k}", justify="right")
    table.add_column("p50 ms", justify="right")
    table.add_column("notes")
    for c in s.cases:
        notes = []
        if c.errors:
            notes.append(f"{c.errors} error{'s' if c.errors > 1 else ''}")
        if c.timeouts:
            notes.append(f"{c.timeouts} timeout{'s' if c.timeouts > 1 else ''}")
        if c.flaky:
            notes.append("flaky")
        style = "green" if c.passes == c.trials else ("red" if c.passes == 0 else "yellow")
        table.add_row(
            c.case_id,
            f"[{style}]{c.passes}/{c.trials}[/]",
            _pct(c.pass_at_k.get(1, 0.0)),
            _pct(c.pass_at_k.get(k, c.pass_at_k.get(max(c.pass_at_k, default=1), 0.0))),
            _pct(c.pass_pow_k.get(k, c.pass_pow_k.get(max(c.pass_pow_k, default=1), 0.0))),
            f"{c.latency.p50_ms:.1f}",
            ", ".join(notes),
        )
    table.add_section()
    table.add_row(
        "[bold]total[/]",
        f"[bold]{s.passes}/{s.trials}[/]",
        _pct(s.pass_at_k.get(1, 0.0)),
        _pct(s.pass_at_k.get(k, 0.0)),
        _pct(s.pass_pow_k.get(k, 0.0)),
        f"{s.latency.p50_ms:.1f}",
        f"p95 {s.latency.p95_ms:.1f} ms · p99 {s.latency.p99_ms:.1f} ms",
    )
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
    console.print(summary_table(s))
    if s.tags:
        console.print(tags_table(s))
    low, high = s.pass_rate_low, s.pass_rate_high
    console.print(
        f"pass rate {_pct(s.pass_rate)} (95% CI {_pct(low)}–{_pct(high)}) · "
        f"{s.errors} errors · {s.timeouts} timeouts · tokens {s.input_tokens}+{s.output_tokens} · "
        f"cost ${s.cost_usd:.4f}"
    )


def summary_json(s: RunSummary, status: str = "completed") -> dict[str, Any]:
    doc = s.model_dump(mode="json")
    doc["status"] = status
    return doc
