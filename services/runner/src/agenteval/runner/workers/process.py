"""One agent worker process seen from the pool: spawn it, feed it, hear it, kill it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from agenteval.runner.workers import protocol

if TYPE_CHECKING:
    from agenteval.runner.workers.jobs import Job

STARTING, READY, DEAD = "starting", "ready", "dead"
F_SETPIPE_SZ = 1031
PIPE_BYTES = 1 << 20
"""Pipe buffers of 1 MiB (Linux), so a burst of traces does not stall a worker's loop."""


@dataclass(frozen=True)
class WorkerConfig:
    """What a worker is started with (see ``worker.main``)."""

    threads: int
    memory_mb: int
    output_chars: int
    max_trace_bytes: int


class Events(Protocol):
    """What a worker reports to its pool."""

    def on_result(self, worker: WorkerProcess, key: int, payload: bytes) -> None: ...

    def on_message(self, worker: WorkerProcess, message: dict[str, Any]) -> None: ...

    def on_dead(self, worker: WorkerProcess) -> None: ...


class WorkerProcess:
    """A worker (``python -I -c ...``) speaking ``protocol`` frames over its stdin and stdout."""

    def __init__(self, events: Events, config: WorkerConfig, solo: bool = False) -> None:
        self.events = events
        self.config = config
        self.solo = solo
        """A quarantine worker: one trial at a time, so a crash names its trial."""
        self.state = STARTING
        self.inflight: dict[int, Job] = {}
        self.pid: int | None = None
        self.loop = asyncio.get_running_loop()
        self.started_at = self.loop.time()
        self.last_seen = self.started_at
        """When the worker's event loop was last heard from (results, heartbeats)."""
        self.blocked_by: int | None = None
        self.blocked_at = 0.0
        self.exit_claim: tuple[int | None, int] | None = None
        """(trial key, code) of an ``os._exit`` the worker reported."""
        self.retiring = False
        self.killed: str | None = None
        """Why the pool killed it (None: it died by itself, or lives)."""
        self.kill_plan: Any = None
        self.fatal: str | None = None
        self.returncode: int | None = None
        self.ended_in = STARTING
        """Its state when it ended (starting: it never became ready)."""
        self._transport: asyncio.SubprocessTransport | None = None
        self._spawning = False
        self._stdin: Any = None
        self._outbox: list[protocol.TrialItem] = []
        self._reader = protocol.FrameReader(max_bytes=config.max_trace_bytes + (1 << 20))
        self.gone = self.loop.create_future()

    @property
    def alive(self) -> bool:
        return self.state != DEAD and self.killed is None

    async def start(self) -> None:
        config = json.dumps(
            {
                "parent": os.getpid(),
                "threads": self.config.threads,
                "memory_mb": self.config.memory_mb,
                "output_chars": self.config.output_chars,
                "max_trace_bytes": self.config.max_trace_bytes,
            }
        )
        bootstrap = (
            f"import sys; sys.path[:] = {list(sys.path)!r}; "
            f"from agenteval.runner.workers.worker import main; main({config!r})"
        )
        env = dict(os.environ)
        # glibc reserves 64 MiB of address space per thread arena: with a limit on the address
        # space, many agent threads would hit it long before they used the memory.
        env.setdefault("MALLOC_ARENA_MAX", "2")
        self._spawning = True
        try:
            transport, _ = await self.loop.subprocess_exec(
                lambda: _Protocol(self),
                sys.executable,
                "-I",
                "-c",
                bootstrap,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                env=env,
                # Its own process group: killing it takes whatever the agent started too.
                start_new_session=True,
            )
        except Exception as exc:
            self.fatal = f"could not start a worker process: {type(exc).__name__}: {exc}"
            self._spawning = False
            self._dead()
            return
        self._spawning = False
        self._transport = transport
        self.pid = transport.get_pid()
        self._stdin = transport.get_pipe_transport(0)
        if self.killed is not None:  # killed while it was being spawned
            self.kill(self.killed)
            return
        for fd in (0, 1):
            pipe = transport.get_pipe_transport(fd)
            with contextlib.suppress(Exception):
                import fcntl

                assert pipe is not None
                fcntl.fcntl(pipe.get_extra_info("pipe").fileno(), F_SETPIPE_SZ, PIPE_BYTES)

    # -- to the worker --------------------------------------------------------------------
    def send_trial(self, item: protocol.TrialItem) -> None:
        """Queue a trial; what is queued in one turn of the loop goes as one frame."""
        if not self._outbox:
            self.loop.call_soon(self._flush)
        self._outbox.append(item)

    def _flush(self) -> None:
        items, self._outbox = self._outbox, []
        if items:
            self._write(protocol.trials_frame(items))

    def send_load(self, key: int, spec: str) -> None:
        import marshal

        self._write(protocol.frame(protocol.LOAD, marshal.dumps((key, spec))))

    def _write(self, data: bytes) -> None:
        stdin = self._stdin
        if stdin is not None and not stdin.is_closing() and self.alive:
            stdin.write(data)

    # -- from the worker ------------------------------------------------------------------
    def received(self, data: bytes) -> None:
        if self.state == DEAD or self.killed is not None:
            return
        try:
            frames = self._reader.feed(data)
        except ValueError as exc:
            self.kill(f"it sent {exc}")
            return
        now = self.loop.time()
        events = self.events
        for kind, payload in frames:
            if kind == protocol.RESULT:
                self.last_seen = now
                (key,) = protocol.KEY.unpack_from(payload)
                events.on_result(self, key, payload[protocol.KEY.size :])
            elif kind == protocol.MESSAGE:
                try:
                    message = json.loads(payload)
                except ValueError:
                    message = None
                if not isinstance(message, dict):
                    self.kill("it sent a malformed message")
                    return
                events.on_message(self, message)
            else:
                self.kill(f"it sent a frame of unknown kind {kind}")
                return
            if self.killed is not None:
                return

    # -- ending ---------------------------------------------------------------------------
    def kill(self, why: str) -> None:
        """SIGKILL the worker and everything it started; the pool hears of it in ``on_dead``."""
        if self.killed is None:
            self.killed = why
        if self.pid is not None and self.state != DEAD:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                if self._transport is not None:
                    self._transport.kill()
        if self._transport is None and not self._spawning and self.state != DEAD:
            self._dead()

    def exited(self) -> None:
        """The process ended: take its process group down too, and do not wait for ever on
        pipes a grandchild still holds."""
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
        if self._transport is not None:
            self.loop.call_later(0.5, self._transport.close)

    def _dead(self) -> None:
        if self.state == DEAD:
            return
        if self._transport is not None:
            self.returncode = self._transport.get_returncode()
            self._transport.close()
        self.ended_in = self.state
        self.state = DEAD
        if not self.gone.done():
            self.gone.set_result(None)
        self.events.on_dead(self)


class _Protocol(asyncio.SubprocessProtocol):
    def __init__(self, worker: WorkerProcess) -> None:
        self.worker = worker

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self.worker.received(data)

    def process_exited(self) -> None:
        self.worker.exited()

    def connection_lost(self, exc: Exception | None) -> None:
        self.worker._dead()


def describe_exit(returncode: int | None) -> str:
    """ "agent process exited with code N" / "... was killed by SIGNAME"."""
    if returncode is None:
        return "agent process ended"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"agent process was killed by {name}"
    return f"agent process exited with code {returncode}"
