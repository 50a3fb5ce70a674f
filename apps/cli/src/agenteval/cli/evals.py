"""``agent-eval evals ...``: check eval functions against labeled traces (and, later, generate them)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from agenteval.cli import DataDir, JsonOut, Server, app, connect, fail, out, print_json, run_async

if TYPE_CHECKING:
    from agenteval.sdk import EvalCodeReport, EvalInfo, LabeledTrace

evals_app = typer.Typer(help="Eval functions: check them on labeled traces.", no_args_is_help=True)
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


def _eval_doc(e: EvalInfo, with_code: bool = False) -> dict[str, Any]:
    doc = e.model_dump(mode="json", exclude={"code"})
    doc["created_at"] = doc["created_at"] or ""
    if with_code:
        doc["code"] = e.code
    return doc


@evals_app.command("generate")
def generate(
    name: Annotated[str, typer.Argument(help="Eval name (letters, digits, _).")],
    dataset: Annotated[str, typer.Option("--dataset", "-d", help="Dataset of labeled traces.")],
    method: Annotated[
        str, typer.Option(help="auto (Claude with a key, else the synthesizer), llm, synthesizer.")
    ] = "auto",
    model: Annotated[str, typer.Option(help="Model of the LLM loop.")] = "claude-sonnet-4-5",
    target: Annotated[float, typer.Option(help="Training accuracy the LLM loop aims for.")] = 0.8,
    holdout: Annotated[float, typer.Option(help="Fraction held out, never seen by the generator.")] = 0.3,
    seed: Annotated[int, typer.Option(help="Seed of the split.")] = 0,
    max_attempts: int = 5,
    max_steps: int = 50,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Generate an eval function from labeled traces; shows every step live."""
    from agenteval.contracts.pb import eval_from_pb
    from agenteval.v1 import eval_generator_pb2 as pb

    request = pb.GenerateEvalRequest(
        name=name,
        dataset=dataset,
        method=method,
        model=model,
        target_accuracy=target,
        holdout_fraction=holdout,
        seed=seed,
        max_attempts=max_attempts,
        max_steps=max_steps,
    )
    kinds = {v: k.removeprefix("GENERATE_EVENT_TYPE_").lower() for k, v in pb.GenerateEventType.items()}

    async def go() -> Any:
        saved = None
        events: list[dict[str, Any]] = []
        async with connect(server, data_dir) as client:
            async for ev in client._stubs.evals.GenerateEval(request):
                kind = kinds.get(ev.type, "event")
                events.append({"type": kind, "message": ev.message, "accuracy": ev.accuracy or None})
                if not json_out:
                    out.print(f"[dim]{kind:>12}[/] {ev.message}", highlight=False)
                if ev.HasField("eval"):
                    saved = eval_from_pb(ev.eval)
        return saved, events

    saved, events = run_async(go)
    if saved is None:
        fail("generation ended without a saved eval")
    if json_out:
        print_json({"eval": _eval_doc(saved), "events": events})
    else:
        out.print(
            f"saved [bold]{saved.name}[/] v{saved.version}: training accuracy {saved.train_accuracy:.1%}, "
            f"held-out accuracy {saved.holdout_accuracy:.1%} (generator: {saved.generator})"
        )


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
    table = Table("name", "version", "generator", "train", "held-out", "dataset", "created")
    for d in docs:
        table.add_row(
            d["name"],
            str(d["version"]),
            d["generator"],
            f"{d['train_accuracy']:.1%}",
            f"{d['holdout_accuracy']:.1%}",
            f"{d['dataset']} v{d['dataset_version']}",
            d["created_at"][:19],
        )
    out.print(table)


@evals_app.command("show")
def show_eval(
    name: Annotated[str, typer.Argument(help="NAME or NAME@VERSION.")],
    code: Annotated[bool, typer.Option("--code", help="Print the code only (as is, for a file).")] = False,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """One saved eval (the newest version unless NAME@VERSION)."""
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
        "generator",
        "train_accuracy",
        "holdout_accuracy",
        "dataset",
        "dataset_version",
        "created_at",
        "description",
    ):
        out.print(f"[bold]{key}[/]: {doc[key]}", highlight=False)
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
