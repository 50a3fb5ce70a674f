"""Drills: break the infrastructure under a distributed run and check that nothing is lost.

Every service a separate process (as docker-compose runs them); mid-run, one node of a
3-node JetStream cluster is killed (the stream's leader), or the PostgreSQL server every
service uses is restarted. The run must complete with every trial exactly once and the same
per-trial verdicts as an undisturbed run with the same seed. The time from the fault to the
run's end is printed (measured, not asserted; README "When things fail" quotes it).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from agenteval.contracts.suite import Suite
from agenteval.runtime.nats_server import EmbeddedNats, free_port
from agenteval.sdk import Client
from tests.integration.clusters import NatsCluster, PrivatePostgres
from tests.integration.test_distributed import wait_serving
from tests.required import missing

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ["suite_store", "runner", "grader", "metrics", "transcript_store"]
SUITE = Suite.model_validate(
    {
        "name": "drill",
        "cases": [
            {"id": f"c{i}", "input": "flip", "graders": [{"output_contains": {"text": "heads"}}]}
            for i in range(30)
        ],
    }
)
K, SEED, CONCURRENCY = 2, 1234, 6


class Services(dict[str, str]):
    """The services' addresses; a service can be killed (-9) and started again on its address."""

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        super().__init__()
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "AGENTEVAL_LOG_LEVEL": "WARNING", **env}
        self.logs = logs
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def _spawn(self, name: str, addr: str) -> None:
        with open(self.logs / f"{name}.log", "ab") as log:
            self.procs[name] = subprocess.Popen(
                [sys.executable, "-m", "agenteval.cli", "serve", name, "--address", addr],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    async def start(self) -> None:
        for name in SERVICES:
            self[name] = f"127.0.0.1:{free_port()}"
            self._spawn(name, self[name])
            await wait_serving(self[name])
            if name == "suite_store":
                self.env["AGENTEVAL_RUNNER_SUITES_ADDR"] = self[name]

    async def kill_and_restart(self, name: str) -> None:
        proc = self.procs[name]
        proc.send_signal(signal.SIGKILL)
        await asyncio.to_thread(proc.wait)
        self._spawn(name, self[name])
        await wait_serving(self[name])

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


@asynccontextmanager
async def services(env: dict[str, str], logs: Path) -> AsyncIterator[Services]:
    running = Services(env, logs)
    try:
        await running.start()
        yield running
    finally:
        running.stop()


async def verdicts(addrs: dict[str, str], run_id: str) -> dict[tuple[str, int], bool]:
    """Each stored trial's verdict; fails if a trial is missing or stored twice."""
    async with Client(addrs["transcript_store"]) as store:
        for _ in range(300):  # the store keeps its own pace after the run completes
            trials = await store.trials(run_id, with_traces=False)
            if len(trials) >= len(SUITE.cases) * K and all(t.passed is not None for t in trials):
                break
            await asyncio.sleep(0.1)
    keys = [(t.case_id, t.trial_index) for t in trials]
    assert len(keys) == len(set(keys)), "a trial was stored twice"
    assert len(keys) == len(SUITE.cases) * K, f"{len(keys)} of {len(SUITE.cases) * K} trials stored"
    return {(t.case_id, t.trial_index): bool(t.passed) for t in trials}


async def run_through(addrs: dict[str, str], fault=None) -> tuple[dict[tuple[str, int], bool], int]:
    """Run the drill suite (calling ``fault`` once a third of it is graded); the verdicts and
    the summary's passes."""
    async with Client(addrs["runner"]) as client:
        run = await client.submit(
            SUITE, agent="python:tests.agents:coin_nap", k=K, seed=SEED, concurrency=CONCURRENCY
        )
        broke_at = None
        try:
            async with asyncio.timeout(120):
                async for ev in client.watch(run.run_id):
                    if (
                        fault is not None
                        and broke_at is None
                        and ev.trials_graded >= len(SUITE.cases) * K // 3
                    ):
                        broke_at = asyncio.get_running_loop().time()
                        await fault()
                final = await client.wait(run.run_id, timeout_s=60)
        except TimeoutError:
            raise AssertionError(f"the run did not end: {await client.get_run(run.run_id)}") from None
        if broke_at is not None:
            print(f"run completed {asyncio.get_running_loop().time() - broke_at:.1f}s after the fault")
    assert final.status == "completed", (
        f"run ended {final.status}: {final.reason if hasattr(final, 'reason') else ''}"
    )
    assert final.summary is not None
    assert final.summary.trials == len(SUITE.cases) * K
    return await verdicts(addrs, run.run_id), final.summary.passes


async def test_killing_the_stream_leader_of_a_3_node_nats_cluster_loses_nothing(
    tmp_path: Path, pg_url: str
) -> None:
    cluster = NatsCluster(tmp_path / "nats")
    await cluster.start()
    prefix = f"x{secrets.token_hex(4)}"
    env = {
        "AGENTEVAL_NATS_URL": cluster.url,
        "AGENTEVAL_BUS_REPLICAS": "3",
        "AGENTEVAL_BUS_PREFIX": prefix,
        "AGENTEVAL_DATABASE_URL": pg_url,
        "AGENTEVAL_RUNNER_TRIAL_ACK_WAIT_S": "5",
    }
    try:
        async with services(env, tmp_path) as addrs:
            calm, calm_passes = await run_through(addrs)
            leader = await cluster.stream_leader(prefix.upper())

            async def kill_leader() -> None:
                cluster.kill(leader)

            broken, broken_passes = await run_through(addrs, kill_leader)
            assert leader not in cluster.procs
        assert broken == calm, "per-trial verdicts differ from the undisturbed run with the same seed"
        assert broken_passes == calm_passes
    finally:
        cluster.stop()


async def test_restarting_postgresql_mid_run_loses_nothing(tmp_path: Path, nats_url: str) -> None:
    if not PrivatePostgres.available():
        missing("initdb/pg_ctl (PostgreSQL server binaries)")
    pg = PrivatePostgres()
    await asyncio.to_thread(pg.init)
    await asyncio.to_thread(pg.start)
    env = {
        "AGENTEVAL_NATS_URL": nats_url,
        "AGENTEVAL_BUS_PREFIX": f"x{secrets.token_hex(4)}",
        "AGENTEVAL_DATABASE_URL": pg.url,
    }
    try:
        async with services(env, tmp_path) as addrs:
            calm, calm_passes = await run_through(addrs)

            async def restart() -> None:
                await asyncio.to_thread(pg.stop, "immediate")
                await asyncio.sleep(3.0)  # the database is away for a while
                await asyncio.to_thread(pg.start)

            broken, broken_passes = await run_through(addrs, restart)
        assert broken == calm, "per-trial verdicts differ from the undisturbed run with the same seed"
        assert broken_passes == calm_passes
    finally:
        await asyncio.to_thread(pg.stop, "immediate")
        pg.remove()


async def test_killing_the_grader_and_restarting_nats_mid_run_lose_nothing(tmp_path: Path) -> None:
    """kill -9 of the grader (started again), then a restart of the NATS server (same store),
    each a third of the way into its own run."""
    nats_server = EmbeddedNats(tmp_path / "nats")
    await nats_server.start()
    env = {
        "AGENTEVAL_NATS_URL": nats_server.url,
        "AGENTEVAL_BUS_PREFIX": f"x{secrets.token_hex(4)}",
        "AGENTEVAL_DATA_DIR": str(tmp_path / "data"),  # a SQLite file per service
    }
    try:
        async with services(env, tmp_path) as addrs:
            calm, calm_passes = await run_through(addrs)

            async def kill_grader() -> None:
                await addrs.kill_and_restart("grader")

            after_grader = await run_through(addrs, kill_grader)

            async def restart_nats() -> None:
                await nats_server.stop()
                await asyncio.sleep(2.0)  # the bus is away for a while
                await nats_server.start()

            after_nats = await run_through(addrs, restart_nats)
        assert after_grader == (calm, calm_passes), "the grader's death changed a verdict or lost a trial"
        assert after_nats == (calm, calm_passes), "the NATS restart changed a verdict or lost a trial"
    finally:
        await nats_server.stop()
