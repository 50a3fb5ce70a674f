"""``agent-eval evals generate|jobs|watch|cancel|promote``: generation as a job in the eval generator.

``generate`` queues a job and watches it; the job runs in the service whether anyone watches
or not, so a watch that loses its connection resumes from the last event it showed. The exit
code says whether ``eval:NAME`` got a version that reached the target: 0 yes; 1 when the result
is only a candidate (or the job failed or was cancelled); 2 for bad arguments.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, get_args

import typer
from rich import box
from rich.table import Table

from agenteval.cli import DataDir, JsonOut, Server, connect, err, fail, out, print_json, run_async
from agenteval.cli.evals import _eval_doc, evals_app, usage_doc, usage_line

if TYPE_CHECKING:
    from agenteval.sdk import Client, EvalInfo, GenerationEvent, GenerationJob

_STYLES = {"warning": "yellow", "failed": "red", "cancelled": "red", "candidate": "cyan", "saved": "green"}


def _time(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def _job_doc(job: GenerationJob) -> dict[str, Any]:
    r = job.request
    return {
        "job_id": job.job_id,
        "name": r.name,
        "dataset": r.dataset,
        "method": r.method,
        "target_accuracy": r.target_accuracy,
        "status": job.status,
        "outcome": job.outcome,
        "eval_version": job.eval_version or None,
        "train_accuracy": job.train_accuracy if job.outcome else None,
        "holdout_accuracy": job.holdout_accuracy if job.outcome else None,
        "error": job.error,
        "error_code": job.error_code,
        "runs": job.runs,
        "last_sequence": job.last_sequence,
        "usage": usage_doc(job.usage),
        "created_at": _time(job.created_at) or "",
        "started_at": _time(job.started_at),
        "finished_at": _time(job.finished_at),
    }


def _event_doc(ev: GenerationEvent) -> dict[str, Any]:
    return {"sequence": ev.sequence, "type": ev.type, "message": ev.message, "accuracy": ev.accuracy or None}


async def _follow(
    client: Client, job_id: str, after: int, quiet: bool
) -> tuple[GenerationJob, list[dict[str, Any]], EvalInfo | None]:
    """Watch a job to its end (the client resumes a broken connection); (job, events, last eval)."""
    events: list[dict[str, Any]] = []
    job: GenerationJob | None = None
    saved: EvalInfo | None = None
    async for ev, latest in client.watch_generation_job(job_id, after):
        job = latest
        events.append(_event_doc(ev))
        if ev.eval is not None:
            saved = ev.eval
        if not quiet and ev.type not in ("saved", "kept"):  # the summary at the end says it
            style = _STYLES.get(ev.type, "dim")
            out.print(f"[{style}]{ev.type:>12}[/] {ev.message}", highlight=False)
    if job is None:  # a job that ended before with no event after `after`
        job = await client.get_generation_job(job_id)
    return job, events, saved


async def _current_version(client: Client, name: str) -> int | None:
    from agenteval.sdk import NotFound

    try:
        return (await client.get_eval(name)).version
    except NotFound:
        return None


def _finish(
    job: GenerationJob,
    events: list[dict[str, Any]],
    saved: EvalInfo | None,
    current: int | None,
    json_out: bool,
) -> None:
    """Print how the job ended and exit with its code."""
    doc = _job_doc(job)
    name, target = job.request.name, job.request.target_accuracy
    if json_out:
        print_json(
            {
                "job": doc,
                "eval": _eval_doc(saved) if saved is not None else None,
                "current_version": current,
                "events": events,
            }
        )
    if job.status == "failed":
        code = 2 if job.error_code in ("INVALID_ARGUMENT", "NOT_FOUND") else 1
        fail(f"generation job {job.job_id} failed: {job.error}", code)
    if job.status == "cancelled":
        fail(f"generation job {job.job_id} was cancelled; nothing was saved")
    if job.status != "done":  # only when the watch ended early
        fail(f"generation job {job.job_id} is {job.status}")
    resolves = f"eval:{name} resolves to v{current}" if current else f"eval:{name} resolves to no version yet"
    ok = job.outcome == "promoted" or (
        job.outcome == "kept"
        and current == job.eval_version
        and min(job.train_accuracy, job.holdout_accuracy) >= target
    )
    if not json_out:
        accuracies = f"training {job.train_accuracy:.1%}, held-out {job.holdout_accuracy:.1%}"
        generator = f" (generator: {saved.generator})" if saved is not None else ""
        if job.outcome == "promoted":
            out.print(f"saved [bold]{name}[/] v{job.eval_version}: {accuracies}{generator}; {resolves}")
        elif job.outcome == "candidate":
            out.print(
                f"[yellow]saved {name} v{job.eval_version} as a CANDIDATE[/]: {accuracies}, below the "
                f"target of {target:.0%}{generator}. {resolves}; to use it anyway: "
                f"agent-eval evals promote {name}@{job.eval_version}",
                highlight=False,
            )
        else:
            out.print(
                f"kept {name} v{job.eval_version}: no candidate did better ({accuracies} on this split); {resolves}"
            )
        out.print(f"[dim]{usage_line(job.usage)}[/]", highlight=False)
    if not ok:
        raise typer.Exit(1)


@evals_app.command("generate")
def generate(
    name: Annotated[str, typer.Argument(help="Eval name (letters, digits, _).")],
    dataset: Annotated[str, typer.Option("--dataset", "-d", help="Dataset of labeled traces.")],
    method: Annotated[
        str, typer.Option(help="auto (Claude with a key, else the synthesizer), llm, synthesizer.")
    ] = "auto",
    fallback: Annotated[
        bool,
        typer.Option(
            "--fallback",
            help="With --method llm: when the model cannot be used, choose among the synthesizer's "
            "rule and what the model tested instead of failing.",
        ),
    ] = False,
    model: Annotated[str, typer.Option(help="Model of the LLM loop.")] = "claude-sonnet-4-5",
    target: Annotated[
        float, typer.Option(help="Accuracy (training and held-out) a version needs to become current.")
    ] = 0.8,
    holdout: Annotated[float, typer.Option(help="Fraction held out, never seen by the generator.")] = 0.3,
    seed: Annotated[int, typer.Option(help="Seed of the split.")] = 0,
    max_attempts: Annotated[
        int, typer.Option(help="Agent method: tests of candidate code the model may run.")
    ] = 5,
    max_steps: Annotated[int, typer.Option(help="Agent method: model calls at most.")] = 50,
    detach: Annotated[
        bool, typer.Option("--detach", help="Queue the job, print its id and return (needs --server).")
    ] = False,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Generate an eval function from labeled traces as a job; shows every step live.

    Exit 0: a new (or the kept) version reached the target and eval:NAME uses it. Exit 1: saved
    only as a candidate below the target, or the job failed. Exit 2: bad arguments."""
    from agenteval.contracts.evals import GenerationMethod
    from agenteval.sdk import GenerationRequest

    if detach and not server:
        fail("--detach needs --server: an embedded stack stops when this command ends", 2)
    methods = get_args(GenerationMethod)
    if method not in methods:
        fail(f"method must be {', '.join(methods[:-1])} or {methods[-1]}, got {method!r}", 2)
    # The ranges are the eval generator's to check: it says what is wrong with them.
    request = GenerationRequest(
        name=name,
        dataset=dataset,
        method=method,
        model=model,
        target_accuracy=target,
        holdout_fraction=holdout,
        seed=seed,
        max_attempts=max_attempts,
        max_steps=max_steps,
        allow_fallback=fallback,
    )

    async def go() -> Any:
        async with connect(server, data_dir) as client:
            job = await client.start_generation_job(request)
            if detach:
                return job, None
            if not json_out:
                out.print(
                    f"[dim]job {job.job_id} queued; watch it again with: agent-eval evals watch {job.job_id}[/]"
                )
            try:
                followed = await _follow(client, job.job_id, 0, json_out)
            except asyncio.CancelledError:
                if server:
                    err.print(
                        f"stopped watching: job {job.job_id} goes on (agent-eval evals watch {job.job_id})"
                    )
                else:  # the embedded stack ends with this command: do not leave the job to a later one
                    await client.cancel_generation_job(job.job_id)
                    err.print(f"job {job.job_id} cancelled")
                raise
            return followed, await _current_version(client, name)

    result, current = run_async(go)
    if detach:
        if json_out:
            print_json({"job": _job_doc(result)})
        else:
            out.print(result.job_id)
        return
    job, events, saved = result
    _finish(job, events, saved, current, json_out)


