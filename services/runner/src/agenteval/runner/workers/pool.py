"""The runner's pool of agent workers: trials in, traces (or verdicts) out, faults contained.

Each trial goes to the live worker with the fewest trials in flight (batched: one frame per
worker per turn of the loop). The worker enforces the trial's timeout and sends its trace.
What a worker cannot report, the pool decides from outside:

- **blocked**: a worker whose event loop has been silent while a trial's time (timeout plus
  ``kill_grace_s``) ran out is killed (SIGKILL) and replaced. The trial whose task held the
  loop (named by the worker's watchdog) is blamed: ``timeout`` when its own time was up,
  else ``error``; every other trial it held is run again on another worker.
- **died** (``os._exit``, a segfault, the OOM killer): the trial that called ``os._exit`` (the
  worker says so before it goes) is blamed with "agent process exited with code N"; the others
  run again. When nobody is named, every trial it held is a suspect and runs again *alone* on
  a quarantine worker, where a second death names it ("agent process was killed by SIGSEGV").
- **stuck**: a worker holding timed-out sync agents (threads cannot be stopped) asks to be
  retired: it takes no new trials, a replacement starts, and it is killed once its other
  trials are done.

A trial is run again at most MAX_RERUNS times on shared workers, then in quarantine.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
from collections import deque
from typing import Any

from agenteval.runner import instruments
from agenteval.runner.workers import blame
from agenteval.runner.workers.jobs import Job, PoolClosed, Verdict, WorkerLimits, default_workers
from agenteval.runner.workers.process import (
    DEAD,
    READY,
    STARTING,
    WorkerConfig,
    WorkerProcess,
    describe_exit,
)

log = logging.getLogger("agenteval.runner.workers")

TICK_S = 0.05
SILENT_S = 0.5
"""A worker whose loop has not been heard from this long is unresponsive."""
MAX_RERUNS = 3
MAX_START_FAILURES = 3


class WorkerPool:
    """Agent worker processes for one runner process (see the module's docstring)."""

    def __init__(self, limits: WorkerLimits = WorkerLimits()) -> None:
        self.limits = limits
        self.size = limits.workers or default_workers()
        self.config = WorkerConfig(
            threads=limits.threads,
            memory_mb=limits.memory_mb,
            output_chars=limits.output_chars,
            max_trace_bytes=limits.max_trace_bytes,
        )
        self._workers: list[WorkerProcess] = []
        self._solo: list[WorkerProcess] = []
        self._waiting: deque[Job] = deque()
        self._suspects: deque[Job] = deque()
        self._jobs: dict[int, Job] = {}
        self._deadlines: list[tuple[float, int]] = []
        self._overdue: dict[int, Job] = {}
        self._keys = itertools.count(1)
        self._monitor: asyncio.Task[None] | None = None
        self._spawning: set[asyncio.Task[None]] = set()
        self._closed = False
        self._start_failures = 0
        self._start_error = ""
        self._next_spawn_at = 0.0

    # -- the API ------------------------------------------------------------------------
    def start(self) -> None:
        """Start the workers now (in the background); otherwise the first trial does."""
        if self._closed:
            raise PoolClosed("the agent worker pool is closed")
        if self._monitor is None:
            self._monitor = asyncio.get_running_loop().create_task(self._watch())
        self._ensure_workers()

    async def run(self, item: tuple[Any, ...], timeout_s: float, label: str = "") -> bytes | Verdict:
        """Run one trial (``protocol.TrialItem`` without its key): the trace as JSON, or the
        pool's verdict when the worker could not send one."""
        out: bytes | Verdict = await self._submit("trial", item, timeout_s, label)
        return out

    async def load(self, spec: str) -> str | None:
        """Import the agent of ``spec`` in a worker: None when it loads, else why not."""
        out = await self._submit("load", spec, self.limits.load_timeout_s, spec)
        if isinstance(out, Verdict):
            return f"agent {spec!r} could not be loaded: {out.message}"
        error: str | None = out
        return error

    def worker_pids(self) -> list[int]:
        return [w.pid for w in self._workers + self._solo if w.pid is not None and w.alive]

    async def close(self) -> None:
        """Kill every worker; trials still running fail with PoolClosed."""
        self._closed = True
        if self._monitor is not None:
            self._monitor.cancel()
        workers = self._workers + self._solo
        for w in workers:
            w.kill("the pool closed")
        if self._spawning:  # each kills its process as soon as it exists (cancelling would race
            # asyncio's child watcher for the exit status)
            await asyncio.wait(list(self._spawning), timeout=5.0)
        for job in [*self._waiting, *self._suspects, *self._jobs.values()]:
            if not job.future.done():
                job.future.set_exception(PoolClosed("the runner is stopping"))
        self._waiting.clear()
        self._suspects.clear()
        gone = [w.gone for w in workers if not w.gone.done()]
        if gone:
            await asyncio.wait(gone, timeout=5.0)

    # -- dispatch -----------------------------------------------------------------------
    async def _submit(self, kind: str, payload: Any, timeout_s: float, label: str) -> Any:
        if self._closed:
            raise PoolClosed("the runner is stopping")
        if self._monitor is None:
            self.start()
        loop = asyncio.get_running_loop()
        job = Job(next(self._keys), kind, payload, timeout_s, label, loop.create_future())
        self._dispatch(job)
        return await job.future

    def _dispatch(self, job: Job) -> None:
        if job.future.done():  # its caller gave up (the runner is stopping): not worth running
            return
        now = asyncio.get_running_loop().time()
        best: WorkerProcess | None = None
        least = 1 << 62
        silent = False
        for w in self._workers:
            if w.state is not READY or w.retiring or w.killed is not None:
                continue
            load = len(w.inflight)
            if now - w.last_seen > SILENT_S:  # looks blocked: only if nothing else is there
                if job.kind == "load":  # a check waits for no blocked loop (see _rescue_loads)
                    silent = True
                    continue
                load += 1 << 40
            if load < least:
                best, least = w, load
        if best is None:
            if silent:
                self._quarantine(job)
                return
            self._waiting.append(job)
            self._ensure_workers()
            return
        self._assign(best, job, now)

    def _rescue_loads(self, now: float) -> None:
        """Checks of agents (a run's submission waits on them) sent to a worker whose loop
        another job blocks go elsewhere: otherwise a submit waits until that job's deadline
        kills the worker. A check whose own import holds the loop stays (its timeout judges it)."""
        for w in self._workers:
            if w.killed is not None or now - w.last_seen <= SILENT_S or w.blocked_by is None:
                continue
            for key, job in list(w.inflight.items()):
                if job.kind == "load" and key != w.blocked_by:
                    del w.inflight[key]
                    job.worker = None
                    self._dispatch(job)

    def _assign(self, w: WorkerProcess, job: Job, now: float) -> None:
        job.worker = w
        job.deadline = now + job.timeout_s
        w.inflight[job.key] = job
        self._jobs[job.key] = job
        heapq.heappush(self._deadlines, (job.deadline + self.limits.kill_grace_s, job.key))
        if job.kind == "trial":
            w.send_trial((job.key, *job.payload))
        else:
            w.send_load(job.key, job.payload)

    def _finish(self, job: Job, outcome: Any) -> None:
        self._jobs.pop(job.key, None)
        self._overdue.pop(job.key, None)
        job.worker = None
        if not job.future.done():
            job.future.set_result(outcome)

    # -- what workers report ------------------------------------------------------------
    def on_ready(self, w: WorkerProcess) -> None:
        w.state = READY
        self._start_failures = 0
        self._count_workers()
        if w.solo:
            self._next_suspect(w)
            return
        self._drain_waiting()

    def _drain_waiting(self) -> None:
        """Send waiting trials to the ready workers, keeping a share for each worker still
        starting (it is ready in a moment; the watch sends the rest if it never is)."""
        starting = sum(1 for w in self._workers if w.state is STARTING and w.killed is None)
        ready = sum(1 for w in self._workers if w.state is READY and w.alive and not w.retiring)
        if not ready:
            return
        n = len(self._waiting)
        if starting:
            n = -(-n * ready // (ready + starting))
        for _ in range(n):
            self._dispatch(self._waiting.popleft())

    def on_result(self, w: WorkerProcess, key: int, payload: bytes) -> None:
        job = w.inflight.pop(key, None)
        if job is None:
            return  # a result of a trial already judged (or a worker making things up)
        self._finish(job, payload)
        self._after_job(w)

    def on_message(self, w: WorkerProcess, message: dict[str, Any]) -> None:
        op = message.get("op")
        now = w.loop.time()
        key = message.get("k")
        if key is not None and type(key) is not int:
            w.kill("it sent a malformed message")
            return
        if op == "hb":
            w.last_seen = now
            w.blocked_by = None
            if message.get("tainted") is True and not w.retiring:
                self._retire(w, f"{message.get('stuck')} timed-out agent calls still running")
        elif op == "blocked":
            w.blocked_by, w.blocked_at = key, now
        elif op == "exit":
            code = message.get("code")
            w.exit_claim = (key, code if type(code) is int else -1)
        elif op == "loaded":
            w.last_seen = now
            job = w.inflight.pop(key, None) if key is not None else None
            if job is not None:
                error = message.get("error")
                self._finish(job, None if error is None else str(error)[:4000])
                self._after_job(w)
        elif op == "ready":
            w.last_seen = now
            self.on_ready(w)
        elif op == "fatal":
            w.fatal = str(message.get("message", ""))[-2000:]

    def _after_job(self, w: WorkerProcess) -> None:
        if w.solo:
            self._next_suspect(w)
        elif w.retiring and not w.inflight:
            w.kill("retired")

    def on_dead(self, w: WorkerProcess) -> None:
        for lane in (self._workers, self._solo):
            if w in lane:
                lane.remove(w)
        self._count_workers()
        jobs = list(w.inflight.values())
        w.inflight.clear()
        for job in jobs:
            self._jobs.pop(job.key, None)
            self._overdue.pop(job.key, None)
            job.worker = None
        if self._closed:
            for job in jobs:
                if not job.future.done():
                    job.future.set_exception(PoolClosed("the runner is stopping"))
            return
        if w.fatal is not None or (w.ended_in is STARTING and w.killed is None):
            self._start_failed(w)
        elif w.killed is None:
            instruments.AGENT_WORKER_EXITS.labels(reason="died").inc()
        culprit, verdict, suspects = w.kill_plan or blame.death(w, jobs, self.limits.memory_mb)
        if jobs or w.killed is None:
            log.warning(
                "agent worker ended",
                extra={
                    "pid": w.pid,
                    "why": w.killed or describe_exit(w.returncode),
                    "blamed": culprit.label if culprit is not None else None,
                    "rerun": len(jobs) - (culprit is not None),
                },
            )
        for job in jobs:
            if job is culprit:
                self._finish(job, verdict)
            elif job.key in suspects:
                self._quarantine(job)
            else:
                self._rerun(job)
        self._ensure_workers()
        self._ensure_solo()

    def _rerun(self, job: Job) -> None:
        job.reruns += 1
        if job.reruns > MAX_RERUNS:
            self._quarantine(job)
        else:
            self._dispatch(job)

    # -- quarantine ---------------------------------------------------------------------
    def _quarantine(self, job: Job) -> None:
        self._suspects.append(job)
        self._ensure_solo()

    def _ensure_solo(self) -> None:
        """Enough quarantine workers for the suspects waiting (at most one per pool worker)."""
        if self._closed or asyncio.get_running_loop().time() < self._next_spawn_at:
            return
        while (
            len(self._suspects) > sum(1 for w in self._solo if not w.inflight) and len(self._solo) < self.size
        ):
            self._spawn(solo=True)

    def _next_suspect(self, w: WorkerProcess) -> None:
        if w.inflight or not w.alive or w.state is not READY:
            return
        while self._suspects and self._suspects[0].future.done():
            self._suspects.popleft()
        if not self._suspects:
            w.kill("quarantine done")
            return
        self._assign(w, self._suspects.popleft(), w.loop.time())

    # -- the watch ----------------------------------------------------------------------
    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(TICK_S)
            try:
                self._check(loop.time())
            except Exception:  # the watch must go on
                log.exception("agent worker pool check failed")

    def _check(self, now: float) -> None:
        grace = self.limits.kill_grace_s
        heap = self._deadlines
        while heap and heap[0][0] <= now:
            _, key = heapq.heappop(heap)
            job = self._jobs.get(key)
            if job is not None and job.worker is not None and now >= job.deadline + grace:
                self._overdue[key] = job
        for key, job in list(self._overdue.items()):
            w = job.worker
            if w is None or self._jobs.get(key) is not job:
                del self._overdue[key]
                continue
            if w.killed is not None:
                continue
            if now - w.last_seen > SILENT_S:
                self._kill_blocked(w, now)
            elif now > job.deadline + 5 * grace:  # alive, yet this trial never comes back
                self._kill_blocked(w, now, job)
        self._rescue_loads(now)
        if self._waiting and not any(w.state is STARTING for w in self._workers):
            self._drain_waiting()
        if self._suspects:
            self._ensure_solo()
        for w in self._workers + self._solo:
            if w.state is STARTING and w.killed is None and now - w.started_at > self.limits.start_timeout_s:
                w.fatal = f"it did not start within {self.limits.start_timeout_s:g}s"
                w.kill("did not start")
        self._ensure_workers()

    def _kill_blocked(self, w: WorkerProcess, now: float, named: Job | None = None) -> None:
        w.kill_plan = blame.unresponsive(w, now, named)
        instruments.AGENT_WORKER_EXITS.labels(reason="unresponsive").inc()
        w.kill(f"its event loop was unresponsive for {now - w.last_seen:.1f}s past a trial's timeout")

    def _retire(self, w: WorkerProcess, why: str) -> None:
        w.retiring = True
        instruments.AGENT_WORKER_EXITS.labels(reason="retired").inc()
        log.info("retiring an agent worker", extra={"pid": w.pid, "why": why})
        if not w.inflight:
            w.kill("retired")
        self._ensure_workers()

    # -- workers coming and going -------------------------------------------------------
    def _ensure_workers(self) -> None:
        if self._closed:
            return
        now = asyncio.get_running_loop().time()
        if now < self._next_spawn_at:
            return
        serving = sum(1 for w in self._workers if not w.retiring and w.killed is None)
        for _ in range(self.size - serving):
            self._spawn(solo=False)

    def _spawn(self, solo: bool) -> None:
        w = WorkerProcess(self, self.config, solo=solo)
        (self._solo if solo else self._workers).append(w)
        task = asyncio.get_running_loop().create_task(w.start())
        self._spawning.add(task)
        task.add_done_callback(self._spawning.discard)

    def _start_failed(self, w: WorkerProcess) -> None:
        self._start_failures += 1
        self._start_error = w.fatal or describe_exit(w.returncode)
        instruments.AGENT_WORKER_EXITS.labels(reason="failed_start").inc()
        log.error("an agent worker could not start", extra={"error": self._start_error[-2000:]})
        now = w.loop.time()
        self._next_spawn_at = now + min(10.0, 0.5 * 2**self._start_failures)
        if self._start_failures >= MAX_START_FAILURES and not any(x.state is READY for x in self._workers):
            verdict = Verdict(
                "error", "agent_worker_failed", f"agent worker processes could not start: {self._start_error}"
            )
            for job in [*self._waiting, *self._suspects]:
                self._finish(job, verdict)
            self._waiting.clear()
            self._suspects.clear()

    def _count_workers(self) -> None:
        instruments.AGENT_WORKERS.set(sum(1 for w in self._workers + self._solo if w.state is not DEAD))
