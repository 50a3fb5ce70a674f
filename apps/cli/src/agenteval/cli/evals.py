"""``agent-eval evals ...``: saved eval functions, checked against labeled traces.

Generating them (as jobs) is in :mod:`agenteval.cli.eval_jobs`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.table import Table

from agenteval.cli import DataDir, JsonOut, Server, app, connect, fail, out, print_json, run_async

if TYPE_CHECKING:
    from agenteval.sdk import EvalCodeReport, EvalInfo, GenerationUsage, LabeledTrace

evals_app = typer.Typer(
    help="Eval functions: generate them from labeled traces (as jobs), check, promote.", no_args_is_help=True
)
app.add_typer(evals_app, name="evals")


def read_labeled(path: Path) -> tuple[list[LabeledTrace], list[str]]:
    """Labeled traces from a file in any format ``traces import`` reads.

    Returns the traces and one problem per unreadable line (by line number) or unlabeled trace."""
    from agenteval.importers import UnknownTraceFormat, import_traces
    from agenteval.sdk import LabeledTrace

    if not path.exists():
        fail(f"{path}: no such file", 2)
    try:
        result = import_traces(path.read_bytes())
    except UnknownTraceFormat as exc:
        fail(f"{path}: {exc}", 2)
    # The same normalization as an import, so a file and a dataset of the same traces score alike.
    traces = [
        LabeledTrace(trace_id=t.trace_id, trace=t.trace, label=t.label)
        for t in result.traces
        if t.label is not None
    ]
    problems = [str(p) for p in result.problems]
    problems += [f"trace {t.trace_id}: no label" for t in result.traces if t.label is None]
    return traces, problems


@evals_app.command("check")
def check(
    code_file: Annotated[Path, typer.Argument(help="Python file defining eval_NAME(trace, ctx=None).")],
    traces: Annotated[
        Path, typer.Option("--traces", help="Labeled traces (any format traces import reads).")
    ],
    allow: Annotated[
        list[str] | None, typer.Option("--allow-import", help="Extra module the code may import.")
    ] = None,
    timeout: Annotated[float, typer.Option(help="Per-trace timeout in seconds (0: default).")] = 0.0,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Run an eval function in the sandbox on labeled traces; report accuracy and mismatches.

    Exits 0 when the code ran, whatever its accuracy."""
    if not code_file.exists():
        fail(f"{code_file}: no such file", 2)
    code = code_file.read_text(encoding="utf-8")
    labeled, problems = read_labeled(traces)
    if not labeled:
        fail(f"{traces}: no labeled trace could be read" + (f" ({problems[0]})" if problems else ""), 2)

    async def go() -> EvalCodeReport:
        async with connect(server, data_dir) as client:
            return await client.test_eval_code(
                code, labeled, allowed_imports=allow or [], timeout_s=timeout or None
            )

    resp = run_async(go)
    doc: dict[str, Any] = {
        "accuracy": resp.accuracy,
        "total": resp.total,
        "correct": resp.correct,
        "incorrect": resp.incorrect,
        "errors": resp.errors,
        "code_error": resp.code_error,
        "unreadable_lines": problems,
        "mismatches": [m.model_dump() for m in resp.mismatches],
    }
    if json_out:
        print_json(doc)
    else:
        if resp.code_error:
            out.print(f"[red]the code cannot run:[/] {resp.code_error}")
        out.print(
            f"accuracy [bold]{resp.accuracy:.1%}[/] on {resp.total} traces: {resp.correct} correct, "
            f"{resp.incorrect} incorrect, {resp.errors} errors"
        )
        if doc["mismatches"]:
            table = Table("trace", "expected", "predicted", "score", "explanation / error")
            for m in doc["mismatches"][:50]:
                table.add_row(
                    m["trace_id"],
                    m["expected"] or "",
                    m["predicted"] or "",
                    "" if m["score"] is None else f"{m['score']:.2f}",
                    (m["error"] or m["explanation"] or "")[:100],
                )
            out.print(table)
        for p in problems:
            out.print(f"[yellow]skipped[/] {p}")
    if resp.code_error:
        raise typer.Exit(1)


def usage_doc(u: GenerationUsage) -> dict[str, Any]:
    """What a generation spent, for --json: None where nothing is known."""
    return {
        "model": u.model or None,
        "input_tokens": u.input_tokens,
        "output_tokens": u.output_tokens,
        "cost_usd": u.cost_usd if u.price_known else None,
        "attempts": u.attempts,
        "steps": u.steps,
        "stop_reason": u.stop_reason or None,
    }


def usage_line(u: GenerationUsage) -> str:
    """What a generation spent, in one line."""
    if not u.model:
        return "synthesizer only: no model calls"
    cost = f"${u.cost_usd:.4f}" if u.price_known else "cost unknown (model not in the price table)"
    stop = u.stop_reason.replace("_", " ") if u.stop_reason else "-"
    return (
        f"{u.model}: {u.input_tokens:,} input + {u.output_tokens:,} output tokens, {cost}, "
        f"{u.attempts} tests, {u.steps} steps, stopped: {stop}"
    )


def _eval_doc(e: EvalInfo, with_code: bool = False) -> dict[str, Any]:
    doc = e.model_dump(mode="json", exclude={"code", "usage"})
    doc["created_at"] = doc["created_at"] or ""
    doc["target_accuracy"] = e.target_accuracy or None
    doc["job_id"] = e.job_id or None
    doc["usage"] = usage_doc(e.usage)
    if with_code:
        doc["code"] = e.code
    return doc