@evals_app.command("watch")
def watch(
    job_id: Annotated[str, typer.Argument(help="A generation job id (see evals jobs).")],
    after: Annotated[int, typer.Option(help="Only events after this sequence number.")] = 0,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Follow a generation job to its end (its past events first); exit code as for generate."""

    async def go() -> Any:
        async with connect(server, data_dir) as client:
            job, events, saved = await _follow(client, job_id, after, json_out)
            return job, events, saved, await _current_version(client, job.request.name)

    job, events, saved, current = run_async(go)
    _finish(job, events, saved, current, json_out)


@evals_app.command("jobs")
def jobs(
    name: Annotated[str, typer.Option(help="Only jobs generating this eval.")] = "",
    status: Annotated[str, typer.Option(help="queued, running, done, failed or cancelled.")] = "",
    limit: Annotated[int, typer.Option(help="At most this many jobs, newest first.")] = 50,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Generation jobs, newest first, with what they saved and spent."""
    from agenteval.contracts.evals import GenerationJobStatus

    statuses: tuple[str, ...] = get_args(GenerationJobStatus)
    if status and status not in statuses:
        fail(f"status must be one of {', '.join(sorted(statuses))}, got {status!r}", 2)

    async def go() -> list[GenerationJob]:
        async with connect(server, data_dir) as client:
            return await client.list_generation_jobs(name or None, status or None, limit)  # type: ignore[arg-type]

    docs = [_job_doc(j) for j in run_async(go)]
    if json_out:
        print_json({"jobs": docs})
        return
    table = Table("job", "eval", "status", "held-out", "cost", box=box.SIMPLE_HEAD)
    table.columns[0].no_wrap = True
    for d in docs:
        cost = d["usage"]["cost_usd"]
        result = {"promoted": ": v{v} current", "candidate": ": v{v} candidate", "kept": ": kept v{v}"}.get(
            d["outcome"] or "", f": {d['error_code']}" if d["error_code"] else ""
        )
        table.add_row(
            d["job_id"],
            d["name"],
            d["status"] + result.format(v=d["eval_version"]),
            "" if d["holdout_accuracy"] is None else f"{d['holdout_accuracy']:.1%}",
            "-" if cost is None else f"${cost:.3f}",
        )
    out.print(table)


@evals_app.command("cancel")
def cancel(
    job_id: Annotated[str, typer.Argument(help="A queued or running generation job.")],
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Cancel a generation job: nothing of it is saved."""

    async def go() -> GenerationJob:
        async with connect(server, data_dir) as client:
            return await client.cancel_generation_job(job_id)

    doc = _job_doc(run_async(go))
    if json_out:
        print_json(doc)
    elif doc["status"] == "cancelled":
        out.print(f"job {job_id} cancelled")
    else:  # running elsewhere: its instance stops it at its next poll
        out.print(f"job {job_id}: cancel requested (it is {doc['status']})")


@evals_app.command("promote")
def promote(
    ref: Annotated[str, typer.Argument(help="NAME@VERSION: the version eval:NAME will use.")],
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Make a saved version (a candidate, or an older version back) what eval:NAME uses."""
    name, _, version = ref.partition("@")
    if not name or not version.isdigit() or int(version) < 1:
        fail(f"give NAME@VERSION (e.g. {name or 'my_eval'}@2), got {ref!r}", 2)

    async def go() -> EvalInfo:
        async with connect(server, data_dir) as client:
            return await client.promote_eval(name, int(version))

    e = run_async(go)
    if json_out:
        print_json(_eval_doc(e))
        return
    out.print(
        f"{name} v{e.version} is now the current version: eval:{name} uses it "
        f"(training {e.train_accuracy:.1%}, held-out {e.holdout_accuracy:.1%})"
    )
