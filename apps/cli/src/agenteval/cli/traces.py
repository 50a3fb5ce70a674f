"""``agent-eval traces ...``: import labeled traces into datasets, list and label them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from agenteval.cli import DataDir, JsonOut, Server, app, connect, fail, out, print_json, run_async

if TYPE_CHECKING:
    from agenteval.sdk import ImportReport, TraceInfo

traces_app = typer.Typer(help="Labeled traces: import, list, label.", no_args_is_help=True)
app.add_typer(traces_app, name="traces")


@traces_app.command("import")
def import_(
    file: Annotated[
        Path,
        typer.Argument(
            help="JSON Lines (ours), OTLP JSON, MLflow traces, a Langfuse export or generic traces "
            "(llm/tool/user steps: bare, wrapped, steps as JSON text, stored rows)."
        ),
    ],
    dataset: Annotated[str, typer.Option("--dataset", "-d", help="Dataset name.")],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="auto, jsonl, otlp, mlflow, langfuse, generic or inspect (Inspect AI .eval/.json logs).",
        ),
    ] = "auto",
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Import traces (with their labels) into a dataset; unreadable lines are reported by number."""
    if not file.exists():
        fail(f"{file}: no such file", 2)
    if fmt not in ("auto", "jsonl", "otlp", "mlflow", "langfuse", "generic", "inspect"):
        fail(f"unknown format {fmt!r}: use auto, jsonl, otlp, mlflow, langfuse, generic or inspect", 2)

    async def go() -> ImportReport:
        async with connect(server, data_dir) as client:
            return await client.import_traces(dataset, file, format=fmt)

    resp = run_async(go)
    doc = {
        "dataset": resp.dataset,
        "dataset_version": resp.dataset_version,
        "format": resp.format,
        "imported": resp.imported,
        "duplicates": resp.duplicates,
        "problems": [{"line": p.line, "unit": p.unit, "reason": p.reason} for p in resp.problems],
    }
    if json_out:
        print_json(doc)
    else:
        out.print(
            f"imported {resp.imported} traces into {resp.dataset} (now version {resp.dataset_version}, "
            f"format {resp.format}); {resp.duplicates} already there"
        )
        for p in resp.problems[:50]:
            # A line of JSON Lines, a record of one JSON document, or the whole file.
            where = f"{p.unit} {p.line}" if p.line else "file"
            out.print(f"[yellow]{where}:[/] {p.reason}", highlight=False)
        if len(resp.problems) > 50:
            out.print(f"... and {len(resp.problems) - 50} more problems (use --json for all)")
    # Not one trace read (a wrong --format, a broken or empty file) is a failed import, so a
    # script does not go on with a dataset that is empty. Duplicates were read: re-importing is fine.
    if resp.problems and resp.imported == 0 and resp.duplicates == 0:
        n = len(resp.problems)
        hint = f"; is --format {fmt} right?" if fmt != "auto" else ""
        fail(f"nothing imported: not one trace in {file} could be read ({n} problem{'s'[: n - 1]}{hint})")


@traces_app.command("list")
def list_(
    dataset: Annotated[str, typer.Option("--dataset", "-d", help="The dataset to list.")],
    label: Annotated[
        str | None,
        typer.Option(
            "--label", "--rating", help="positive or negative (or good/bad, thumbs_up/thumbs_down ...)."
        ),
    ] = None,
    agent: Annotated[
        str | None,
        typer.Option("--agent", help="Only traces from this agent (the agent_id, agent or source imported)."),
    ] = None,
    limit: Annotated[int, typer.Option(help="At most this many traces.")] = 20,
    offset: Annotated[int, typer.Option(help="Skip this many first (paging).")] = 0,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """List a dataset's traces (summaries)."""
    from agenteval.v1 import transcripts_pb2

    async def go() -> Any:
        async with connect(server, data_dir) as client:
            # The raw call, for the total over all pages (the typed client returns the page).
            return await client._stubs.transcripts.ListTraces(
                transcripts_pb2.ListTracesRequest(
                    dataset=dataset, label=label or "", limit=limit, offset=offset, agent=agent or ""
                )
            )

    resp = run_async(go)
    rows = [
        {
            "trace_id": t.trace_id,
            "label": t.label or None,
            "steps": t.step_count,
            "summary": t.summary,
            "comment": t.comment or None,
        }
        for t in resp.traces
    ]
    if json_out:
        print_json({"dataset": dataset, "agent": agent, "total": resp.total, "traces": rows})
        return
    table = Table("trace", "label", "steps", "output")
    for r in rows:
        table.add_row(r["trace_id"], r["label"] or "", str(r["steps"]), r["summary"][:80])
    out.print(table)
    out.print(f"{len(rows)} of {resp.total}")


@traces_app.command("label")
def label_(
    trace_id: Annotated[str, typer.Argument(help="The trace to label.")],
    label: Annotated[
        str,
        typer.Argument(
            help="positive or negative, or a synonym: good/bad, thumbs_up/thumbs_down, true/false, 1/0."
        ),
    ],
    dataset: Annotated[str, typer.Option("--dataset", "-d", help="The dataset the trace is in.")],
    comment: Annotated[str, typer.Option(help="Why this label (kept with it).")] = "",
    rater: Annotated[str, typer.Option(help="Who labeled it.")] = "",
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Set or change a trace's label."""

    async def go() -> TraceInfo:
        async with connect(server, data_dir) as client:
            return await client.label_trace(trace_id, label, dataset=dataset, comment=comment, rater=rater)

    t = run_async(go)
    if json_out:
        print_json(
            {
                "trace_id": t.trace_id,
                "dataset": dataset,
                "dataset_version": t.dataset_version,
                "label": t.label,
                "comment": t.comment,
                "rater": t.rater,
            }
        )
        return
    out.print(f"{t.trace_id}: {t.label} (dataset {dataset} v{t.dataset_version})")
