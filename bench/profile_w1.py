"""Where W1's time goes: ``python bench/profile_w1.py [--cases 1000] [--trials 5] [--top 40]``.

Runs W1 on the embedded stack (after a small warm-up) under cProfile and prints the top
functions by own time (``--sort cumulative`` for inclusive time), own time summed by
package (nats, faststream, sqlalchemy, services/runner, asyncio, ...), then the CPU each
thread of this process and the nats-server child used during the run. cProfile sees only
the event-loop thread, where every service runs; the per-thread CPU shows what it
misses (aiosqlite's threads, gRPC's native threads). ``--save FILE`` keeps the profile
for snakeviz or ``python -m pstats``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from bench.procs import CLOCK_TICKS, cpu_seconds  # noqa: E402
from bench.stacks import embedded  # noqa: E402
from bench.timing import suite_for, timed_run  # noqa: E402

AGENT = "python:bench.agents:instant"
GRADERS = [{"output_equals": {"value": "ok"}}]


C_OWNERS = (
    ("pydantic_core", "pydantic-core (C)"),
    ("_socket", "socket (C)"),
    ("select", "select/epoll (C)"),
    ("urandom", "os.urandom (C)"),
    ("_json", "json (C)"),
    ("_contextvars", "contextvars (C)"),
)


def package_of(filename: str, function: str = "") -> str:
    """Who owns a profiled function: a site-package, a part of this repo, a stdlib module, or C."""
    if filename == "~" or filename.startswith("<"):
        return next((owner for key, owner in C_OWNERS if key in function), "other built-ins (C)")
    path = Path(filename)
    if "site-packages" in path.parts:
        return path.parts[path.parts.index("site-packages") + 1]
    try:
        rel = path.resolve().relative_to(ROOT)
        return "/".join(rel.parts[:2])
    except ValueError:
        return f"stdlib {path.parent.name if path.parent.name != f'python{sys.version_info[0]}.{sys.version_info[1]}' else path.stem}"


def own_time_by_package(stats: pstats.Stats) -> list[tuple[str, float]]:
    totals: dict[str, float] = {}
    for (filename, _, function), (_, _, own, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        key = package_of(filename, function)
        totals[key] = totals.get(key, 0.0) + own
    return sorted(totals.items(), key=lambda kv: -kv[1])


def thread_cpu() -> dict[str, float]:
    """CPU seconds of every thread of this process, by Python thread name (native: by id)."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    out: dict[str, float] = {}
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            comm = (task / "comm").read_text().strip()
        except OSError:
            continue
        name = names.get(int(task.name), f"native {comm}")
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return out


async def profile(
    cases: int, trials: int, profiler: cProfile.Profile
) -> tuple[dict, dict[str, float], float]:
    async with embedded() as stack:
        await timed_run(stack, suite_for("w1-warmup", max(10, cases // 10), GRADERS), AGENT, trials)
        nats = [p for p in stack.processes() if p.role == "nats-server"]
        threads_before = thread_cpu()
        nats_before = sum(cpu_seconds(p.pid) for p in nats)
        profiler.enable()
        result = await timed_run(stack, suite_for("w1", cases, GRADERS), AGENT, trials)
        profiler.disable()
        nats_cpu = sum(cpu_seconds(p.pid) for p in nats) - nats_before
        threads = {k: v - threads_before.get(k, 0.0) for k, v in thread_cpu().items()}
    return result, threads, nats_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description="Profile W1 on the embedded stack.")
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--top", type=int, default=40, help="How many functions to print.")
    parser.add_argument("--sort", default="tottime", choices=["tottime", "cumulative", "ncalls"])
    parser.add_argument("--save", type=Path, help="Write the raw profile here (pstats format).")
    args = parser.parse_args()

    profiler = cProfile.Profile()
    result, threads, nats_cpu = asyncio.run(profile(args.cases, args.trials, profiler))
    print(
        f"W1 embedded under cProfile: {result['trials']} trials in {result['wall_s']:.2f} s "
        f"({result['trials_per_s']:.0f} trials/s with profiling overhead), "
        f"{result['cpu_ms_per_trial']:.2f} ms CPU per trial\n"
    )
    stats = pstats.Stats(profiler)
    stats.sort_stats(args.sort).print_stats(args.top)
    total = sum(own for _, own in own_time_by_package(stats)) or 1.0
    print("Own time by package (event-loop thread):")
    for name, own in own_time_by_package(stats)[:20]:
        print(f"  {own:7.2f} s  {own / total * 100:4.1f}%  {name}")
    print("\nCPU seconds during the profiled run, by thread (cProfile saw only MainThread):")
    for name, seconds in sorted(threads.items(), key=lambda kv: -kv[1]):
        if seconds > 0:
            print(f"  {seconds:7.2f}  {name}")
    print(f"  {nats_cpu:7.2f}  nats-server (child process)")
    if args.save:
        stats.dump_stats(args.save)
        print(f"\nprofile saved to {args.save}")


if __name__ == "__main__":
    main()
