"""Accuracy and speed of the offline eval-function synthesizer: ``python bench/bench_synthesizer.py`` prints JSON.

For every demo dataset: a seeded, stratified 70/30 split; synthesis on the 70%; the
emitted code run on the held-out 30% (accuracy against the noisy labels, and against the
clean labels before noise); plus the training/cross-validated accuracy, the rule, and
the seconds synthesis took.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from agenteval.eval_generator.synthesizer import evaluate_code, split_dataset, synthesize
from tests.fixtures.labeled_datasets import DATASETS


def bench_one(name: str, n: int, seed: int, holdout: float) -> dict[str, Any]:
    ds = DATASETS[name](n=n, seed=seed)
    train, test = split_dataset(ds.traces, ds.labels, holdout=holdout, seed=seed)
    started = time.perf_counter()
    result = synthesize([ds.traces[i] for i in train], [ds.labels[i] for i in train], name, seed=seed)
    seconds = time.perf_counter() - started
    held_out = [ds.traces[i] for i in test]
    return {
        "dataset": name,
        "traces": n,
        "train_traces": len(train),
        "held_out_traces": len(test),
        "held_out_accuracy": round(evaluate_code(result.code, held_out, [ds.labels[i] for i in test]), 4),
        "held_out_accuracy_clean_labels": round(
            evaluate_code(result.code, held_out, [ds.clean_labels[i] for i in test]), 4
        ),
        "train_accuracy": round(result.train_accuracy, 4),
        "cv_accuracy": round(result.cv_accuracy, 4),
        "synthesis_seconds": round(seconds, 3),
        "signals_used": result.signals_used,
        "rule": result.rule_description.splitlines(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="traces per dataset")
    parser.add_argument("--seed", type=int, default=0, help="dataset, split and fold seed")
    parser.add_argument("--holdout", type=float, default=0.3, help="share of traces held out")
    parser.add_argument(
        "--dataset", action="append", choices=sorted(DATASETS), help="only these (repeatable)"
    )
    args = parser.parse_args()
    rows = [bench_one(name, args.n, args.seed, args.holdout) for name in args.dataset or DATASETS]
    summary = {
        "mean_held_out_accuracy": round(statistics.mean(r["held_out_accuracy"] for r in rows), 4),
        "min_held_out_accuracy": min(r["held_out_accuracy"] for r in rows),
        "max_synthesis_seconds": max(r["synthesis_seconds"] for r in rows),
    }
    print(json.dumps({"seed": args.seed, "datasets": rows, "summary": summary}, indent=2))


if __name__ == "__main__":
    main()
