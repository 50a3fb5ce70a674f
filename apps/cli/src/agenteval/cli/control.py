"""``agent-eval cancel`` (stop a run that is going on) and ``agent-eval dead-letters``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from agenteval.cli import DataDir, JsonOut, Server, app, connect, err, out, print_json, run_async


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


@app.command("dead-letters")
def dead_letters(
    handler: Annotated[str, typer.Option(help="Only those of this handler, e.g. metrics-trial-graded.")] = "",
    limit: Annotated[int, typer.Option(min=1, help="At most this many, the newest.")] = 100,
    replay: Annotated[
        int | None, typer.Option(help="Publish this dead letter (its seq) again for its handler to retry.")
    ] = None,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Bus messages a service gave up on after the delivery limit, with why; --replay SEQ
    publishes one again (after a fix) as a new message."""
    from google.protobuf.json_format import MessageToDict

    from agenteval.v1 import operations_pb2, operations_pb2_grpc

    async def go() -> list[Any]:
        async with connect(server, data_dir) as client:
            stub = operations_pb2_grpc.OperationsServiceStub(client._channel("RUNNER"))
            if replay is not None:
                done = await stub.ReplayDeadLetter(operations_pb2.ReplayDeadLetterRequest(seq=replay))
                return [done.dead_letter]
            resp = await stub.ListDeadLetters(
                operations_pb2.ListDeadLettersRequest(handler=handler, limit=limit)
            )
            return list(resp.dead_letters)

    letters = run_async(go)
    if json_out:
        print_json([MessageToDict(d, preserving_proto_field_name=True) for d in letters])
        return
    if replay is not None:
        err.print(f"dead letter {replay} published again on {letters[0].subject} for {letters[0].handler}")
        return
    if not letters:
        err.print("no dead letters: every bus message was handled")
        return
    for d in letters:
        recorded = "recorded as data" if d.recorded else "NOT recorded"
        out.print(
            f"{d.seq}  {d.occurred_at[:19]}  {d.handler}  {d.deliveries} tries, {recorded}\n"
            f"    {d.error}  (error id {d.error_id})",
            highlight=False,
            markup=False,
        )
