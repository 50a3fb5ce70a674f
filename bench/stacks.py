"""The stacks a workload runs against: embedded (one process) or distributed (one per service).

Both are async context managers that yield a :class:`BenchStack`: the gRPC target a
client talks to, and the processes whose CPU and peak memory belong to the stack.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench.procs import StackProcess, with_helpers

ROOT = Path(__file__).resolve().parents[1]
PG_URL = os.environ.get("AGENTEVAL_BENCH_PG_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
CLIENT_ADDR_ENV = {
    "runner": "AGENTEVAL_RUNNER_ADDR",
    "transcript_store": "AGENTEVAL_TRANSCRIPTS_ADDR",
    "grader": "AGENTEVAL_GRADER_ADDR",
    "metrics": "AGENTEVAL_METRICS_ADDR",
    "eval_generator": "AGENTEVAL_EVALGEN_ADDR",
}


@dataclass
class BenchStack:
    """A running stack: where clients connect, and which processes are the stack."""

    mode: str
    target: str
    main: list[StackProcess]
    """The stack's own processes; :meth:`processes` adds their helpers (nats-server, sandbox workers)."""
    extra: list[StackProcess] = field(default_factory=list)
    """Processes the stack uses that are not descendants of ``main`` (a separate nats-server)."""
    nats_url: str = ""
    bus_prefix: str = "agenteval"

    def processes(self) -> list[StackProcess]:
        return with_helpers(self.main + self.extra)


@contextmanager
def patched_env(values: dict[str, str]) -> Iterator[None]:
    """Set environment variables for the duration of the block, then restore them."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@asynccontextmanager
async def embedded(runner_concurrency: int | None = None) -> AsyncIterator[BenchStack]:
    """Every service in this process (``EmbeddedStack``), SQLite and JetStream in a temp dir."""
    from agenteval.cli.stack import EmbeddedStack

    env = {"AGENTEVAL_RUNNER_CONCURRENCY": str(runner_concurrency)} if runner_concurrency else {}
    with patched_env(env), tempfile.TemporaryDirectory(prefix="agenteval-bench-") as tmp:
        async with EmbeddedStack(Path(tmp)) as stack:
            yield BenchStack(
                "embedded", stack.target, [StackProcess("embedded", os.getpid())], nats_url=stack.nats.url
            )


async def _admin(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(PG_URL)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def _tail(log: Path) -> str:
    return log.read_text(errors="replace")[-3000:]


async def wait_serving(
    target: str, proc: subprocess.Popen[bytes], log: Path, timeout_s: float = 90.0
) -> None:
    """Wait until the service at ``target`` reports SERVING; fail with its log if it exits."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = asyncio.get_running_loop().time() + timeout_s
    async with grpc.aio.insecure_channel(target) as ch:
        stub = health_pb2_grpc.HealthStub(ch)
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"service at {target} exited at start:\n{_tail(log)}")
            try:
                resp = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1.0)
                if resp.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            if asyncio.get_running_loop().time() > deadline:
                raise RuntimeError(f"service at {target} did not become SERVING:\n{_tail(log)}")
            await asyncio.sleep(0.1)


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@asynccontextmanager
async def distributed(runners: int = 1, runner_concurrency: int | None = None) -> AsyncIterator[BenchStack]:
    """One process per service (``runners`` runner replicas), a nats-server of its own, and a
    fresh PostgreSQL database (dropped after)."""
    from agenteval.runtime.nats_server import EmbeddedNats, free_port

    with tempfile.TemporaryDirectory(prefix="agenteval-bench-") as tmp_name:
        tmp = Path(tmp_name)
        nats = EmbeddedNats(tmp / "jetstream")
        await nats.start()
        database = f"bench_{secrets.token_hex(5)}"
        await _admin(f'CREATE DATABASE "{database}"')
        prefix = f"bench{secrets.token_hex(4)}"
        env = {
            **os.environ,
            "AGENTEVAL_NATS_URL": nats.url,
            "AGENTEVAL_BUS_PREFIX": prefix,
            "AGENTEVAL_DATABASE_URL": f"{PG_URL.rsplit('/', 1)[0]}/{database}",
            "AGENTEVAL_DATA_DIR": str(tmp / "data"),
            "AGENTEVAL_LOG_LEVEL": "WARNING",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        }
        if runner_concurrency:
            env["AGENTEVAL_RUNNER_CONCURRENCY"] = str(runner_concurrency)
        names = ["runner"] * runners + ["grader", "metrics", "transcript_store", "eval_generator"]
        procs: list[subprocess.Popen[bytes]] = []
        main: list[StackProcess] = []
        addresses: dict[str, str] = {}
        try:
            # One at a time: the first process of a service runs its migrations.
            for index, name in enumerate(names):
                role = f"runner-{index + 1}" if name == "runner" else name
                address = f"127.0.0.1:{free_port()}"
                log = tmp / f"{role}.log"
                with open(log, "wb") as out:
                    proc = subprocess.Popen(
                        [sys.executable, "-m", "agenteval.cli", "serve", name, "--address", address],
                        cwd=ROOT,
                        env=env,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        stdin=subprocess.DEVNULL,
                    )
                procs.append(proc)
                await wait_serving(address, proc, log)
                main.append(StackProcess(role, proc.pid))
                addresses.setdefault(name, address)
            nats_pid = nats.process.pid if nats.process else -1
            client_env = {CLIENT_ADDR_ENV[name]: addr for name, addr in addresses.items()}
            with patched_env(client_env):
                yield BenchStack(
                    f"distributed-{runners}r",
                    addresses["runner"],
                    main,
                    extra=[StackProcess("nats-server", nats_pid)],
                    nats_url=nats.url,
                    bus_prefix=prefix,
                )
        finally:
            await asyncio.to_thread(_stop, procs)
            await nats.stop()
            await _admin(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
