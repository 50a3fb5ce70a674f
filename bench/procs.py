"""What /proc says about the machine and about the processes of a stack under test."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class StackProcess:
    """One process of the stack under test."""

    role: str
    """What it is: embedded, runner-1, grader, nats-server, sandbox-worker, ..."""
    pid: int


def _read(path: Path) -> str | None:
    try:
        return path.read_text(errors="replace")
    except OSError:  # the process is gone, or never was
        return None


def peak_rss_mb(pid: int) -> float | None:
    """The process's peak resident set (VmHWM) in MiB, or None when it is gone."""
    status = _read(PROC / str(pid) / "status")
    if status is None:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return None


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used (all its threads); 0 when it is gone."""
    stat = _read(PROC / str(pid) / "stat")
    if stat is None:
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def children_of(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (direct children, theirs, and so on)."""
    parents: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        stat = _read(entry / "stat")
        if stat is None:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    todo = list(parents.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo.extend(parents.get(child, []))
    return sorted(found)


def role_of(pid: int) -> str:
    """A name for a helper process, from its command line."""
    cmdline = (_read(PROC / str(pid) / "cmdline") or "").split("\0")
    if cmdline and cmdline[0].endswith("nats-server"):
        return "nats-server"
    if any("agenteval.runner.workers.worker" in part for part in cmdline):
        return "agent-worker"
    if any("_worker" in part for part in cmdline):
        return "sandbox-worker"
    return Path(cmdline[0]).name if cmdline and cmdline[0] else f"pid-{pid}"


def with_helpers(processes: list[StackProcess]) -> list[StackProcess]:
    """The given processes plus their live descendants (nats-server, sandbox workers)."""
    known = {p.pid for p in processes}
    out = list(processes)
    for proc in processes:
        for child in children_of(proc.pid):
            if child not in known:
                known.add(child)
                out.append(StackProcess(role_of(child), child))
    return out


def cpu_reference_ms(n: int = 2_000_000, tries: int = 3) -> float:
    """Milliseconds a fixed pure-Python loop takes here (best of ``tries``): the speed of the
    machine at the moment, to read figures of different runs (this shared machine's speed moves
    by a factor of up to two during a day)."""
    import time

    best = float("inf")
    for _ in range(tries):
        started = time.perf_counter()
        total = 0
        for i in range(n):
            total += i
        best = min(best, time.perf_counter() - started)
    return round(best * 1000.0, 1)


def machine() -> dict[str, object]:
    """Cores, memory, CPU model, Python and kernel of this machine."""
    cpuinfo = _read(PROC / "cpuinfo") or ""
    model = next(
        (line.split(":", 1)[1].strip() for line in cpuinfo.splitlines() if line.startswith("model name")),
        platform.processor() or "unknown",
    )
    meminfo = _read(PROC / "meminfo") or ""
    mem_kb = next((int(line.split()[1]) for line in meminfo.splitlines() if line.startswith("MemTotal:")), 0)
    return {
        "cores": os.cpu_count(),
        "memory_gib": round(mem_kb / 1024 / 1024, 1),
        "cpu_model": model,
        "python": platform.python_version(),
        "kernel": platform.release(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }
