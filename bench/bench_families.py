"""Held-out accuracy of the offline synthesizer on families of labeled traces: ``python bench/bench_families.py``.

For every ``<family>.jsonl`` in the folder (default ``bench/evalgen_families``, written blind
to the synthesizer and frozen): import it through the real importer (``agenteval.importers``,
format auto), split it seeded and stratified into 100 training / 200 held-out traces,
synthesize on the training part only, run the emitted code in the real sandbox on the
held-out part, and print per-family held-out accuracy, the pre-noise ceiling
(1 - the share of labels flipped on purpose, from ``<family>.noise.json``), the mean and the
worst family. ``--json`` prints the same as JSON.

Only aggregate figures are printed, never a trace, an id or a misclassified example: the
families are a measuring set, and looking at their errors would tune the synthesizer to them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from agenteval.eval_generator.synthesizer import synthesize
from agenteval.importers import import_traces
from agenteval.sandbox import SandboxPool

DEFAULT_DIR = Path(__file__).parent / "evalgen_families"
TRAIN_SIZE = 100


def load_family(path: Path) -> tuple[list[dict[str, Any]], list[bool], float | None]:
    """(traces as eval dicts, labels, noise rate or None) of one family file, through the importer."""
    result = import_traces(path.read_bytes(), "auto")
    if result.problems:
        raise SystemExit(f"{path.name}: {len(result.problems)} records not imported: {result.problems[0]}")
    traces = [t.trace.to_eval_dict() for t in result.traces]
    labels = [t.label == "positive" for t in result.traces]
    if any(t.label is None for t in result.traces):
        raise SystemExit(f"{path.name}: some traces carry no label")
    noise_path = path.with_name(path.name.removesuffix(".jsonl") + ".noise.json")
    noise = None
    if noise_path.exists():
        noted = json.loads(noise_path.read_text())  # {"flipped_ids": [...]}, or the bare list
        flipped = (
            noted
            if isinstance(noted, list)
            else noted.get("flipped_ids")
            if isinstance(noted, dict)
            else None
        )
        if not isinstance(flipped, list):
            raise SystemExit(f'{noise_path.name}: expected a list of ids or {{"flipped_ids": [...]}}')
        noise = len(flipped) / len(traces)
    return traces, labels, noise


def split(labels: list[bool], train_size: int, seed: int) -> tuple[list[int], list[int]]:
    """Seeded split stratified by label with exactly ``train_size`` training traces."""
    rng = random.Random(seed)
    by_class = {cls: [i for i, y in enumerate(labels) if y == cls] for cls in (True, False)}
    positives = round(train_size * len(by_class[True]) / len(labels))
    quota = {True: positives, False: train_size - positives}
    train: list[int] = []
    for cls in (True, False):
        members = by_class[cls]
        rng.shuffle(members)
        train += members[: quota[cls]]
    chosen = set(train)
    return sorted(train), [i for i in range(len(labels)) if i not in chosen]


async def bench_family(pool: SandboxPool, path: Path, seed: int) -> dict[str, Any]:
    traces, labels, noise = load_family(path)
    train, test = split(labels, TRAIN_SIZE, seed)
    started = time.perf_counter()
    result = synthesize([traces[i] for i in train], [labels[i] for i in train], path.stem, seed=seed)
    seconds = time.perf_counter() - started
    outcomes = await pool.run_batch(result.code, [traces[i] for i in test])
    errors = sum(1 for r in outcomes if not r.ok)
    hits = sum(
        1
        for r, i in zip(outcomes, test, strict=True)
        if r.ok and r.score is not None and (r.score >= 0.5) == labels[i]
    )
    accuracy = hits / len(test)
    ceiling = 1.0 - noise if noise is not None else None
    return {
        "family": path.stem,
        "traces": len(traces),
        "train": len(train),
        "held_out": len(test),
        "held_out_accuracy": round(accuracy, 4),
        "ceiling": round(ceiling, 4) if ceiling is not None else None,
        "of_ceiling": round(accuracy / ceiling, 4) if ceiling else None,
        "cv_accuracy": round(result.cv_accuracy, 4),
        "sandbox_errors": errors,
        "synthesis_seconds": round(seconds, 3),
        "signals_used": result.signals_used,
    }


def family_files(folder: Path, only: list[str] | None) -> list[Path]:
    files = sorted(p for p in folder.glob("*.jsonl") if not only or p.stem in only)
    if not files:
        raise SystemExit(f"no <family>.jsonl files in {folder}")
    return files


async def run(folder: Path, seed: int, files: list[Path]) -> dict[str, Any]:
    async with SandboxPool(workers=2) as pool:
        rows = [await bench_family(pool, path, seed) for path in files]
    accuracies = [r["held_out_accuracy"] for r in rows]
    return {
        "folder": str(folder),
        "seed": seed,
        "families": rows,
        "mean": round(statistics.mean(accuracies), 4),
        "worst": min(accuracies),
        "max_synthesis_seconds": max(r["synthesis_seconds"] for r in rows),
    }


def table(report: dict[str, Any]) -> str:
    lines = [
        f"{'family':<28} {'held-out':>8} {'ceiling':>8} {'of ceil':>8} {'cv':>6} {'err':>4} {'secs':>6}",
    ]
    for r in report["families"]:
        ceiling = f"{r['ceiling']:.3f}" if r["ceiling"] is not None else "-"
        of = f"{r['of_ceiling']:.3f}" if r["of_ceiling"] is not None else "-"
        lines.append(
            f"{r['family']:<28} {r['held_out_accuracy']:>8.3f} {ceiling:>8} {of:>8} "
            f"{r['cv_accuracy']:>6.3f} {r['sandbox_errors']:>4} {r['synthesis_seconds']:>6.2f}"
        )
    lines.append(f"{'mean':<28} {report['mean']:>8.3f}")
    lines.append(f"{'worst':<28} {report['worst']:>8.3f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="folder of <family>.jsonl files")
    parser.add_argument("--seed", type=int, default=0, help="split and fold seed")
    parser.add_argument("--family", action="append", help="only this family (repeatable)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    report = asyncio.run(run(args.dir, args.seed, family_files(args.dir, args.family)))
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
    else:
        print(table(report))


if __name__ == "__main__":
    main()
