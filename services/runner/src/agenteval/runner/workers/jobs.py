"""What the agent worker pool works with: its limits, its jobs and its verdicts."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agenteval.runner.workers.process import WorkerProcess


def default_workers() -> int:
    """Two on a small machine (one can die while the other works), up to four."""
    return max(2, min(4, os.cpu_count() or 2))


@dataclass(frozen=True)
class WorkerLimits:
    """How the pool runs its workers (from the runner's settings)."""

    workers: int = 0
    """Worker processes (0: :func:`default_workers`)."""
    threads: int = 32
    """Sync agents one worker runs at once."""
    memory_mb: int = 4096
    """Address-space limit of each worker (0: none)."""
    output_chars: int = 65536
    """What an agent prints, kept per stream and trial."""
    max_trace_bytes: int = 64 * 1024 * 1024
    """Largest trace a worker sends back."""
    kill_grace_s: float = 1.0
    """How long past a trial's timeout an unresponsive worker is given before it is killed."""
    start_timeout_s: float = 60.0
    load_timeout_s: float = 60.0
    """How long checking an agent (importing its module) may take."""


@dataclass(frozen=True)
class Verdict:
    """The pool's judgement of a trial it could not get a trace for."""

    status: str
    """timeout or error."""
    code: str
    message: str


class PoolClosed(Exception):
    """The pool was closed with the trial still running (the runner is stopping)."""


@dataclass(eq=False)
class Job:
    """A trial (or an agent to load) and where it is."""

    key: int
    kind: str
    """trial or load."""
    payload: Any
    timeout_s: float
    label: str
    future: asyncio.Future[Any]
    worker: WorkerProcess | None = None
    deadline: float = 0.0
    """When its time is up (loop time): sent + timeout_s."""
    reruns: int = 0
