"""Who may run what: a runner reachable from other hosts refuses python: agents it was not told
to allow (a python: spec runs code on its host); on loopback (embedded, local) it runs any."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenteval.contracts.errors import InvalidArgument, PermissionDenied
from agenteval.contracts.suite import Suite
from agenteval.runner.app import RunnerComponent
from agenteval.runner.settings import RunnerSettings
from agenteval.runtime.host import ServiceHost
from agenteval.runtime.settings import CommonSettings
from agenteval.sdk import Client

SUITE = Suite.model_validate({"name": "policy", "cases": [{"id": "a", "input": "hi"}]})


async def _host(
    nats_url: str, bus_prefix: str, tmp_path: Path, address: str, **runner: object
) -> ServiceHost:
    # Open without tokens (allow_open): what is checked here is the agent policy, not auth.
    common = CommonSettings(nats_url=nats_url, bus_prefix=bus_prefix, data_dir=tmp_path, allow_open=True)
    host = ServiceHost(
        [RunnerComponent(common, RunnerSettings(shared_limit=False, **runner))],
        common,
        address,  # type: ignore[arg-type]
    )
    await host.start()
    return host


async def test_a_runner_on_every_interface_refuses_python_agents_not_allowed(
    nats_url: str, bus_prefix: str, tmp_path: Path
) -> None:
    host = await _host(nats_url, bus_prefix, tmp_path, "0.0.0.0:0")
    try:
        async with Client(f"127.0.0.1:{host.grpc.port}") as client:
            for spec in ("python:tests.agents:coin", "python:subprocess:run", "python:tests/agents.py:coin"):
                with pytest.raises(PermissionDenied, match="AGENTEVAL_RUNNER_AGENT"):
                    await client.submit(SUITE, agent=spec)
            assert await client.list_runs() == [], "a refused run was stored"
    finally:
        await host.stop()


async def test_allowed_modules_run_and_others_do_not(nats_url: str, bus_prefix: str, tmp_path: Path) -> None:
    host = await _host(nats_url, bus_prefix, tmp_path, "0.0.0.0:0", agent_modules="tests.agents,examples")
    try:
        async with Client(f"127.0.0.1:{host.grpc.port}") as client:
            run = await client.submit(SUITE, agent="python:tests.agents:coin")
            assert run.status in ("pending", "running")
            for spec in ("python:tests.agents_evil:run", "python:os:system", "python:tests/agents.py:coin"):
                with pytest.raises(PermissionDenied):
                    await client.submit(SUITE, agent=spec)
    finally:
        await host.stop()


async def test_a_loopback_runner_runs_any_agent(nats_url: str, bus_prefix: str, tmp_path: Path) -> None:
    host = await _host(nats_url, bus_prefix, tmp_path, "127.0.0.1:0")
    try:
        async with Client(host.target) as client:
            run = await client.submit(SUITE, agent="python:tests/agents.py:coin")
            assert run.status in ("pending", "running")
    finally:
        await host.stop()


async def test_registered_agents_run_by_name_where_their_modules_are_not_allowed(
    nats_url: str, bus_prefix: str, tmp_path: Path
) -> None:
    agents = tmp_path / "agents.yaml"
    agents.write_text(
        'agents:\n  coin: "python:tests.agents:coin"\n  broken: "python:tests.agents:no_such_fn"\n'
    )
    host = await _host(nats_url, bus_prefix, tmp_path, "0.0.0.0:0", agents_file=agents)
    try:
        async with Client(f"127.0.0.1:{host.grpc.port}") as client:
            with pytest.raises(PermissionDenied):  # the module itself is not allowed here
                await client.submit(SUITE, agent="python:tests.agents:coin")
            run = await client.submit(SUITE, agent="agent:coin", k=2)
            assert run.agent == "agent:coin"  # the run shows the name, not the code it stands for
            assert run.status in ("pending", "running")
            # What the name stands for is what is checked (and run): a broken one says so at once.
            with pytest.raises(InvalidArgument, match="no_such_fn"):
                await client.submit(SUITE, agent="agent:broken")
            with pytest.raises(InvalidArgument, match="registered: broken, coin"):
                await client.submit(SUITE, agent="agent:nope")
    finally:
        await host.stop()


def test_a_bad_agents_file_is_refused_at_start_up(nats_url: str, bus_prefix: str, tmp_path: Path) -> None:
    from agenteval.runner.agents import load_registered_agents

    bad = tmp_path / "agents.yaml"
    for text, why in [
        ("agents: []\n", "expected `agents:`"),
        ('agents:\n  "no spaces": "python:x:y"\n', "not an agent name"),
        ("agents:\n  a: 3\n", "agents.a: give an agent spec"),
        ("agents: [\n", "not YAML"),
    ]:
        bad.write_text(text)
        with pytest.raises(ValueError, match=why):
            load_registered_agents(bad)


MOCKED = Suite.model_validate(
    {
        "name": "policy-mocks",
        "cases": [
            {
                "id": "a",
                "input": "Weather in Paris?",
                "tool_mocks": {
                    "weather": {
                        "by_arguments": [{"when": {"city": "Oslo"}, "result": "sun"}],
                        "otherwise": {"python": "tests.tool_functions:weather"},
                    }
                },
            }
        ],
    }
)


async def test_tool_mock_functions_fall_under_the_same_module_policy(
    nats_url: str, bus_prefix: str, tmp_path: Path
) -> None:
    host = await _host(nats_url, bus_prefix, tmp_path, "0.0.0.0:0", agent_modules="tests.agents")
    try:
        async with Client(f"127.0.0.1:{host.grpc.port}") as client:
            for agent in ("python:tests.agents:asks_weather", "anthropic:claude-sonnet-4-5"):
                with pytest.raises(
                    PermissionDenied,
                    match=r"tool mock 'weather' of case 'a' \(python:tests.tool_functions:weather\): "
                    r"module 'tests.tool_functions' is not one this runner may run",
                ):
                    await client.submit(MOCKED, agent=agent)
            assert await client.list_runs() == [], "a refused run was stored"
    finally:
        await host.stop()
    host = await _host(
        nats_url, bus_prefix, tmp_path, "0.0.0.0:0", agent_modules="tests.agents,tests.tool_functions"
    )
    try:
        async with Client(f"127.0.0.1:{host.grpc.port}") as client:
            run = await client.submit(MOCKED, agent="python:tests.agents:asks_weather")
            assert run.status in ("pending", "running")
    finally:
        await host.stop()
