"""``agent-eval webhooks``: where the runner's webhook deliveries went and how they ended."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from agenteval.cli import DataDir, JsonOut, Server, app, connect, out, print_json, run_async
from agenteval.cli.fit import Col, fit_table

webhooks_app = typer.Typer(
    help="Webhooks (AGENTEVAL_RUNNER_WEBHOOKS_FILE): signed POSTs when a run completes or regresses.",
    no_args_is_help=True,
)
app.add_typer(webhooks_app, name="webhooks")


@webhooks_app.command("deliveries")
def deliveries(
    run: Annotated[str, typer.Option("--run", help="Only deliveries about this run.")] = "",
    limit: Annotated[int, typer.Option(min=1, max=1000, help="At most this many, newest first.")] = 50,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """List webhook deliveries, newest first: event, URL, tries and how each ended."""
    from agenteval.v1 import runner_pb2

    async def go() -> list[Any]:
        async with connect(server, data_dir) as client:
            run_id = (await client.get_run(run)).run_id if run else ""  # a prefix names its run
            resp = await client._stubs.runs.ListWebhookDeliveries(
                runner_pb2.ListWebhookDeliveriesRequest(run_id=run_id, limit=limit)
            )
            return list(resp.deliveries)

    found = run_async(go)
    docs = [
        {
            "delivery_id": d.delivery_id,
            "event": d.event,
            "url": d.url,
            "run_id": d.run_id,
            "attempts": d.attempts,
            "status": d.status,
            "last_status_code": d.last_status_code,
            "last_error": d.last_error,
            "created_at": d.created_at,
            "updated_at": d.updated_at,
        }
        for d in found
    ]
    if json_out:
        print_json({"deliveries": docs})
        return
    if not docs:
        out.print("no webhook deliveries")
        return
    cols = [
        Col("run", "key"),
        Col("event", "key"),
        Col("status", "key"),
        Col("tries", "key", justify="right"),
        Col("url", "text", drop=1),
        Col("last error", "text", drop=0),
    ]
    rows = [
        [
            escape(d["run_id"]),
            d["event"],
            d["status"],
            str(d["attempts"]),
            escape(d["url"]),
            escape(d["last_error"]),
        ]
        for d in docs
    ]
    out.print(fit_table(cols, rows, out.width))
