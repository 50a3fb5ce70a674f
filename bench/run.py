"""The benchmark harness: ``python bench/run.py [--only W1,W2] [--quick] [--reps N]``.

Runs every workload config (W1 overhead, W2 concurrency, W3 sandboxed grading; embedded
and distributed) each in a fresh process, writes the figures to
``bench/results/latest.json`` and renders them into BENCHMARKS.md between the
``<!-- bench:start -->`` / ``<!-- bench:end -->`` markers. ``--quick`` runs a fifth of
every size once, writes ``bench/results/quick.json`` and leaves BENCHMARKS.md alone;
``--render-only`` re-renders BENCHMARKS.md from the latest results without measuring.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from bench.procs import cpu_reference_ms, machine  # noqa: E402
from bench.report import render, write_section  # noqa: E402
from bench.workloads import Config  # noqa: E402

RESULTS = ROOT / "bench" / "results"
CONFIG_TIMEOUT_S = 1800


def configs(quick: bool, reps: int) -> list[Config]:
    """Every config at full size (a fifth with ``quick``)."""
    d = 5 if quick else 1
    w2_limits = [(100, 200 // d), (500, 500 // d)]
    full = [
        Config("W1", "embedded", cases=1000 // d),
        Config("W1", "embedded", cases=1000 // d, watch=False),
        Config("W1", "distributed", runners=1, cases=1000 // d),
        Config("W1", "distributed", runners=2, cases=1000 // d),
        Config("W2", "embedded", cases=0, limits=w2_limits),
        Config("W2", "distributed", runners=1, cases=0, limits=w2_limits),
        Config("W2", "distributed", runners=2, cases=0, limits=w2_limits),
        Config("W3", "embedded", cases=200 // d),
        Config("W3-pool", "pool", cases=200 // d),
    ]
    return [replace(c, reps=reps) for c in full]


def eval_grader_missing() -> str | None:
    """Why W3 cannot run through the platform yet, or None when it can."""
    try:
        import agenteval.sandbox  # noqa: F401
        from agenteval.grading import registered_graders
    except ImportError as exc:
        return f"not importable yet: {exc}"
    if "eval_function" not in registered_graders():
        return "no 'eval_function' grader is registered yet"
    return None


def child_command(cfg: Config, out: Path) -> list[str]:
    return [sys.executable, "-m", "bench.workloads", "--config", json.dumps(asdict(cfg)), "--out", str(out)]


def shown(cmd: list[str]) -> str:
    """The command as a person would type it from the repo root."""
    return shlex.join(["python", *cmd[1:-1], "OUT.json"])


def measure(cfg: Config) -> dict[str, Any]:
    """Run one config in a fresh process; its result, or an error entry."""
    with tempfile.TemporaryDirectory(prefix="agenteval-bench-") as tmp:
        out = Path(tmp) / "result.json"
        cmd = child_command(cfg, out)
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        }
        started = time.perf_counter()
        try:
            proc = subprocess.run(
                cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=CONFIG_TIMEOUT_S, check=False
            )
        except subprocess.TimeoutExpired:
            return {
                "label": cfg.label,
                "error": f"did not finish in {CONFIG_TIMEOUT_S} s",
                "command": shown(cmd),
            }
        if proc.returncode != 0 or not out.exists():
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
            return {
                "label": cfg.label,
                "error": f"exit {proc.returncode}: {tail[0][:400]}",
                "command": shown(cmd),
                "stderr": proc.stderr[-4000:],
            }
        result: dict[str, Any] = json.loads(out.read_text())
    result["command"] = shown(cmd)
    result["measured_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    result["process_s"] = round(time.perf_counter() - started, 1)
    return result


def summary_line(r: dict[str, Any]) -> str:
    if "error" in r:
        return f"FAILED: {r['error']}"
    if "limits" in r:
        return (
            ", ".join(
                f"@{e['limit']}: concurrency {e['achieved_concurrency']:.1f}" for e in r["limits"].values()
            )
            + f"; peak RSS {r['peak_rss_total_mb']:.0f} MB"
        )
    return (
        f"{r['trials_per_s']:,.0f} trials/s, {r['wall_ms_per_trial']:.2f} ms/trial wall, "
        f"{r['cpu_ms_per_trial']:.2f} ms/trial CPU; peak RSS {r['peak_rss_total_mb']:.0f} MB"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the agenteval benchmarks (W1, W2, W3).")
    parser.add_argument(
        "--only", default="", help="Comma-separated workloads, e.g. W1,W2 (W3 includes W3-pool)."
    )
    parser.add_argument("--quick", action="store_true", help="A fifth of every size, one run: a smoke run.")
    parser.add_argument("--reps", type=int, default=None, help="Timed runs per config (default 3; quick: 1).")
    parser.add_argument("--embedded-only", action="store_true", help="Skip the distributed stacks.")
    parser.add_argument(
        "--render-only",
        action="store_true",
        help="Measure nothing: re-render BENCHMARKS.md from latest.json.",
    )
    args = parser.parse_args(argv)
    if args.render_only:
        write_section(ROOT / "BENCHMARKS.md", render(json.loads((RESULTS / "latest.json").read_text())))
        print("rendered bench/results/latest.json into BENCHMARKS.md")
        return 0
    reps = args.reps or (1 if args.quick else 3)
    only = {w.strip().upper() for w in args.only.split(",") if w.strip()}
    chosen = [
        c
        for c in configs(args.quick, reps)
        if (not only or c.workload.split("-")[0] in only)
        and not (args.embedded_only and c.mode == "distributed")
    ]
    notes: list[str] = []
    failures: list[dict[str, Any]] = []
    missing = eval_grader_missing()
    if missing and any(c.workload == "W3" for c in chosen):
        chosen = [c for c in chosen if c.workload != "W3"]
        failures.append({"label": "W3 embedded", "error": f"{missing}; W3 drove the sandbox pool directly"})
    results: list[dict[str, Any]] = []
    reference_before = cpu_reference_ms()
    for cfg in chosen:
        print(
            f"{cfg.label} ({'quick, ' if args.quick else ''}{reps} run{'s' if reps > 1 else ''}) ...",
            flush=True,
        )
        r = measure(cfg)
        print(f"  {summary_line(r)}", flush=True)
        if "error" in r:
            failures.append({"label": r["label"], "error": r["error"]})
            if r.get("stderr"):
                print(r["stderr"], file=sys.stderr)
        else:
            results.append(r)
    command = shlex.join(["python", "bench/run.py", *(argv if argv is not None else sys.argv[1:])])
    doc: dict[str, Any] = {
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": command,
        "machine": {**machine(), "cpu_reference_ms": [reference_before, cpu_reference_ms()]},
        "reps": reps,
        "quick": args.quick,
        "results": results,
        "failures": failures,
        "notes": notes,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    target = RESULTS / ("quick.json" if args.quick else "latest.json")
    if not args.quick and only and target.exists():
        # A partial run keeps the other workloads' latest figures (each row says when it was measured).
        previous = json.loads(target.read_text())
        fresh = {r["label"] for r in results} | {f["label"] for f in failures}
        doc["results"] = [r for r in previous.get("results", []) if r["label"] not in fresh] + results
        order = [c.label for c in configs(False, reps)]
        doc["results"].sort(key=lambda r: order.index(r["label"]) if r["label"] in order else len(order))
        notes.append(
            f"Partial run ({command}): rows of other workloads are from earlier runs (see measured_at)."
        )
    target.write_text(json.dumps(doc, indent=2))
    section = render(doc)
    if not args.quick:
        write_section(ROOT / "BENCHMARKS.md", section)
    print(f"\nwrote {target.relative_to(ROOT)}" + ("" if args.quick else " and BENCHMARKS.md"))
    return 1 if failures and not results else 0


if __name__ == "__main__":
    sys.exit(main())