@evals_app.command("list")
def list_evals(
    name: Annotated[str, typer.Option(help="Only versions of this eval.")] = "",
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Saved evals and their versions."""

    async def go() -> list[EvalInfo]:
        async with connect(server, data_dir) as client:
            return await client.list_evals(name or None)

    docs = [_eval_doc(e) for e in run_async(go)]
    if json_out:
        print_json({"evals": docs})
        return
    table = Table("name", "ver", "status", "generator", "train", "held-out", "cost", box=box.SIMPLE_HEAD)
    table.columns[0].no_wrap = True
    for d in docs:
        cost = d["usage"]["cost_usd"]
        table.add_row(
            d["name"],
            str(d["version"]),
            d["status"],
            d["generator"],
            f"{d['train_accuracy']:.1%}",
            f"{d['holdout_accuracy']:.1%}",
            "-" if cost is None else f"${cost:.3f}",
        )
    out.print(table)
    out.print("[dim]eval:NAME uses the current version; a candidate only as eval:NAME@VERSION[/]")


@evals_app.command("show")
def show_eval(
    name: Annotated[str, typer.Argument(help="NAME or NAME@VERSION.")],
    code: Annotated[bool, typer.Option("--code", help="Print the code only (as is, for a file).")] = False,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """One saved eval (the current version unless NAME@VERSION)."""
    e = _get_eval(name, server, data_dir)
    if code and not json_out:  # with --json the document carries the code
        typer.echo(e.code)
        return
    doc = _eval_doc(e, with_code=True)
    if json_out:
        print_json(doc)
        return
    for key in (
        "name",
        "version",
        "status",
        "generator",
        "train_accuracy",
        "holdout_accuracy",
        "target_accuracy",
        "dataset",
        "dataset_version",
        "created_at",
        "promoted_at",
        "job_id",
        "description",
    ):
        out.print(f"[bold]{key}[/]: {doc[key]}", highlight=False)
    out.print(f"[bold]usage[/]: {usage_line(e.usage)}", highlight=False)
    for c in doc["candidates"]:
        mark = "*" if c["chosen"] else " "
        what = c["source"] + (f" v{c['version']}" if c["source"] == "previous" else "")
        out.print(f" {mark} {what}: {c['train_accuracy']:.1%} ({c['note']})", highlight=False, markup=False)
    out.print(doc["code"], highlight=False, markup=False)


def _get_eval(ref: str, server: str | None, data_dir: Path) -> EvalInfo:
    name, _, version = ref.partition("@")
    if version and not version.isdigit():
        fail(f"bad version in {ref!r}: use NAME@N", 2)

    async def go() -> EvalInfo:
        async with connect(server, data_dir) as client:
            return await client.get_eval(name, int(version or 0) or None)

    return run_async(go)


@evals_app.command("test")
def test_eval(
    name: Annotated[str, typer.Argument(help="NAME or NAME@VERSION of a saved eval.")],
    dataset: Annotated[str | None, typer.Option("--dataset", "-d", help="A labeled dataset.")] = None,
    traces: Annotated[
        Path | None, typer.Option("--traces", help="Or a labeled file (any format traces import reads).")
    ] = None,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Measure a saved eval on any labeled dataset (or file) in the sandbox.

    Says how many of the traces are ones the eval learned from: only the others measure it honestly."""
    from agenteval.sdk import LabeledTrace

    if (dataset is None) == (traces is None):
        fail("give one of --dataset or --traces", 2)
    labeled: list[LabeledTrace] = []
    problems: list[str] = []
    if traces is not None:
        labeled, problems = read_labeled(traces)
    e = _get_eval(name, server, data_dir)
    trained_on = set(e.split.train) if e.split is not None else set()
    seen = 0

    async def go() -> EvalCodeReport:
        nonlocal seen
        async with connect(server, data_dir) as client:
            items = labeled
            if dataset is not None:
                found = await client.traces(dataset, labeled_only=True, with_traces=True, limit=100_000)
                items = [
                    LabeledTrace(trace_id=t.trace_id, trace=t.trace, label=t.label)
                    for t in found
                    if t.trace is not None and t.label is not None
                ]
            if not items:
                fail("no labeled traces to test on" + (f" ({problems[0]})" if problems else ""), 2)
            if dataset in (None, e.dataset):  # split ids name traces of the eval's own dataset
                seen = len(trained_on & {t.trace_id for t in items})
            return await client.test_eval_code(e.code, items)

    resp = run_async(go)
    doc = {
        "eval": f"{e.name}@{e.version}",
        "accuracy": resp.accuracy,
        "total": resp.total,
        "correct": resp.correct,
        "incorrect": resp.incorrect,
        "errors": resp.errors,
        "code_error": resp.code_error,
        "seen_in_training": seen,
        "unreadable_lines": problems,
        "recorded": {"train_accuracy": e.train_accuracy, "holdout_accuracy": e.holdout_accuracy},
    }
    if json_out:
        print_json(doc)
    else:
        if resp.code_error:
            out.print(f"[red]the code cannot run:[/] {resp.code_error}")
        out.print(
            f"{doc['eval']}: accuracy [bold]{resp.accuracy:.1%}[/] on {resp.total} traces ({resp.correct} "
            f"correct, {resp.incorrect} incorrect, {resp.errors} errors); recorded held-out accuracy "
            f"{e.holdout_accuracy:.1%}"
        )
        if seen:
            out.print(
                f"[yellow]{seen} of these traces were in its training part[/]: this accuracy is not "
                "measured on unseen traces only"
            )
        for p in problems[:50]:
            out.print(f"[yellow]skipped[/] {p}")
    if resp.code_error:
        raise typer.Exit(1)
