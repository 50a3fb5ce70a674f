"""``agent-eval export``: a run in another tool's format (Inspect AI eval logs)."""

from __future__ import annotations

import json
from enum import StrEnum
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any

import typer

from agenteval.cli import DataDir, Server, app, connect, err, fail, run_async

_PAGE = 1000


class ExportFormat(StrEnum):
    inspect = "inspect"


@app.command()
def export(
    run_id: Annotated[str, typer.Argument(help="Run id.")],
    fmt: Annotated[
        ExportFormat, typer.Option("--format", "-f", help="inspect: an Inspect AI eval log (JSON).")
    ] = ExportFormat.inspect,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File to write (default: RUN_ID.json).")
    ] = None,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
) -> None:
    """Write a run with every transcript and grade in another tool's format.

    inspect: an Inspect AI eval log that inspect_ai.log.read_eval_log and `inspect view` read:
    the suite as the task, each case a sample, each trial an epoch, one score per grader
    and `passed`, with pass@k and pass^k in the results."""
    path = output or Path(f"{run_id}.json")  # a prefix names the file as given
    if path.suffix != ".json":
        fail(f"--output must end in .json (Inspect reads a log's format from its name), got {path}", 2)
    log = run_async(lambda: _inspect_log(server, data_dir, run_id))
    try:
        path.write_text(json.dumps(log, indent=1, ensure_ascii=False), encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror or exc}")
    samples = len(log["samples"])
    err.print(
        f"run {run_id}: {samples} samples written to {path} (Inspect eval log)",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )


async def _inspect_log(server: str | None, data_dir: Path, run_id: str) -> dict[str, Any]:
    from agenteval.contracts.errors import Conflict
    from agenteval.reports import ExportTrial, inspect_eval_log

    async with connect(server, data_dir) as client:
        run = await client.get_run(run_id)
        run_id = run.run_id  # the full id of a prefix
        if run.summary is None:
            raise Conflict(
                f"run {run_id} has no summary yet (status {run.status}): export it when it completes"
            )
        trials: list[Any] = []
        while True:
            page = await client.trials(run_id, limit=_PAGE, offset=len(trials))
            trials.extend(page)
            if len(page) < _PAGE:
                break
    exported = [
        ExportTrial(
            trial_id=t.trial_id,
            case_id=t.case_id,
            trial_index=t.trial_index,
            status=t.status or "ok",
            trace=t.trace.to_eval_dict() if t.trace is not None else {},
            passed=t.passed,
            grades=[g.model_dump() for g in t.grades],
        )
        for t in trials
    ]
    return inspect_eval_log(
        run.summary,
        exported,
        created_at=run.created_at.isoformat() if run.created_at else "",
        completed_at=run.completed_at.isoformat() if run.completed_at else "",
        status="cancelled" if run.status == "cancelled" else "success",
        version=_version(),
    )


def _version() -> str:
    try:
        return metadata.version("agenteval")
    except metadata.PackageNotFoundError:
        return ""
