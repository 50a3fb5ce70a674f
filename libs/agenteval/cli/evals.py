"""``agent-eval evals ...``: check eval functions against labeled traces (and, later, generate them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from agenteval.cli import DataDir, JsonOut, Server, app, connect, fail, out, print_json, run_async

evals_app = typer.Typer(help="Eval functions: check them on labeled traces.", no_args_is_help=True)
app.add_typer(evals_app, name="evals")

LABELS = {
    "positive": "positive",
    "negative": "negative",
    "good": "positive",
    "bad": "negative",
    "pass": "positive",
    "fail": "negative",
    True: "positive",
    False: "negative",
}


def read_labeled(path: Path) -> tuple[list[tuple[str, dict[str, Any], str]], list[str]]:
    """Labeled traces from JSON Lines (``{"trace": {...}, "label": "positive"|"negative"}``).

    Returns the traces and one problem per unreadable line (by line number)."""
    if not path.exists():
        fail(f"{path}: no such file", 2)
    traces: list[tuple[str, dict[str, Any], str]] = []
    problems: list[str] = []
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except ValueError as exc:
            problems.append(f"line {n}: not JSON ({exc.msg})")
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("trace"), dict):
            problems.append(f"line {n}: expected an object with a 'trace' object")
            continue
        label = doc.get("label")
        label = LABELS.get(label.lower() if isinstance(label, str) else label)
        if label is None:
            problems.append(f"line {n}: label must be 'positive' or 'negative', got {doc.get('label')!r}")
            continue
        trace_id = str(doc.get("id") or doc.get("trace_id") or doc["trace"].get("trace_id") or f"line-{n}")
        traces.append((trace_id, doc["trace"], label))
    return traces, problems


@evals_app.command("check")
def check(
    code_file: Annotated[Path, typer.Argument(help="Python file defining eval_NAME(trace, ctx=None).")],
    traces: Annotated[Path, typer.Option("--traces", help="Labeled traces, JSON Lines.")],
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
    from agenteval.v1 import grader_pb2

    if not code_file.exists():
        fail(f"{code_file}: no such file", 2)
    code = code_file.read_text(encoding="utf-8")
    labeled, problems = read_labeled(traces)
    if not labeled:
        fail(f"{traces}: no labeled trace could be read" + (f" ({problems[0]})" if problems else ""), 2)
    to_pb = {"positive": grader_pb2.LABEL_POSITIVE, "negative": grader_pb2.LABEL_NEGATIVE}
    request = grader_pb2.TestEvalCodeRequest(
        code=code,
        allowed_imports=allow or [],
        timeout_s=timeout,
        traces=[
            grader_pb2.LabeledTrace(trace_id=tid, trace_json=json.dumps(t), label=to_pb[lab])
            for tid, t, lab in labeled
        ],
    )

    async def go() -> Any:
        async with connect(server, data_dir) as client:
            return await client.grader.TestEvalCode(request)

    resp = run_async(go)
    name = {grader_pb2.LABEL_POSITIVE: "positive", grader_pb2.LABEL_NEGATIVE: "negative"}
    doc = {
        "accuracy": resp.accuracy,
        "total": resp.total,
        "correct": resp.correct,
        "incorrect": resp.incorrect,
        "errors": resp.errors,
        "code_error": resp.code_error or None,
        "unreadable_lines": problems,
        "mismatches": [
            {
                "trace_id": m.trace_id,
                "expected": name.get(m.expected),
                "predicted": name.get(m.predicted),
                "score": m.score if not m.error else None,
                "explanation": m.explanation,
                "error": m.error or None,
            }
            for m in resp.mismatches
        ],
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
