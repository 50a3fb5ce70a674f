"""A bounded soak: concurrent clients submit runs for a fixed time against the distributed
topology (every service its own process). No run is lost or stuck, every trial is counted
once, and no service's memory keeps growing.

The stated bound: each service's resident memory is sampled through the soak; what it holds
in the last quarter (its lowest sample there) exceeds the most it held in the first half by
less than MEMORY_GROWTH_MB. A leak grows with the work done and fails this; a burst (a
backlog under a loaded machine, after which the allocator keeps the pages) early on does not.
"""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

from agenteval.contracts.suite import Suite
from agenteval.sdk import Client
from tests.integration.test_drills import SERVICES, services

CLIENTS = 4
SOAK_S = 40.0
WARMUP_RUNS = 3
MEMORY_GROWTH_MB = 20.0
SUITE = Suite.model_validate(
    {
        "name": "soak",
        "cases": [
            {"id": f"c{i}", "input": f"q{i}", "graders": [{"output_contains": {"text": "ok"}}]}
            for i in range(10)
        ],
    }
)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


async def one_run(client: Client, seed: int) -> tuple[str, int, int]:
    run = await client.submit(SUITE, agent="python:tests.agents:instant", k=2, seed=seed)
    done = await client.wait(run.run_id, timeout_s=120)
    assert done.summary is not None, f"{run.run_id} ended {done.status} without a summary"
    return done.status, done.summary.trials, done.summary.passes


async def test_concurrent_clients_for_a_fixed_time_lose_no_run_and_memory_stays_flat(tmp_path: Path) -> None:
    env = {
        "AGENTEVAL_NATS_URL": "",  # set below
        "AGENTEVAL_BUS_PREFIX": f"soak{secrets.token_hex(3)}",
        "AGENTEVAL_DATA_DIR": str(tmp_path / "data"),
    }
    from agenteval.runtime.nats_server import EmbeddedNats

    bus = EmbeddedNats(tmp_path / "nats")
    await bus.start()
    env["AGENTEVAL_NATS_URL"] = bus.url
    try:
        async with services(env, tmp_path) as addrs, Client(addrs["runner"]) as client:
            for seed in range(WARMUP_RUNS):
                await one_run(client, seed + 1)
            results: list[tuple[str, int, int]] = []
            start = asyncio.get_running_loop().time()
            stop = start + SOAK_S
            samples: list[tuple[float, dict[str, float]]] = []

            async def sample_memory() -> None:
                while asyncio.get_running_loop().time() < stop:
                    now = asyncio.get_running_loop().time() - start
                    samples.append((now, {name: rss_mb(addrs.procs[name].pid) for name in SERVICES}))
                    await asyncio.sleep(1.0)

            async def client_loop(n: int) -> None:
                async with Client(addrs["runner"]) as own:
                    seed = 1000 * (n + 1)
                    while asyncio.get_running_loop().time() < stop:
                        seed += 1
                        results.append(await one_run(own, seed))

            await asyncio.gather(sample_memory(), *(client_loop(n) for n in range(CLIENTS)))
            runs = await client.list_runs(suite="soak", limit=1000)
    finally:
        await bus.stop()

    assert len(results) >= CLIENTS, "the soak ran no runs"
    assert all(r == ("completed", 20, 20) for r in results), [
        r for r in results if r != ("completed", 20, 20)
    ]
    assert len(runs) == WARMUP_RUNS + len(results)
    assert all(r.status == "completed" for r in runs), {
        r.run_id: r.status for r in runs if r.status != "completed"
    }
    early = [m for t, m in samples if t <= SOAK_S / 2]
    late = [m for t, m in samples if t >= SOAK_S * 3 / 4]
    assert early and late, "too few memory samples"
    growth = {name: min(m[name] for m in late) - max(m[name] for m in early) for name in SERVICES}
    print(
        f"{len(results)} runs by {CLIENTS} clients in {SOAK_S:.0f}s; RSS growth MB: "
        + ", ".join(f"{n} {g:+.1f}" for n, g in growth.items())
    )
    assert all(g < MEMORY_GROWTH_MB for g in growth.values()), growth
