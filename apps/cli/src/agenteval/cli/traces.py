"""``agent-eval traces ...``: import labeled traces into datasets, list and label them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from agenteval.cli import DataDir, JsonOut, Server, app, connect, fail, out, print_json, run_async

traces_app = typer.Typer(help="Labeled traces: import, list, label.", no_args_is_help=True)
app.add_typer(traces_app, name="traces")

CHUNK = 1024 * 1024


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
        str, typer.Option("--format", help="auto, jsonl, otlp, mlflow, langfuse or generic.")
    ] = "auto",
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Import traces (with their labels) into a dataset; unreadable lines are reported by number."""
    from agenteval.v1 import transcripts_pb2

    if not file.exists():
        fail(f"{file}: no such file", 2)
    if fmt not in ("auto", "jsonl", "otlp", "mlflow", "langfuse", "generic"):
        fail(f"unknown format {fmt!r}: use auto, jsonl, otlp, mlflow, langfuse or generic", 2)

    async def chunks() -> AsyncIterator[transcripts_pb2.ImportTracesRequest]:
        with file.open("rb") as fh:
            first = True
            while True:
                data = fh.read(CHUNK)
                if not data and not first:
                    return
                yield transcripts_pb2.ImportTracesRequest(
                    dataset=dataset if first else "", format=fmt if first else "", chunk=data
                )
                first = False
                if not data:
                    return

    async def go() -> Any:
        async with connect(server, data_dir) as client:
            return await client.transcripts.ImportTraces(chunks())

    resp = run_async(go)
    doc = {
        "dataset": resp.dataset,
        "dataset_version": resp.dataset_version,
        "format": resp.format,
        "imported": resp.imported,
        "duplicates": resp.duplicates,
        "problems": [{"line": p.line, "unit": p.unit or "line", "reason": p.reason} for p in resp.problems],
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
            where = f"{p.unit or 'line'} {p.line}" if p.line else "file"
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
    dataset: Annotated[str, typer.Option("--dataset", "-d")],
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
    limit: int = 20,
    offset: int = 0,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """List a dataset's traces (summaries)."""
    from agenteval.v1 import transcripts_pb2

    async def go() -> Any:
        async with connect(server, data_dir) as client:
            return await client.transcripts.ListTraces(
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
    trace_id: Annotated[str, typer.Argument()],
    label: Annotated[
        str,
        typer.Argument(
            help="positive or negative, or a synonym: good/bad, thumbs_up/thumbs_down, true/false, 1/0."
        ),
    ],
    dataset: Annotated[str, typer.Option("--dataset", "-d")],
    comment: Annotated[str, typer.Option()] = "",
    rater: Annotated[str, typer.Option()] = "",
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Set or change a trace's label."""
    from agenteval.v1 import transcripts_pb2

    async def go() -> Any:
        async with connect(server, data_dir) as client:
            return await client.transcripts.LabelTrace(
                transcripts_pb2.LabelTraceRequest(
                    trace_id=trace_id, dataset=dataset, label=label, comment=comment, rater=rater
                )
            )

    resp = run_async(go)
    if json_out:
        t = resp.trace
        print_json(
            {
                "trace_id": t.trace_id,
                "dataset": dataset,
                "dataset_version": t.dataset_version,
                "label": t.label,
                "comment": t.comment or None,
                "rater": t.rater or None,
            }
        )
        return
    out.print(f"{resp.trace.trace_id}: {resp.trace.label} (dataset {dataset} v{resp.trace.dataset_version})")
