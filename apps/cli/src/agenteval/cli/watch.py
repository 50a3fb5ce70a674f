"""``agent-eval watch``: a run's results as they arrive (or every run of a suite)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from agenteval.cli import DataDir, JsonOut, Server, app, connect, err, fail, out, run_async
from agenteval.v1 import runner_pb2

_STATUS = {1: "ok", 2: "error", 3: "timeout"}
_KIND = {
    runner_pb2.RUN_EVENT_TYPE_SUBMITTED: "submitted",
    runner_pb2.RUN_EVENT_TYPE_TRIALS: "trials",
    runner_pb2.RUN_EVENT_TYPE_COMPLETED: "completed",
    runner_pb2.RUN_EVENT_TYPE_CANCELLED: "cancelled",
    runner_pb2.RUN_EVENT_TYPE_FAILED: "failed",
}


def trial_json(ev: runner_pb2.WatchRunResponse, t: runner_pb2.TrialResult) -> dict[str, Any]:
    """One trial of a result stream as a JSON line (``watch --json``)."""
    doc: dict[str, Any] = {
        "event": "trial",
        "seq": ev.seq,
        "run_id": ev.run_id,
        "trial_id": t.trial_id,
        "case_id": t.case_id,
        "trial_index": t.trial_index,
        "status": _STATUS.get(t.status, "unknown"),
        "passed": t.passed,
        "score": t.score,
        "latency_ms": t.latency_ms,
        "input_tokens": t.input_tokens,
        "output_tokens": t.output_tokens,
        "cost_usd": t.cost_usd,
        "cost_unknown": t.cost_unknown,
        "tags": list(t.tags),
        "grades": [
            {
                "name": g.name,
                "params": json.loads(g.params_json) if g.params_json else {},
                "score": g.score,
                "passed": g.passed,
                "explanation": g.explanation,
                "error": g.error or None,
            }
            for g in t.grades
        ],
    }
    if t.error_code:
        doc["error"] = {"code": t.error_code, "message": t.error_message}
    return doc


def run_event_json(ev: runner_pb2.WatchRunResponse) -> dict[str, Any]:
    """A run-level step (submitted, completed, cancelled, failed) as a JSON line."""
    from agenteval.cli.render import summary_json
    from agenteval.contracts.pb import summary_from_pb

    doc: dict[str, Any] = {
        "event": _KIND.get(ev.type, "unknown"),
        "seq": ev.seq,
        "run_id": ev.run_id,
        "suite": ev.suite,
        "agent_version": ev.agent_version,
        "trials_total": ev.trials_total,
        "trials_graded": ev.trials_graded,
        "passes": ev.passes,
    }
    if ev.reason:
        doc["reason"] = ev.reason
    if ev.HasField("summary"):
        doc["summary"] = summary_json(summary_from_pb(ev.summary))
    return doc


def _trial_line(ev: runner_pb2.WatchRunResponse, t: runner_pb2.TrialResult, many_runs: bool) -> str:
    status = _STATUS.get(t.status, "?")
    verdict = (
        "[green]PASS[/]" if t.passed else ("[red]FAIL[/]" if status == "ok" else f"[red]{status.upper()}[/]")
    )
    why = ""
    if t.error_code:
        why = f"  {t.error_code}: {t.error_message}"
    else:
        failed = [g for g in t.grades if not g.passed]
        if failed:
            why = f"  {failed[0].name}: {failed[0].error or failed[0].explanation}"
    who = f"{ev.run_id} " if many_runs else ""
    cost = f"${t.cost_usd:.4f}"
    if t.cost_unknown:  # tokens no price could be put on: never shown as free
        cost = "cost unknown" if t.cost_usd == 0 else f"{cost} + cost unknown"
    return (
        f"{who}{t.case_id} #{t.trial_index}  {verdict}  score {t.score:.2f}  "
        f"{t.latency_ms:,.0f} ms  {cost}{why}"
    )


def show(ev: runner_pb2.WatchRunResponse, as_json: bool, many_runs: bool = False) -> None:
    """Print one result-stream message: a line per trial, a line per run-level step."""
    if as_json:
        lines = [trial_json(ev, t) for t in ev.trials]
        if ev.type != runner_pb2.RUN_EVENT_TYPE_TRIALS:
            lines.append(run_event_json(ev))
        for doc in lines:
            sys.stdout.write(json.dumps(doc, default=str) + "\n")
        sys.stdout.flush()
        return
    for t in ev.trials:
        out.print(_trial_line(ev, t, many_runs), highlight=False, overflow="fold")
    kind = _KIND.get(ev.type, "")
    if kind == "submitted":
        out.print(f"run {ev.run_id} ({ev.suite}): {ev.trials_total} trials", highlight=False)
    elif kind in ("completed", "failed", "cancelled"):
        rate = f", pass rate {ev.passes / ev.trials_graded:.1%}" if ev.trials_graded else ""
        reason = f": {ev.reason}" if ev.reason else ""
        out.print(
            f"run {ev.run_id} {kind}{reason} ({ev.passes}/{ev.trials_graded} passed{rate})",
            highlight=False,
        )


@app.command()
def watch(
    run_id: Annotated[
        str | None, typer.Argument(help="The run to follow; without it, every run matching the filters.")
    ] = None,
    suite: Annotated[str | None, typer.Option(help="Follow every run of this suite.")] = None,
    agent_version: Annotated[str | None, typer.Option(help="Follow every run of this agent version.")] = None,
    after: Annotated[
        int, typer.Option(help="Resume after this sequence number (the seq of the last line seen).")
    ] = 0,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Print results as they arrive: one line per graded trial (one JSON line with --json).

    With a run id, until the run ends (a finished run is replayed from the start); with
    --suite / --agent-version instead, every matching run from now on, until Ctrl-C."""
    if run_id is None and suite is None and agent_version is None:
        fail("give a run id, or --suite / --agent-version to follow every matching run", 2)
    if run_id is not None and (suite or agent_version):
        fail("give a run id or filters, not both", 2)
    if after < 0:
        fail("--after must be 0 or more", 2)

    async def go() -> None:
        async with connect(server, data_dir) as client:
            if run_id is not None:
                async for ev in client.watch(run_id, after=after):
                    show(ev, json_out)
            else:
                if not json_out:
                    err.print("following runs; Ctrl-C stops")
                async for ev in client.watch_runs(
                    suite=suite or "", agent_version=agent_version or "", after=after
                ):
                    show(ev, json_out, many_runs=True)

    run_async(go)
