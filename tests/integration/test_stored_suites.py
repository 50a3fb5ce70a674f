"""Stored suites run by name on the embedded stack: the runner takes the version from the suite
store, filters its cases by tag, and records the version it ran."""

from __future__ import annotations

import grpc
import pytest

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.errors import InvalidArgument, NotFound
from agenteval.contracts.pb import suite_to_pb
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client, StoredSuiteInfo, SuiteVersionInfo
from agenteval.suites import suite_digest
from agenteval.v1 import runner_pb2

SUITE = Suite.model_validate(
    {
        "name": "stored",
        "agent": "python:tests.agents:echo_tool",
        "trials": 2,
        "cases": [
            {
                "id": "shout",
                "input": "hello",
                "tags": ["fast"],
                "graders": [{"output_contains": {"text": "HELLO"}}],
            },
            {"id": "slow_one", "input": "x", "tags": ["slow"]},
            {"id": "both", "input": "y", "tags": ["fast", "slow"]},
        ],
    }
)


@pytest.fixture
async def client(tmp_path):
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as c:
        yield c


async def finished(client: Client, run: runner_pb2.Run) -> runner_pb2.WatchRunResponse:
    events = [ev async for ev in client.watch(run.run_id)]
    assert events[-1].type == runner_pb2.RUN_EVENT_TYPE_COMPLETED
    return events[-1]


async def test_a_stored_suite_runs_by_name_and_version_and_the_run_records_it(client: Client) -> None:
    v1 = (await client.push_suite(SUITE)).version
    changed = SUITE.model_copy(update={"trials": 3})
    v2 = (await client.push_suite(changed)).version
    assert (v1.version, v2.version) == (1, 2)
    # The typed client answers in contract models, not protobuf messages.
    assert isinstance(v1, SuiteVersionInfo) and v2.current and not v1.suite_yaml
    listed = {s.name: s for s in await client.list_suites()}
    assert isinstance(listed["stored"], StoredSuiteInfo) and listed["stored"].current.version == 2
    assert [v.version for v in await client.suite_versions("stored")] == [2, 1]
    assert "name: stored" in (await client.get_suite("stored", "1")).suite_yaml

    run = await client.submit_stored("stored@1", k=None)
    assert (run.suite, run.suite_version, run.suite_version_number) == ("stored", v1.digest, 1)
    done = await finished(client, run)
    assert done.summary.trials == 3 * 2  # version 1's trials, not the current version's

    # NAME alone is the current version; tags keep only the cases carrying one of them.
    run = await client.submit_stored("stored", tags=["fast"])
    assert (run.suite_version, run.suite_version_number, list(run.tags)) == (v2.digest, 2, ["fast"])
    done = await finished(client, run)
    assert {c.case_id for c in done.summary.cases} == {"shout", "both"} and done.summary.trials == 2 * 3

    # A version by a prefix of its digest.
    run = await client.submit_stored(f"stored@{v1.digest[:9]}", k=1)
    assert run.suite_version_number == 1

    # The same content sent inline is the same version (digest), with no store number.
    inline = await client.submit(SUITE, k=1)
    assert (inline.suite_version, inline.suite_version_number) == (v1.digest, 0)
    assert inline.suite_version == suite_digest(SUITE)
    await finished(client, inline)

    # Runs of one version, by its digest (or a prefix of it).
    listed = await client._stubs.runs.ListRuns(
        runner_pb2.ListRunsRequest(suite_version=v1.digest[:10], limit=50)
    )
    assert {r.suite_version for r in listed.runs} == {v1.digest} and len(listed.runs) == 3
    fetched = await client.get_run(run.run_id)
    assert (fetched.suite_version, fetched.suite_version_number) == (v1.digest, 1)


async def test_a_stored_suite_that_is_not_there_or_a_bad_request_is_refused(client: Client) -> None:
    await client.push_suite(SUITE)
    refused: list[tuple[str, type[Exception], str]] = [
        ("missing", NotFound, "no stored suite 'missing'"),
        ("stored@9", NotFound, "has no version '9'"),
        ("stored@latest", InvalidArgument, "suite_ref version: 'latest' is not a version"),
        ("no such/suite", InvalidArgument, "suite_ref: 'no such/suite' cannot name"),
    ]
    for ref, error, words in refused:
        with pytest.raises(error) as info:
            await client.submit_stored(ref)
        assert words in str(info.value), str(info.value)
    with pytest.raises(InvalidArgument, match=r"no case of suite 'stored' has any of the tags \['nope'\]"):
        await client.submit_stored("stored", tags=["nope"])
    both = runner_pb2.SubmitRunRequest(suite=suite_to_pb(SUITE), suite_ref="stored")
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await client._stubs.runs.SubmitRun(both)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "not both" in (
        info.value.details() or ""
    )
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await client._stubs.runs.ListRuns(runner_pb2.ListRunsRequest(suite_version="xyz"))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert not (await client._stubs.runs.ListRuns(runner_pb2.ListRunsRequest())).runs, (
        "a refused run was stored"
    )
