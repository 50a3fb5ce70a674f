"""One worker process seen from the pool: spawn it, exchange frames with it, kill it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import marshal
import os
import signal
import struct
import sys
from pathlib import Path
from typing import Any, TypeAlias, TypeGuard

from agenteval.sandbox._types import SandboxLimits

SANDBOX_DIR = str(Path(__file__).resolve().parent)
HEADER = struct.Struct(">I")
# No secrets from the parent's environment reach eval code.
WORKER_ENV = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}


_SCALARS = frozenset({str, int, float, bool, type(None)})

PlainValue: TypeAlias = dict[str, Any] | list[Any] | str | int | float | bool | None
"""JSON data as ``is_plain`` accepts it (exact types all the way down)."""


def is_plain(value: object) -> TypeGuard[PlainValue]:
    """Whether ``value`` holds only dicts with str keys, lists and JSON scalars (exact types)."""
    stack = [value]
    pop, push = stack.pop, stack.append
    scalars = _SCALARS
    while stack:
        item = pop()
        kind = type(item)
        if kind is dict:
            for key, child in item.items():  # type: ignore[attr-defined]
                if type(key) is not str:
                    return False
                if type(child) not in scalars:
                    push(child)
        elif kind is list:
            for child in item:  # type: ignore[attr-defined]
                if type(child) not in scalars:
                    push(child)
        elif kind not in scalars:
            return False
    return True


def encode_trace(trace: object) -> bytes:
    """A trace as the worker receives it: marshal of its JSON form.

    marshal is several times faster than JSON on both ends; the exact-type check keeps
    what crosses to eval code JSON data (a code object in a trace would be an escape).
    Anything else goes through JSON (``default=str``) first.
    """
    if is_plain(trace):
        return marshal.dumps(trace)
    return marshal.dumps(json.loads(json.dumps(trace, default=str)))


class WorkerDied(Exception):
    """The worker closed its pipe, sent a malformed frame or could not start."""


def max_frame_bytes(limits: SandboxLimits) -> int:
    """The largest frame an honest worker sends (JSON may escape a byte as 6 characters)."""
    payload = limits.max_output_bytes + limits.max_error_chars * 4 + limits.max_llm_prompt_bytes
    return 65_536 + 6 * payload


class WorkerProcess:
    """A sandbox worker (``python -I -S -B``) speaking length-prefixed frames over its pipes:
    marshal to it (we trust what we send), JSON from it (never unmarshal its output)."""

    def __init__(self, limits: SandboxLimits) -> None:
        self.limits = limits
        self.proc: asyncio.subprocess.Process | None = None
        self._max_frame = max_frame_bytes(limits)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.alive and self.proc is not None else None

    async def start(self) -> None:
        config = json.dumps(
            {
                "sandbox_dir": SANDBOX_DIR,
                "memory_mb": self.limits.memory_mb,
                "max_open_files": self.limits.max_open_files,
                "recursion_limit": self.limits.recursion_limit,
            }
        )
        bootstrap = (
            f"import sys; sys.path.insert(0, {SANDBOX_DIR!r}); import _worker; _worker.main({config!r})"
        )
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-I",
            "-S",
            "-B",
            "-c",
            bootstrap,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=WORKER_ENV,
            cwd="/",
            # Its own process group: if a wall ever failed, killpg takes any children too.
            start_new_session=True,
        )
        try:
            async with asyncio.timeout(self.limits.startup_timeout_s):
                ready = await self.read()
        except (TimeoutError, WorkerDied) as exc:
            await self.kill()
            raise WorkerDied(f"sandbox worker did not start: {exc or type(exc).__name__}") from None
        if ready.get("op") != "ready":
            await self.kill()
            raise WorkerDied(f"sandbox worker did not start: {ready.get('message', ready)}")

    def send(self, message: dict[str, Any]) -> None:
        """Queue a frame to the worker (call :meth:`drain` to wait until it is written)."""
        assert self.proc is not None and self.proc.stdin is not None
        data = marshal.dumps(message)
        self.proc.stdin.write(HEADER.pack(len(data)) + data)

    async def drain(self) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            await self.proc.stdin.drain()
        except (ConnectionError, BrokenPipeError) as exc:
            raise WorkerDied(f"worker pipe closed: {exc}") from None

    async def read(self) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        stdout = self.proc.stdout
        try:
            (size,) = HEADER.unpack(await stdout.readexactly(4))
            if size > self._max_frame:
                raise WorkerDied(f"worker sent a {size}-byte frame (limit {self._max_frame})")
            message = json.loads(await stdout.readexactly(size))
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            raise WorkerDied(f"worker pipe closed: {exc}") from None
        except ValueError as exc:
            raise WorkerDied(f"worker sent a malformed frame: {exc}") from None
        if not isinstance(message, dict):
            raise WorkerDied("worker sent a frame that is not an object")
        return message

    async def exit_status(self, wait_s: float = 1.0) -> int | None:
        """The return code once the process has exited (kills it if it lingers)."""
        if self.proc is None:
            return None
        try:
            async with asyncio.timeout(wait_s):
                return await self.proc.wait()
        except TimeoutError:
            await self.kill()
            return self.proc.returncode

    async def kill(self) -> None:
        proc = self.proc
        if proc is None:
            return
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        await proc.wait()
        self._close_pipes()

    async def close(self) -> None:
        """Ask the worker to exit (EOF on its input), then make sure it is gone."""
        proc = self.proc
        if proc is None:
            return
        if proc.returncode is None and proc.stdin is not None:
            proc.stdin.close()
            try:
                async with asyncio.timeout(1.0):
                    await proc.wait()
            except TimeoutError:
                pass
        await self.kill()

    def _close_pipes(self) -> None:
        proc = self.proc
        if proc is not None and proc.stdin is not None and not proc.stdin.is_closing():
            proc.stdin.close()


def describe_exit(returncode: int | None, limits: SandboxLimits) -> tuple[str, str]:
    """The rule and message for a worker that died mid-call with ``returncode``."""
    if returncode is not None and returncode < 0:
        signum = -returncode
        if signum == signal.SIGXCPU:
            return "timeout", f"the eval function exceeded the CPU time limit of {limits.cpu_s} s"
        try:
            name = signal.Signals(signum).name
        except ValueError:
            name = f"signal {signum}"
        return "worker_crashed", f"the worker process was killed by {name} during the call; it was replaced"
    return (
        "worker_crashed",
        f"the worker process exited (status {returncode}) during the call; it was replaced",
    )
