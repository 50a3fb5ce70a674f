"""``agent-eval cancel``: stop a run that is going on."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agenteval.cli import DataDir, JsonOut, Server, app, connect, err, print_json, run_async


@app.command()
def cancel(
    run_id: Annotated[str, typer.Argument(help="The run to cancel.")],
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Cancel a run: its trials that have not started are skipped, and the run completes with
    what finished. A run that already ended is left as it is."""

    async def go() -> dict[str, str]:
        async with connect(server, data_dir) as client:
            before = await client.get_run(run_id)
            after = await client.cancel_run(run_id)
            return {
                "run_id": after.run_id,
                "status": after.status,
                "was": before.status,
            }

    result = run_async(go)
    if json_out:
        print_json(result)
    elif result["was"] in ("pending", "running"):
        err.print(f"run {result['run_id']} cancelled: trials not yet started are skipped")
    else:
        err.print(f"run {result['run_id']} had already ended ({result['was']}); nothing to cancel")
