"""Commands of ``agent-eval``: run, up, serve, runs, trials, show."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from agenteval.cli import DataDir, JsonOut, Server, app, connect, err, fail, out, print_json, run_async
from agenteval.cli.render import print_summary, summary_json

if TYPE_CHECKING:
    from agenteval.sdk import Client, RunInfo, RunSummary, TrialRecord

SUITE_FILE_SUFFIXES = (".yaml", ".yml", ".json")


def _stored_ref(suite: str) -> bool:
    """Whether ``suite`` names a stored suite rather than a file: a file that exists, a path
    or a suite file's suffix is a file."""
    from agenteval.suites import looks_like_ref

    if Path(suite).is_file() or "/" in suite or suite.lower().endswith(SUITE_FILE_SUFFIXES):
        return False
    return looks_like_ref(suite)


@app.command()
def run(
    suite: Annotated[
        str,
        typer.Argument(
            help="Suite file (YAML), or a stored suite: NAME (its current version) or NAME@VERSION."
        ),
    ],
    agent: Annotated[
        str | None, typer.Option("--agent", "-a", help="Agent spec, e.g. python:module:function.")
    ] = None,
    k: Annotated[int | None, typer.Option("-k", "--trials", min=1, max=1000, help="Trials per case.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the trials' random generators (0: random).")] = 0,
    concurrency: Annotated[int, typer.Option(min=0, help="Trials at once (0: default).")] = 0,
    timeout: Annotated[float | None, typer.Option(help="Per-trial timeout in seconds.")] = None,
    tag: Annotated[
        list[str] | None, typer.Option("--tag", "-t", help="Only cases with this tag (repeatable).")
    ] = None,
    agent_version: Annotated[str, typer.Option(help="Label of this agent version, for comparisons.")] = "",
    fail_under: Annotated[
        float | None, typer.Option(help="Exit 1 when the pass rate is below this (0..1).")
    ] = None,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Run a suite (a file or a stored one) against an agent, k trials per case, and print the results."""
    from agenteval.suites import SuiteError, load_suite

    suite_obj = None
    if not _stored_ref(suite):
        try:
            suite_obj = load_suite(suite)
        except SuiteError as exc:
            fail(str(exc), 2)
    if timeout is not None and timeout <= 0:
        fail("--timeout must be positive", 2)

    async def go() -> dict:
        async with connect(server, data_dir) as client:

            def submit() -> Awaitable[RunInfo]:
                options: dict[str, Any] = dict(
                    agent=agent or "",
                    k=k,
                    seed=seed,
                    concurrency=concurrency,
                    timeout_s=timeout or 0.0,
                    tags=tag or [],
                    agent_version=agent_version,
                )
                if suite_obj is None:
                    return client.submit_stored(suite, **options)
                return client.submit(suite_obj, **options)

            submitting = asyncio.ensure_future(submit())
            run_pb = None
            try:
                # Shielded: a Ctrl-C during the submit still learns the run's id, to cancel it.
                run_pb = await asyncio.shield(submitting)
                if suite_obj is None and not json_out:
                    err.print(
                        f"suite {run_pb.suite}@{run_pb.suite_version_number} ({run_pb.suite_version[:12]})",
                        highlight=False,
                    )
                summary = await _follow(client, run_pb.run_id, run_pb.trials_total, quiet=json_out)
            except asyncio.CancelledError:  # Ctrl-C or SIGTERM
                if run_pb is None:
                    with contextlib.suppress(Exception):
                        run_pb = await asyncio.wait_for(submitting, 10.0)
                if run_pb is not None:
                    await _interrupted(client, run_pb.run_id, embedded=server is None)
                raise
            return {"run": run_pb, "summary": summary}

    result = run_async(go)
    summary, run_pb = result["summary"], result["run"]
    if summary is None:
        fail(f"run {run_pb.run_id} ended without a summary")
    if json_out:
        doc = summary_json(summary)
        doc["suite_version"] = run_pb.suite_version
        doc["suite_version_number"] = run_pb.suite_version_number
        doc["run_tags"] = list(run_pb.tags)
        print_json(doc)
    else:
        print_summary(out, summary)
    if fail_under is not None and summary.pass_rate < fail_under:
        err.print(f"pass rate {summary.pass_rate:.3f} is below --fail-under {fail_under}")
        raise typer.Exit(1)


async def _interrupted(client: Any, run_id: str, embedded: bool) -> None:
    """A run whose command was interrupted: cancelled when the stack stops with the command."""
    if embedded:
        with contextlib.suppress(Exception):
            await client.cancel_run(run_id, timeout_s=5.0)
        err.print(f"run {run_id} cancelled")
    else:
        err.print(f"run {run_id} goes on; `agent-eval cancel {run_id}` stops it")


async def _follow(client: Client, run_id: str, total: int, quiet: bool) -> RunSummary | None:
    """Show a live progress bar until the run completes; return its summary."""
    from agenteval.contracts.pb import summary_from_pb
    from agenteval.v1 import runner_pb2

    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[passes]} passed"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=quiet or not err.is_terminal,
    )
    with progress:
        task = progress.add_task(f"run {run_id}", total=total, passes=0)
        async for ev in client.watch(run_id):
            progress.update(task, completed=ev.trials_graded, passes=ev.passes)
            if ev.type == runner_pb2.RUN_EVENT_TYPE_COMPLETED:
                return summary_from_pb(ev.summary)
            if ev.type == runner_pb2.RUN_EVENT_TYPE_CANCELLED and ev.HasField("summary"):
                return summary_from_pb(ev.summary)
            if ev.type == runner_pb2.RUN_EVENT_TYPE_FAILED:
                fail(f"run {run_id} failed: {ev.reason or 'no reason given'}")
    return await client.summary(run_id)


@app.command()
def up(
    data_dir: DataDir = Path(".agenteval"),
    address: Annotated[str, typer.Option(help="gRPC listen address.")] = "127.0.0.1:50051",
    metrics_port: Annotated[int | None, typer.Option(help="Serve Prometheus /metrics on this port.")] = None,
    http_address: Annotated[
        str,
        typer.Option(
            envvar="AGENTEVAL_HTTP_ADDRESS",
            help="Where the web dashboard and the HTTP API listen (host:port; 'off' for none).",
        ),
    ] = "127.0.0.1:8080",
) -> None:
    """Keep the embedded stack running for other clients (use --server ADDR with them) and serve
    the web dashboard."""
    from agenteval.cli.stack import EmbeddedStack

    async def go() -> None:
        stack = EmbeddedStack(data_dir, grpc_address=address, metrics_port=metrics_port)
        await stack.start()
        http = None
        if http_address != "off":
            from agenteval.gateway.web import create_app
            from agenteval.gateway.web.server import HttpServer
            from agenteval.runtime.host import check_exposure

            assert stack.common is not None
            try:
                check_exposure(http_address, stack.common)
                ca = stack.common.tls_ca or stack.common.tls_cert
                app = create_app(stack.target, stack.common.authenticator(), str(ca) if ca else None)
                http = HttpServer(app, http_address)
                await http.start()
            except BaseException:
                await stack.stop()
                raise
        metrics = (
            f", /metrics on :{stack.host.metrics_port}" if stack.host and stack.host.metrics_port else ""
        )
        access = (
            "callers need a token (AGENTEVAL_TOKENS_FILE)"
            if stack.common is not None and stack.common.tokens_file
            else "open: no tokens, so anyone who reaches the address may use it"
        )
        dashboard = f"dashboard {http.url}, " if http is not None else ""
        err.print(
            f"agenteval is up: {dashboard}gRPC {stack.target}, NATS {stack.nats.url}{metrics}, data in "
            f"{data_dir}; {access}. Ctrl-C stops."
        )
        try:
            assert stack.host is not None
            await stack.host.serve_forever()
        finally:
            if http is not None:
                await http.stop()
            await stack.stop()

    run_async(go)


@app.command()
def serve(
    service: Annotated[
        str,
        typer.Argument(
            help="runner, grader, metrics, transcript_store, eval_generator, suite_store, or gateway (the front door)."
        ),
    ],
    address: Annotated[
        str | None, typer.Option(help="gRPC listen address (default: the service's setting).")
    ] = None,
) -> None:
    """Run one service alone (distributed mode): NATS and the database come from AGENTEVAL_* settings."""
    from agenteval.cli.stack import SERVICES, component, grpc_address_of
    from agenteval.runtime.host import serve_main

    name = service.replace("-", "_")
    name = {"transcripts": "transcript_store", "suites": "suite_store"}.get(name, name)
    if name == "gateway":  # the front door: no bus, no database, only routes
        from agenteval.gateway.app import main as gateway_main

        gateway_main(address)
        return
    if name not in SERVICES:
        fail(f"unknown service {service!r}; services: {', '.join(SERVICES)}", 2)
    serve_main(lambda common: component(name, common), address or grpc_address_of(name))


@app.command()
def runs(
    suite: Annotated[str | None, typer.Option(help="Only runs of this suite.")] = None,
    agent_version: Annotated[str | None, typer.Option(help="Only runs of this agent version.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000, help="At most this many runs.")] = 20,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """List runs, newest first."""

    async def go() -> list[RunInfo]:
        async with connect(server, data_dir) as client:
            return await client.list_runs(suite=suite, agent_version=agent_version, limit=limit)

    found = run_async(go)
    rows: list[dict[str, Any]] = [
        {
            "run_id": r.run_id,
            "suite": r.suite,
            "agent_version": r.agent_version,
            "suite_version": r.suite_version,
            "suite_version_number": r.suite_version_number,
            "status": r.status,
            "trials": r.trials_total,
            "pass_rate": r.summary.pass_rate if r.summary is not None else None,
            "created_at": r.created_at.isoformat() if r.created_at else "",
        }
        for r in found
    ]
    if json_out:
        print_json({"runs": rows})
        return
    from agenteval.cli.fit import Col, fit_table

    def result(r: dict[str, Any]) -> str:  # the pass rate once there is one, else where it stands
        return r["status"] if r["pass_rate"] is None else f"{r['pass_rate'] * 100:.0f}%"

    cols = [
        Col("run", "key"),
        Col("suite", "key"),
        Col("agent version", "key"),
        Col("result", "key", justify="right"),
        Col("trials", "key", drop=2, justify="right"),
        Col("status", "key", drop=1),
        Col("created", "key", drop=0),
    ]
    table = fit_table(
        cols,
        [
            [
                r["run_id"],
                f"{r['suite']}@{r['suite_version_number']}" if r["suite_version_number"] else r["suite"],
                r["agent_version"],
                result(r),
                str(r["trials"]),
                r["status"],
                r["created_at"][:16].replace("T", " "),
            ]
            for r in rows
        ],
        out.width,
    )
    out.print(table)


@app.command()
def show(
    run_id: Annotated[str, typer.Argument(help="Run id.")],
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Show a run's result table."""

    async def go() -> RunSummary | None:
        async with connect(server, data_dir) as client:
            return await client.summary(run_id)

    summary = run_async(go)
    if summary is None:
        fail(f"run {run_id} has no summary yet")
    if json_out:
        print_json(summary_json(summary))
    else:
        print_summary(out, summary)


@app.command()
def trials(
    run_id: Annotated[str, typer.Argument(help="Run id.")],
    case: Annotated[str, typer.Option(help="Only this case.")] = "",
    transcript: Annotated[
        bool,
        typer.Option(
            "--transcript",
            help="Print each trial's transcript as text: messages, LLM and tool calls, verdicts.",
        ),
    ] = False,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """List the stored transcripts of a run, with each grader's verdict and explanation.

    RUN_ID may be an unambiguous prefix of the id."""
    from rich.markup import escape

    async def go() -> tuple[str, list[TrialRecord]]:
        async with connect(server, data_dir) as client:
            found = await client.trials(run_id, case_id=case)
            if found:
                return run_id, found
            run = await client.get_run(run_id)  # unknown: NotFound; a prefix: the run it begins
            if run.run_id == run_id:
                return run_id, []
            return run.run_id, await client.trials(run.run_id, case_id=case)

    full_id, found = run_async(go)
    if case and not found:
        fail(f"run {full_id} has no trials of case {case!r}", 2)
    if transcript and not json_out:
        from agenteval.cli.transcript import print_transcript

        for t in found:
            print_transcript(out, t)
        return
    docs: list[dict[str, Any]] = [
        {
            "trial_id": t.trial_id,
            "case_id": t.case_id,
            "trial_index": t.trial_index,
            "status": t.status or "unknown",
            "latency_ms": t.latency_ms,
            # None until the trial is graded
            "passed": t.passed,
            "score": t.score,
            "grades": [g.model_dump(mode="json") for g in t.grades],
            "trace": t.trace.model_dump(mode="json") if t.trace is not None else None,
        }
        for t in found
    ]
    if json_out:
        print_json({"trials": docs})
        return
    from agenteval.cli.fit import Col, fit_table

    cols = [
        Col("trial", "key"),
        Col("status", "key", drop=3),
        Col("verdict", "key"),
        Col("score", "key", drop=2, justify="right"),
        Col("ms", "key", drop=1, justify="right"),
        Col("tools", "text", drop=4),
        Col("output", "text", drop=0),
    ]
    rows = []
    for d in docs:
        trace = d["trace"] or {}
        tools = ", ".join(s.get("name") or "" for s in trace.get("steps", []) if s.get("type") == "tool_call")
        rows.append(
            [
                escape(d["trial_id"]),
                d["status"],
                _verdict(d["passed"]),
                "" if d["score"] is None else f"{d['score']:.2f}",
                f"{d['latency_ms']:.1f}",
                escape(tools),
                escape((trace.get("output") or "")[:80]),
            ]
        )
    table = fit_table(cols, rows, out.width)
    out.print(table)
    # Explanations are printed in full, not squeezed into a table cell: they say why a score is what it is.
    for d in docs:
        if not d["grades"]:
            continue
        out.print(f"[bold]{escape(d['trial_id'])}[/] {_verdict(d['passed'])}", highlight=False)
        for g in d["grades"]:
            params = f" {escape(json.dumps(g['params'], sort_keys=True))}" if g["params"] else ""
            line = f"  {_verdict(g['passed'])} {escape(g['name'])}{params} {g['score']:.2f}: {escape(g['explanation'])}"
            if g["error"]:
                line += f" [red](error: {escape(g['error'])})[/]"
            out.print(line, highlight=False, soft_wrap=True)


def _verdict(passed: bool | None) -> str:
    if passed is None:
        return "[dim]not graded[/]"
    return "[green]pass[/]" if passed else "[red]fail[/]"


_ = asyncio  # the commands above run through run_async
