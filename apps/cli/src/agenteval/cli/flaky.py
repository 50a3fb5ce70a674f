"""``agent-eval flakiness``: how much each case's pass rate moves across repeated runs of one version."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, TypedDict

import typer
from rich.table import Table

from agenteval.cli import DataDir, JsonOut, Server, app, connect, fail, out, print_json, run_async


class _CaseSpread(TypedDict):
    """One case's row: its pass rate across the runs (as ``--json`` prints it)."""

    case_id: str
    runs: int
    min: float
    max: float
    spread: float
    warn: bool


@app.command()
def flakiness(
    suite: Annotated[str, typer.Option(help="Suite name.")],
    agent_version: Annotated[str, typer.Option(help="Agent version whose repeated runs are compared.")],
    runs: Annotated[int, typer.Option(min=2, max=100, help="How many of its newest completed runs.")] = 5,
    spread: Annotated[float, typer.Option(help="Warn when a case's pass rate varies more than this.")] = 0.20,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Flake rate across repeated runs of the same version: cases whose pass rate varies > 20 points."""
    from agenteval.stats import flake_rate_across_runs

    async def go() -> Any:
        async with connect(server, data_dir) as client:
            found = await client.list_runs(suite=suite, agent_version=agent_version, limit=200)
            return [r.summary for r in found if r.status == "completed" and r.summary is not None][:runs]

    summaries = run_async(go)
    if len(summaries) < 2:
        fail(
            f"need at least 2 completed runs of suite {suite!r} at version {agent_version!r}, "
            f"found {len(summaries)}",
            2,
        )
    rates: dict[str, list[float]] = {}
    for s in summaries:
        for c in s.cases:
            rates.setdefault(c.case_id, []).append(c.pass_rate)
    result = flake_rate_across_runs(rates, spread=spread)
    rows: list[_CaseSpread] = [
        {"case_id": cid, "runs": r.runs, "min": r.min, "max": r.max, "spread": r.spread, "warn": r.warn}
        for cid, r in sorted(result.items(), key=lambda kv: -kv[1].spread)
    ]
    warned = [r for r in rows if r["warn"]]
    if json_out:
        print_json(
            {
                "suite": suite,
                "agent_version": agent_version,
                "runs": [s.run_id for s in summaries],
                "spread_threshold": spread,
                "cases": rows,
                "warnings": len(warned),
            }
        )
        return
    table = Table("case", "runs", "min", "max", "spread", "")
    for r in rows:
        table.add_row(
            r["case_id"],
            str(r["runs"]),
            f"{r['min']:.0%}",
            f"{r['max']:.0%}",
            f"{r['spread']:.0%}",
            "[yellow]flaky across runs[/]" if r["warn"] else "",
        )
    out.print(table)
    out.print(f"{len(warned)} of {len(rows)} cases vary more than {spread:.0%} across {len(summaries)} runs")
