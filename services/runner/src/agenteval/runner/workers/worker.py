"""An agent worker: a process of the runner's pool that runs ``python:`` and ``anthropic:`` agents.

Started by the pool as ``python -I -c <bootstrap>`` (with the runner's ``sys.path``, working
directory and environment), it reads batches of trials from its stdin and writes their traces
to its stdout (see ``protocol``). Many trials run at once: async agents as tasks of one event
loop, sync agents on a bounded thread pool. The worker enforces each trial's timeout itself
and sends the trace as JSON; what the agent prints is captured into it (``capture``).

What the pool cannot get from a trace, the worker tells it:
- its event loop ticks every HEARTBEAT_S (``hb``), with the count of abandoned calls (timed-out
  sync agents still holding a thread, tasks that ignored cancellation) and whether it should
  be retired for them;
- a watchdog thread notices a loop that stopped ticking and names the trial whose task holds
  it (``blocked``), so the pool kills the worker and blames that trial only;
- ``os._exit`` and ``os.abort`` say which trial called them (``exit``) before the process ends.
A thread also watches the parent: the worker ends with it (and with EOF on its stdin).
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import json
import marshal
import os
import sys
import threading
import time
import traceback
from typing import TYPE_CHECKING, Any

from agenteval.runner.workers import protocol
from agenteval.runner.workers.capture import CURRENT, CapturedText, TrialIO

if TYPE_CHECKING:
    from agenteval.contracts.trace import Trace

_real_exit = os._exit
_real_abort = os.abort

RETIRE_STUCK_AFTER_S = 2.0
"""A worker asks to be retired once a call has run this long past its trial's timeout."""


