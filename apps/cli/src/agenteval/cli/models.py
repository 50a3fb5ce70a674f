"""``agent-eval models``: one suite against several agents (models), one table side by side."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from agenteval.cli import DataDir, JsonOut, Server, app, connect, fail, out, print_json, run_async
from agenteval.cli.fit import Col, fit_table
from agenteval.cli.render import summary_json
from agenteval.contracts.summary import RunSummary


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


@app.command()
def models(
    suite: Annotated[str, typer.Argument(help="Suite file (YAML), or a stored suite: NAME or NAME@VERSION.")],
    agent: Annotated[
        list[str],
        typer.Option(
            "--agent", "-a", help="An agent to compare, e.g. anthropic:claude-sonnet-4-5 (repeat for each)."
        ),
    ],
    k: Annotated[int | None, typer.Option("-k", "--trials", min=1, max=1000, help="Trials per case.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the trials' random generators (0: random).")] = 0,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Run one suite against several agents (a model comparison) and print them side by side:
    per case the passes of each, then pass rate, pass@k, tokens, cost and p50 latency."""
    from agenteval.cli.commands import _stored_ref
    from agenteval.suites import SuiteError, load_suite

    if len(agent) < 2:
        fail("give two agents or more to compare (--agent A --agent B)", 2)
    if len(set(agent)) != len(agent):
        fail("an agent is given twice", 2)
    suite_obj = None
    if not _stored_ref(suite):
        try:
            suite_obj = load_suite(suite)
        except SuiteError as exc:
            fail(str(exc), 2)

    async def go() -> list[RunSummary]:
        async with connect(server, data_dir) as client:
            runs = []
            for spec in agent:  # each run is labeled with its agent, so compare can name it
                options: dict[str, Any] = {"agent": spec, "k": k, "seed": seed, "agent_version": spec}
                run = await (
                    client.submit(suite_obj, **options)
                    if suite_obj
                    else client.submit_stored(suite, **options)
                )
                runs.append(run)
            done = await asyncio.gather(*(client.wait(r.run_id) for r in runs))
        summaries = []
        for run in done:
            if run.summary is None:
                raise RuntimeError(f"run {run.run_id} ({run.agent}) ended {run.status} without results")
            summaries.append(run.summary)
        return summaries

    summaries = run_async(go)
    if json_out:
        print_json({"runs": [{"agent": s.agent, **summary_json(s)} for s in summaries]})
        return
    print_side_by_side(summaries)


def print_side_by_side(summaries: list[RunSummary]) -> None:
    from agenteval.reports import cost_text

    k = max(s.k for s in summaries)
    names = [s.agent for s in summaries]
    cases = list(dict.fromkeys(c.case_id for s in summaries for c in s.cases))
    by_case = [{c.case_id: c for c in s.cases} for s in summaries]
    cols = [Col("case", "key"), *(Col(n, "key", justify="right") for n in names)]
    rows = []
    for case in cases:
        cells = []
        for found in by_case:
            c = found.get(case)
            cells.append("" if c is None else f"{c.passes}/{c.trials}")
        rows.append([escape(case), *cells])
    totals: list[tuple[str, Any]] = [
        ("pass rate", lambda s: _pct(s.pass_rate)),
        (f"pass@{k}", lambda s: _pct(s.pass_at_k.get(k, 0.0))),
        (f"pass^{k}", lambda s: _pct(s.pass_pow_k.get(k, 0.0))),
        ("tokens in/out", lambda s: f"{s.input_tokens}/{s.output_tokens}"),
        ("cost", lambda s: cost_text(s.cost_usd, s.cost_unknown_trials)),
        ("p50 latency", lambda s: f"{s.latency.p50_ms:.0f} ms"),
        ("errors", lambda s: str(s.errors + s.timeouts)),
    ]
    rows += [[f"[bold]{label}[/]", *(value(s) for s in summaries)] for label, value in totals]
    table = fit_table(cols, rows, out.width)
    table.title = f"{escape(summaries[0].suite)}: {len(summaries)} agents, {k} trials per case"
    table.title_justify = "left"
    out.print(table)
