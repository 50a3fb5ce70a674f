"""``agent-eval flakiness``: which cases' pass rates move across repeated runs of one version
beyond binomial noise, and which are non-deterministic within a run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from agenteval.cli import DataDir, JsonOut, Server, app, connect, fail, out, print_json, run_async
from agenteval.cli.fit import Col, fit_or_list

TEST = (
    "exact conditional test of equal pass rates across runs (Pearson chi-square), discrete Holm across cases"
)


@app.command()
def flakiness(
    suite: Annotated[str, typer.Option(help="Suite name.")],
    agent_version: Annotated[str, typer.Option(help="Agent version whose repeated runs are compared.")],
    runs: Annotated[int, typer.Option(min=2, max=100, help="How many of its newest completed runs.")] = 5,
    alpha: Annotated[float, typer.Option(help="Chance of any false warning over the suite (0..1).")] = 0.05,
    spread: Annotated[
        float, typer.Option(help="Warn only when a case's pass rate also varies by more than this (0..1).")
    ] = 0.20,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Flakiness across repeated runs of one version: a case is warned about when its pass rate
    moves between runs by more than binomial noise explains (an exact test, corrected across
    cases) and by more than --spread. Cases whose trials disagree within a run are listed as
    non-deterministic, which is not a warning."""
    from agenteval.stats import flakiness_across_runs

    if not 0.0 < alpha < 1.0:
        fail(f"--alpha must be between 0 and 1 (exclusive), got {alpha}", 2)
    if not 0.0 <= spread < 1.0:
        fail(f"--spread must be in [0, 1), got {spread}", 2)

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
    counts: dict[str, list[tuple[int, int]]] = {}
    for s in summaries:
        for c in s.cases:
            if c.trials > 0:
                counts.setdefault(c.case_id, []).append((c.passes, c.trials))
    result = flakiness_across_runs(counts, alpha=alpha, spread=spread)
    rows: list[dict[str, Any]] = [
        {
            "case_id": cid,
            "runs": r.runs,
            "passes": r.passes,
            "trials": r.trials,
            "pooled_rate": r.pooled_rate,
            "min": r.min,
            "max": r.max,
            "spread": r.spread,
            "p_value": r.p_value,
            "adjusted_p_value": r.adjusted_p_value,
            "exact": r.exact,
            "across_runs": r.across_runs,
            "mixed_runs": r.mixed_runs,
            "within_run": r.within_run,
            "warn": r.across_runs,
        }
        for cid, r in sorted(result.items(), key=lambda kv: (kv[1].adjusted_p_value, -kv[1].spread))
    ]
    warned = [r for r in rows if r["warn"]]
    within = [r for r in rows if r["within_run"]]
    if json_out:
        print_json(
            {
                "suite": suite,
                "agent_version": agent_version,
                "runs": [s.run_id for s in summaries],
                "alpha": alpha,
                "spread_threshold": spread,
                "test": TEST,
                "cases": rows,
                "warnings": len(warned),
                "within_run": len(within),
            }
        )
        return
    cols = [
        Col("case", kind="key"),
        Col("runs", justify="right", drop=3),
        Col("passes per run", drop=1),
        Col("min", justify="right", drop=2),
        Col("max", justify="right", drop=2),
        Col("adj. p", justify="right"),
        Col("flakiness"),
    ]
    cells = [
        [
            escape(str(r["case_id"])),
            str(r["runs"]),
            " ".join(f"{x}/{n}" for x, n in zip(r["passes"], r["trials"], strict=True)),
            f"{r['min']:.0%}",
            f"{r['max']:.0%}",
            f"{r['adjusted_p_value']:.3g}",
            "[yellow]flaky across runs[/]"
            if r["warn"]
            else "non-deterministic"
            if r["within_run"]
            else "steady",
        ]
        for r in rows
    ]
    out.print(fit_or_list(cols, cells, out.width))
    out.print(
        f"{len(warned)} of {len(rows)} cases flaky across {len(summaries)} runs (adjusted p < {alpha:g} "
        f"and spread > {spread:.0%}); {len(within)} non-deterministic within a run",
        highlight=False,
    )
    out.print(f"[dim]{escape(TEST)}[/]", highlight=False)