class Channel:
    """The write end to the pool, shared by the loop, the watchdog and the exit hooks."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.lock = threading.Lock()

    def send(self, data: bytes, timeout: float = -1) -> None:
        if not self.lock.acquire(timeout=timeout):
            return
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view) :]
        except OSError:  # the pool is gone
            _real_exit(0)
        finally:
            self.lock.release()


class TrialTask(asyncio.Task[Any]):
    """A task that knows the trial it works for (the watchdog reads it from another thread)."""

    trial: TrialIO | None = None


def _task_factory(
    loop: asyncio.AbstractEventLoop, coro: Any, context: contextvars.Context | None = None
) -> TrialTask:
    task = TrialTask(coro, loop=loop, context=context)
    task.trial = context.get(CURRENT) if context is not None else CURRENT.get()
    return task


class _Running:
    """A trial in progress, for answering for it if its agent will not stop."""

    __slots__ = ("ctx", "io", "meta", "started", "task", "timeout_s")

    def __init__(self, ctx: Any, meta: dict[str, Any], timeout_s: float, io: TrialIO) -> None:
        self.ctx, self.meta, self.timeout_s, self.io = ctx, meta, timeout_s, io
        self.started = time.monotonic()
        self.task = asyncio.current_task()


class Worker:
    def __init__(self, channel: Channel, config: dict[str, Any]) -> None:
        # Imported once the pipes are private: nothing printed at import time reaches the pool.
        from agenteval.contracts.errors import InvalidArgument
        from agenteval.contracts.trace import Trace, TrialError
        from agenteval.runner import agents, executor
        from agenteval.sdk import AgentContext

        self.AgentContext = AgentContext
        self.Trace = Trace
        self.TrialError = TrialError
        self.InvalidArgument = InvalidArgument
        self.channel = channel
        self.cap = int(config["output_chars"])
        self.max_trace_bytes = int(config["max_trace_bytes"])
        self.parent = int(config["parent"])
        self.agents = agents
        self.executor = executor
        agents.threads = agents.AgentThreads(int(config["threads"]))
        if int(config["memory_mb"]):
            executor.MEMORY_HINT = (
                f" (each agent worker may use {config['memory_mb']} MB: AGENTEVAL_RUNNER_AGENT_MEMORY_MB)"
            )
        self.memory_bytes = int(config["memory_mb"]) * 1024 * 1024
        self.ticks = 0
        self.out: list[bytes] = []
        self.running: dict[int, _Running] = {}
        self.last_tick = time.monotonic()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.loop_thread = threading.get_ident()

    # -- the loop -------------------------------------------------------------------------
    async def serve(self, in_fd: int) -> None:
        loop = self.loop = asyncio.get_running_loop()
        loop.set_task_factory(_task_factory)
        closed = loop.create_future()
        reader = protocol.FrameReader(max_bytes=1 << 31)

        class Reader(asyncio.Protocol):
            def data_received(_self, data: bytes) -> None:
                for kind, payload in reader.feed(data):
                    self.on_frame(kind, payload)

            def connection_lost(_self, exc: Exception | None) -> None:
                if not closed.done():
                    closed.set_result(None)

        await loop.connect_read_pipe(Reader, os.fdopen(in_fd, "rb", buffering=0))
        threading.Thread(target=self._watchdog, name="watchdog", daemon=True).start()
        self._send_now(protocol.message_frame({"op": "ready", "pid": os.getpid()}))
        self._tick()
        await closed  # EOF: the pool closed us or is gone; whatever still runs is dropped

    def on_frame(self, kind: int, payload: bytes) -> None:
        assert self.loop is not None
        if kind == protocol.TRIALS:
            for item in marshal.loads(payload):
                self._start(item[0], self.run_trial(item))
        elif kind == protocol.LOAD:
            key, spec = marshal.loads(payload)
            self._start(key, self.load(key, spec))

    def _start(self, key: int, coro: Any) -> None:
        assert self.loop is not None
        context = contextvars.copy_context()
        context.run(CURRENT.set, TrialIO(key, self.cap))
        self.loop.create_task(coro, context=context)

    # -- trials ---------------------------------------------------------------------------
    async def run_trial(self, item: protocol.TrialItem) -> None:
        (key, spec, messages, run_id, case_id, index, seed, state, mocks, metadata, timeout_s, version) = item
        executor = self.executor
        trial = CURRENT.get()
        assert trial is not None
        try:
            ctx = self.AgentContext(
                run_id=run_id,
                case_id=case_id,
                trial_index=index,
                seed=seed,
                initial_state=state,
                tool_mocks=mocks,
                metadata=metadata,
            )
            meta = executor.trial_metadata(seed, spec, version)
            self.running[key] = _Running(ctx, meta, timeout_s, trial)
            trace = await executor.run_agent(spec, messages, ctx, timeout_s, meta)
            if self.running.pop(key, None) is None:
                return  # it ignored its cancellation and was answered for (see _sweep)
            if trace.error is not None and trace.error.code == "agent_out_of_memory":
                gc.collect()  # what the agent hoarded, before the next trial needs memory
            data = self._dump(trace, trial)
        except Exception as exc:  # a fault of the worker's own, kept to this trial
            if self.running.pop(key, 0) is None:
                return
            error = self.TrialError(code="worker_error", message=f"{type(exc).__name__}: {exc}"[:4000])
            data = self._dump(self.Trace(status="error", error=error), trial)
        self._answer(key, data)

    def _answer(self, key: int, data: bytes) -> None:
        if self.agents.threads.abandoned:
            # Before the result: the pool must know this worker is to be retired before it
            # sends the next trial here (its threads may all be stuck now).
            self._heartbeat()
        self._send(protocol.result_frame(key, data))

    def _sweep(self, now: float) -> None:
        """Answer for trials whose agent ignored its cancellation: a timeout, with what it
        recorded so far; the agent is abandoned (and counted as stuck)."""
        grace = self.executor.CANCEL_GRACE_S
        late = [k for k, r in self.running.items() if now - r.started > r.timeout_s + grace]
        for key in late:
            run = self.running.pop(key)
            trace = self.executor.build_trace(
                run.ctx,
                run.meta,
                (now - run.started) * 1000.0,
                None,
                self.executor.timeout_error(run.timeout_s),
            )
            if run.task is not None:
                self.agents.threads.abandon(run.task)
            self._answer(key, self._dump(trace, run.io))

    def _dump(self, trace: Trace, trial: TrialIO) -> bytes:
        executor = self.executor
        trial.attach(trace.metadata)
        try:
            data: bytes = trace.__pydantic_serializer__.to_json(trace)
        except Exception as exc:
            trace = executor.unserializable(trace, exc)
            trial.attach(trace.metadata)
            data = trace.__pydantic_serializer__.to_json(trace)
        if len(data) > self.max_trace_bytes:
            message = (
                f"the trace is {len(data)} bytes, over the limit of {self.max_trace_bytes} bytes "
                "(AGENTEVAL_RUNNER_AGENT_MAX_TRACE_BYTES)"
            )
            trace = trace.model_copy(
                update={
                    "steps": [],
                    "state": {},
                    "output": None,
                    "status": "error",
                    "error": self.TrialError(code="trace_too_large", message=message),
                    "metadata": executor.trial_metadata(
                        trace.metadata.get("seed", 0), trace.metadata.get("agent", ""), ""
                    ),
                }
            )
            trial.attach(trace.metadata)
            data = trace.__pydantic_serializer__.to_json(trace)
        return data

    async def load(self, key: int, spec: str) -> None:
        error = None
        try:
            self.agents.load_agent(spec)
        except Exception as exc:
            error = str(exc) if isinstance(exc, self.InvalidArgument) else f"{type(exc).__name__}: {exc}"
        except SystemExit as exc:
            error = f"agent {spec!r}: importing it called sys.exit({exc.code!r})"
        self._send(protocol.message_frame({"op": "loaded", "k": key, "error": error}))

    # -- sending --------------------------------------------------------------------------
    def _send(self, data: bytes) -> None:
        """Queue a frame; everything queued in one turn of the loop goes in one write."""
        if not self.out:
            assert self.loop is not None
            self.loop.call_soon(self._flush)
        self.out.append(data)

    def _flush(self) -> None:
        data, self.out = b"".join(self.out), []
        self.channel.send(data)

    def _send_now(self, data: bytes) -> None:
        self.channel.send(data)

    def _tick(self) -> None:
        assert self.loop is not None
        self.last_tick = time.monotonic()
        if self.running:
            self._sweep(self.last_tick)
        self.ticks += 1
        memory = bool(self.memory_bytes) and self.ticks % 5 == 0
        self._heartbeat(check_memory=memory)
        self.loop.call_later(protocol.HEARTBEAT_S, self._tick)

    def _heartbeat(self, check_memory: bool = False) -> None:
        """Say the loop is alive, and whether this worker should be retired."""
        threads = self.agents.threads
        stuck = len(threads.abandoned)
        tainted = stuck > 0 and (
            threads.oldest_abandoned_s() > RETIRE_STUCK_AFTER_S or stuck >= max(1, threads.size // 2)
        )
        if check_memory and _address_space() > 0.8 * self.memory_bytes:
            tainted = True  # what an agent keeps (a cache, a leak) leaves too little for the next ones
        self._send(protocol.message_frame({"op": "hb", "stuck": stuck, "tainted": tainted}))

    # -- the watchdog thread --------------------------------------------------------------
    def _watchdog(self) -> None:
        reported = 0.0
        while True:
            time.sleep(protocol.HEARTBEAT_S)
            if os.getppid() != self.parent:
                _real_exit(0)
            now = time.monotonic()
            lag = now - self.last_tick
            if lag > protocol.BLOCKED_AFTER_S and now - reported > protocol.BLOCKED_AFTER_S:
                key = self._blocking_trial()
                self.channel.send(
                    protocol.message_frame({"op": "blocked", "k": key, "for_s": round(lag, 3)}), timeout=1.0
                )
                reported = now

    def _blocking_trial(self) -> int | None:
        # A function of its own, so the watchdog keeps no reference to the task (and to what
        # its agent holds: a memory hog's hoard) once it has named it.
        task = asyncio.current_task(self.loop)
        trial = getattr(task, "trial", None)
        return trial.key if trial is not None else None

    # -- exits ----------------------------------------------------------------------------
    def exiting(self, code: int) -> None:
        """Tell the pool which trial ends the process (and send what is finished already)."""
        trial = CURRENT.get()
        if threading.get_ident() == self.loop_thread and self.out:
            data, self.out = b"".join(self.out), []
            self.channel.send(data, timeout=1.0)
        key = trial.key if trial is not None else None
        self.channel.send(protocol.message_frame({"op": "exit", "k": key, "code": code}), timeout=1.0)


def _address_space() -> int:
    """VmSize of this process in bytes (0 when it cannot be read)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _private_pipes() -> tuple[int, int]:
    """Move the pipes to the pool off fds 0 and 1, and point fds 0, 1 and 2 at /dev/null:
    nothing an agent (or a C library) writes to them can reach the pool or the runner's log."""
    in_fd, out_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    sys.stdout = CapturedText(0)
    sys.stderr = CapturedText(1)
    return in_fd, out_fd


def _die_with_parent(parent: int) -> None:
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass  # the watchdog thread checks the parent too
    if os.getppid() != parent:
        _real_exit(0)


def _limit_memory(memory_mb: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def main(config_json: str) -> None:
    config = json.loads(config_json)
    in_fd, out_fd = _private_pipes()
    channel = Channel(out_fd)
    try:
        _die_with_parent(int(config["parent"]))
        worker = Worker(channel, config)

        def exit_hook(code: int) -> None:
            if isinstance(code, int):  # anything else: os._exit's own TypeError
                try:
                    worker.exiting(code)
                finally:
                    _real_exit(code)
            _real_exit(code)

        def abort_hook() -> None:
            try:
                worker.exiting(-6)
            finally:
                _real_abort()

        os._exit = exit_hook  # type: ignore[assignment]
        os.abort = abort_hook  # type: ignore[assignment]
        _limit_memory(int(config["memory_mb"]))
    except BaseException:
        message = traceback.format_exc()[-4000:]
        channel.send(protocol.message_frame({"op": "fatal", "message": message}))
        _real_exit(70)
    try:
        asyncio.run(worker.serve(in_fd))
    except BaseException:
        pass
    _real_exit(0)  # not waiting for abandoned agent threads
