"""Infrastructure the drills break: a 3-node JetStream cluster and a private PostgreSQL
server (initdb + pg_ctl on a free port), each started and killed as real processes."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import nats

from agenteval.runtime.nats_server import free_port, nats_server_binary


class NatsCluster:
    """Three nats-servers with JetStream, clustered over routes on loopback (the flags
    docker-compose.yml gives its nats-1..3)."""

    def __init__(self, root: Path, size: int = 3) -> None:
        self.root = root
        self.names = [f"n{i + 1}" for i in range(size)]
        self.ports = {name: free_port() for name in self.names}
        self.routes = {name: free_port() for name in self.names}
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    @property
    def url(self) -> str:
        """Every node, as services take it (AGENTEVAL_NATS_URL)."""
        return ",".join(f"nats://127.0.0.1:{self.ports[n]}" for n in self.names)

    def start_node(self, name: str) -> None:
        routes = ",".join(f"nats://127.0.0.1:{self.routes[n]}" for n in self.names if n != name)
        store = self.root / name
        store.mkdir(parents=True, exist_ok=True)
        self.procs[name] = subprocess.Popen(
            [
                str(nats_server_binary()),
                "-a",
                "127.0.0.1",
                "-p",
                str(self.ports[name]),
                "--server_name",
                name,
                "--cluster_name",
                "agenteval",
                "--cluster",
                f"nats://127.0.0.1:{self.routes[name]}",
                "--routes",
                routes,
                "-js",
                "-sd",
                str(store),
                "-l",
                str(self.root / f"{name}.log"),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    async def start(self, timeout_s: float = 60.0) -> None:
        for name in self.names:
            self.start_node(name)
        await self.wait_jetstream(timeout_s)

    async def wait_jetstream(self, timeout_s: float = 60.0) -> None:
        """Until the cluster has a JetStream meta leader (it answers account info)."""
        async with asyncio.timeout(timeout_s):
            while True:
                try:
                    nc = await nats.connect(self.url.split(","), connect_timeout=1, max_reconnect_attempts=1)
                    try:
                        await nc.jetstream().account_info()
                        return
                    finally:
                        await nc.close()
                except Exception:
                    await asyncio.sleep(0.3)

    async def stream_leader(self, stream: str) -> str:
        nc = await nats.connect(self.url.split(","))
        try:
            info = await nc.jetstream().stream_info(stream)
            assert info.cluster is not None and info.cluster.leader, "the stream has no leader"
            return str(info.cluster.leader)
        finally:
            await nc.close()

    def kill(self, name: str) -> None:
        proc = self.procs.pop(name)
        proc.send_signal(signal.SIGKILL)
        proc.wait()

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.kill()
        for proc in self.procs.values():
            proc.wait()
        self.procs.clear()


def _as_postgres(args: list[str]) -> list[str]:
    """initdb and pg_ctl refuse to run as root: run them as the postgres user then."""
    if os.geteuid() != 0:
        return args
    return ["runuser", "-u", "postgres", "--", *args]


class PrivatePostgres:
    """A PostgreSQL server of the test's own, so it can be stopped and started mid-run."""

    def __init__(self) -> None:
        # Its own directory: pytest's are private to root, and the server runs as postgres.
        self.root = Path(tempfile.mkdtemp(prefix="agenteval-pg-"))
        self.data = self.root / "pgdata"
        self.port = free_port()

    @staticmethod
    def available() -> bool:
        return shutil.which("initdb") is not None and shutil.which("pg_ctl") is not None

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        subprocess.run(_as_postgres(list(args)), check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-N")

    def start(self) -> None:
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.root / "pg.log"),
            "-w",
            "-t",
            "60",
            "-o",
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
