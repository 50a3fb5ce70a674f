"""Bearer tokens and projects on the embedded stack, over real gRPC.

Every RPC of every service refuses a call without a token and with an unknown one
(UNAUTHENTICATED); the operators' RPCs need an admin token; a token of another project finds
nothing of project alpha (its runs, trials, suites, datasets, evals and jobs look missing,
listings leave them out), and cannot take their names; services calling each other on a
run's behalf (the runner fetching a stored suite, the grader a saved eval, a generation job
its dataset) stay in that run's project.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import pytest

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.errors import (
    AlreadyExists,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unauthenticated,
)
from agenteval.contracts.suite import Suite
from agenteval.runtime.auth import TokenEntry, TokensFile, digest, write_tokens_file
from agenteval.sdk import Client
from agenteval.v1 import (
    eval_generator_pb2,
    grader_pb2,
    metrics_pb2,
    operations_pb2,
    runner_pb2,
    suites_pb2,
    transcripts_pb2,
)
from tests.eval_generator.generation_helpers import import_traces, parity_traces, request

TOKENS = {"alice": "aev_alice-token", "bob": "aev_bob-token", "root": "aev_root-token"}
SERVICES = [
    runner_pb2,
    transcripts_pb2,
    suites_pb2,
    eval_generator_pb2,
    metrics_pb2,
    grader_pb2,
    operations_pb2,
]

SUITE = Suite.model_validate(
    {
        "name": "alpha_suite",
        "agent": "python:tests.agents:echo_tool",
        "trials": 2,
        "cases": [{"id": "shout", "input": "hello", "graders": [{"output_contains": {"text": "HELLO"}}]}],
    }
)


def every_rpc() -> list[tuple[str, Any]]:
    """(path, method descriptor) of every RPC agenteval serves."""
    out = []
    for module in SERVICES:
        for service in module.DESCRIPTOR.services_by_name.values():
            for method in service.methods:
                out.append((f"/{service.full_name}/{method.name}", method))
    return out


async def call(
    ch: grpc.aio.Channel, path: str, method: Any, metadata: tuple[tuple[str, str], ...]
) -> grpc.StatusCode:
    """Call ``path`` with an empty request; the status code it ends with."""
    empty = b""
    try:
        if method.client_streaming:

            async def requests() -> Any:
                yield empty

            if method.server_streaming:
                async for _ in ch.stream_stream(path)(requests(), metadata=metadata, timeout=10):
                    pass
            else:
                await ch.stream_unary(path)(requests(), metadata=metadata, timeout=10)
        elif method.server_streaming:
            async for _ in ch.unary_stream(path)(empty, metadata=metadata, timeout=10):
                break
        else:
            await ch.unary_unary(path)(empty, metadata=metadata, timeout=10)
    except grpc.aio.AioRpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


@pytest.fixture(scope="module")
def tokens_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("auth") / "tokens.yaml"
    write_tokens_file(
        path,
        TokensFile(
            tokens=[
                TokenEntry(name="alice", sha256=digest(TOKENS["alice"]), projects=["alpha"]),
                TokenEntry(name="bob", sha256=digest(TOKENS["bob"]), projects=["beta"]),
                TokenEntry(name="root", sha256=digest(TOKENS["root"]), admin=True),
            ]
        ),
    )
    return path


@pytest.fixture
async def stack(tmp_path: Path, tokens_file: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("AGENTEVAL_TOKENS_FILE", str(tokens_file))
    monkeypatch.delenv("AGENTEVAL_TOKEN", raising=False)
    monkeypatch.delenv("AGENTEVAL_PROJECT", raising=False)
    async with EmbeddedStack(tmp_path / "data") as s:
        yield s


async def test_every_rpc_refuses_no_token_and_an_unknown_token(stack: EmbeddedStack) -> None:
    rpcs = every_rpc()
    assert len(rpcs) >= 34  # all of them, not a sample
    async with grpc.aio.insecure_channel(stack.target) as ch:
        for path, method in rpcs:
            assert await call(ch, path, method, ()) == grpc.StatusCode.UNAUTHENTICATED, path
            wrong = (("authorization", "Bearer aev_not-a-token"),)
            assert await call(ch, path, method, wrong) == grpc.StatusCode.UNAUTHENTICATED, path
            other_scheme = (("authorization", f"Basic {TOKENS['alice']}"),)
            assert await call(ch, path, method, other_scheme) == grpc.StatusCode.UNAUTHENTICATED, path
            # A known token gets past authentication (the empty request may be refused after).
            alice = (("authorization", f"Bearer {TOKENS['alice']}"),)
            code = await call(ch, path, method, alice)
            assert code != grpc.StatusCode.UNAUTHENTICATED, path
            if path.startswith("/agenteval.v1.OperationsService/"):
                assert code == grpc.StatusCode.PERMISSION_DENIED, path  # operators only
        # Health checks need no token (load balancers, compose healthchecks).
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        health = await health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest())
        assert health.status == health_pb2.HealthCheckResponse.SERVING


async def test_a_token_may_not_act_in_a_project_it_does_not_have(stack: EmbeddedStack) -> None:
    async with Client(stack.target, token=TOKENS["alice"], project="beta") as c:
        with pytest.raises(PermissionDenied, match="may not use project 'beta'"):
            await c.list_runs()
    async with Client(stack.target) as c:
        with pytest.raises(Unauthenticated, match="needs a token"):
            await c.list_runs()


async def test_another_projects_objects_look_missing_for_every_rpc(stack: EmbeddedStack) -> None:
    async with (
        Client(stack.target, token=TOKENS["alice"]) as alice,
        Client(stack.target, token=TOKENS["bob"]) as bob,
        Client(stack.target, token=TOKENS["root"]) as root,
    ):
        # Project alpha: a stored suite, a run of it (graded, stored), a dataset, an eval and its job.
        pushed = await alice.push_suite(SUITE)
        run = await alice.submit_stored("alpha_suite")
        assert run.project == "alpha"
        done = await alice.wait(run.run_id)
        assert done.status == "completed" and done.summary is not None and done.summary.passes == 2
        trials = await alice.trials(run.run_id)
        assert len(trials) == 2
        await import_traces(alice, "alpha_traces", parity_traces(40))
        job = await alice.generate_eval(
            request("alpha_eval", "alpha_traces", method="synthesizer", target_accuracy=0.01)
        )
        assert job.status == "done", job.error
        # alpha's suite grades with alpha's eval: the grader fetches it in the run's project.
        graded = Suite.model_validate(
            {
                **SUITE.model_dump(),
                "name": "alpha_graded",
                "cases": [{"id": "c", "input": "hi", "graders": [{"eval:alpha_eval": {}}]}],
            }
        )
        by_eval = await alice.wait((await alice.submit(graded, k=1)).run_id)
        [graded_trial] = await alice.trials(by_eval.run_id)
        assert [(g.name, g.error) for g in graded_trial.grades] == [("eval:alpha_eval", None)]

        stubs = bob._stubs
        run_id, trial_id = run.run_id, trials[0].trial_id
        missing: list[tuple[str, Any]] = [
            ("GetRun", stubs.runs.GetRun(runner_pb2.GetRunRequest(run_id=run_id))),
            ("GetRun by prefix", stubs.runs.GetRun(runner_pb2.GetRunRequest(run_id=run_id[:10]))),
            ("CancelRun", stubs.runs.CancelRun(runner_pb2.CancelRunRequest(run_id=run_id))),
            (
                "CompareRuns",
                stubs.runs.CompareRuns(runner_pb2.CompareRunsRequest(baseline=run_id, candidate=run_id)),
            ),
            (
                "ListWebhookDeliveries",
                stubs.runs.ListWebhookDeliveries(runner_pb2.ListWebhookDeliveriesRequest(run_id=run_id)),
            ),
            (
                "SubmitRun of alpha's suite",
                stubs.runs.SubmitRun(
                    runner_pb2.SubmitRunRequest(
                        suite_ref="alpha_suite", agent="python:tests.agents:echo_tool"
                    )
                ),
            ),
            ("GetRunSummary", stubs.metrics.GetRunSummary(metrics_pb2.GetRunSummaryRequest(run_id=run_id))),
            ("GetTrial", stubs.transcripts.GetTrial(transcripts_pb2.GetTrialRequest(trial_id=trial_id))),
            (
                "ListTraces",
                stubs.transcripts.ListTraces(transcripts_pb2.ListTracesRequest(dataset="alpha_traces")),
            ),
            (
                "GetTrace",
                stubs.transcripts.GetTrace(
                    transcripts_pb2.GetTraceRequest(dataset="alpha_traces", trace_id="p0")
                ),
            ),
            (
                "LabelTrace",
                stubs.transcripts.LabelTrace(
                    transcripts_pb2.LabelTraceRequest(dataset="alpha_traces", trace_id="p0", label="good")
                ),
            ),
            ("GetSuite", stubs.suites.GetSuite(suites_pb2.GetSuiteRequest(name="alpha_suite"))),
            (
                "ListSuiteVersions",
                stubs.suites.ListSuiteVersions(suites_pb2.ListSuiteVersionsRequest(name="alpha_suite")),
            ),
            ("DeleteSuite", stubs.suites.DeleteSuite(suites_pb2.DeleteSuiteRequest(name="alpha_suite"))),
            (
                "UpdateSuite",
                stubs.suites.UpdateSuite(
                    suites_pb2.UpdateSuiteRequest(
                        name="alpha_suite", suite_yaml=pushed.version.suite_yaml or _yaml(SUITE)
                    )
                ),
            ),
            (
                "DiffSuites",
                stubs.suites.DiffSuites(
                    suites_pb2.DiffSuitesRequest(
                        base=suites_pb2.SuiteRef(name="alpha_suite"),
                        target=suites_pb2.SuiteRef(name="alpha_suite"),
                    )
                ),
            ),
            ("GetEval", stubs.evals.GetEval(eval_generator_pb2.GetEvalRequest(name="alpha_eval"))),
            (
                "PromoteEval",
                stubs.evals.PromoteEval(eval_generator_pb2.PromoteEvalRequest(name="alpha_eval", version=1)),
            ),
            (
                "GetGenerationJob",
                stubs.evals.GetGenerationJob(eval_generator_pb2.GetGenerationJobRequest(job_id=job.job_id)),
            ),
            (
                "CancelGenerationJob",
                stubs.evals.CancelGenerationJob(
                    eval_generator_pb2.CancelGenerationJobRequest(job_id=job.job_id)
                ),
            ),
            (
                "StartGenerationJob on alpha's dataset",
                stubs.evals.StartGenerationJob(
                    eval_generator_pb2.StartGenerationJobRequest(
                        request=eval_generator_pb2.GenerateEvalRequest(
                            name="bob_eval", dataset="alpha_traces", method="synthesizer"
                        )
                    )
                ),
            ),
        ]
        for name, pending in missing:
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await pending
            assert info.value.code() == grpc.StatusCode.NOT_FOUND, (
                f"{name}: {info.value.code()} {info.value.details()}"
            )
            assert "alpha" not in (info.value.details() or "").replace("alpha_", ""), name

        for name, stream in [
            ("WatchRun", stubs.runs.WatchRun(runner_pb2.WatchRunRequest(run_id=run_id))),
            (
                "WatchGenerationJob",
                stubs.evals.WatchGenerationJob(
                    eval_generator_pb2.WatchGenerationJobRequest(job_id=job.job_id)
                ),
            ),
        ]:
            with pytest.raises(grpc.aio.AioRpcError) as info:
                async for _ in stream:
                    pass
            assert info.value.code() == grpc.StatusCode.NOT_FOUND, name

        # Listings leave alpha out; ListTrials of alpha's run finds none.
        assert [r.run_id for r in await bob.list_runs()] == []
        assert await bob.list_suites() == []
        assert await bob.list_evals() == []
        assert await bob.list_generation_jobs() == []
        assert await bob.trials(run.run_id) == []
        # Names are unique on the server: bob cannot take alpha's, and learns nothing else.
        with pytest.raises(AlreadyExists):
            await bob.push_suite(SUITE)
        with pytest.raises(AlreadyExists):
            await bob.import_traces("alpha_traces", b'{"trace_id": "x", "input": "hi", "output": "yo"}\n')
        with pytest.raises(AlreadyExists):
            await bob.start_generation_job(request("alpha_eval", "alpha_traces", method="synthesizer"))
        with pytest.raises(PermissionDenied):
            async for _ in bob.watch_runs(project="alpha"):
                break
        with pytest.raises(grpc.aio.AioRpcError) as denied:
            await bob._stubs.runs.ListWebhookDeliveries(
                runner_pb2.ListWebhookDeliveriesRequest()
            )  # every run's
        assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED
        # Nothing of alpha changed under bob's calls.
        assert (await alice.get_run(run_id)).status == "completed"
        assert [s.name for s in await alice.list_suites()] == ["alpha_suite"]
        assert [e.name for e in await alice.list_evals()] == ["alpha_eval"]

        # bob's own work lives in beta, beside alpha's, and alice does not see it.
        beta_run = await bob.submit(SUITE.model_copy(update={"name": "beta_suite"}), k=1)
        assert beta_run.project == "beta"
        await bob.wait(beta_run.run_id)
        with pytest.raises(NotFound):
            await alice.get_run(beta_run.run_id)
        # An admin sees every project, or one when it names it.
        assert {r.project for r in await root.list_runs()} == {"alpha", "beta"}
        async with Client(stack.target, token=TOKENS["root"], project="beta") as root_beta:
            assert {r.project for r in await root_beta.list_runs()} == {"beta"}
        every = await root._stubs.runs.ListWebhookDeliveries(runner_pb2.ListWebhookDeliveriesRequest())
        assert list(every.deliveries) == []  # no webhooks configured; an admin may list them all
        letters = await _operations(stack.target, TOKENS["root"])
        assert list(letters.dead_letters) == []


async def _operations(target: str, token: str) -> Any:
    from agenteval.contracts.transport import channel
    from agenteval.v1 import operations_pb2_grpc

    async with channel(target, token=token) as ch:
        return await operations_pb2_grpc.OperationsServiceStub(ch).ListDeadLetters(
            operations_pb2.ListDeadLettersRequest()
        )


def _yaml(suite: Suite) -> str:
    import yaml

    return yaml.safe_dump(suite.model_dump(exclude_defaults=True))


async def test_the_front_door_turns_strangers_away_before_any_backend(
    tmp_path: Path, tokens_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agenteval.gateway.app import Gateway
    from agenteval.gateway.settings import GatewaySettings
    from agenteval.runtime.settings import CommonSettings

    monkeypatch.delenv("AGENTEVAL_TOKENS_FILE", raising=False)
    async with EmbeddedStack(tmp_path / "data") as open_stack:  # backends without tokens, on loopback
        t = open_stack.target
        settings = GatewaySettings(
            runner_addr=t, grader_addr=t, metrics_addr=t, transcripts_addr=t, evalgen_addr=t, suites_addr=t
        )
        door = Gateway(settings, "127.0.0.1:0", CommonSettings(tokens_file=tokens_file))
        await door.start()
        try:
            async with grpc.aio.insecure_channel(door.target) as ch:
                for path, method in every_rpc():
                    code = await call(ch, path, method, ())
                    assert code == grpc.StatusCode.UNAUTHENTICATED, path
            async with Client(door.target, token=TOKENS["alice"]) as alice:
                run = await alice.submit(SUITE, k=1)
                assert (await alice.wait(run.run_id)).status == "completed"
            # Behind it, the open backends would have answered anyone: the door made the difference.
            async with Client(t) as anyone:
                assert [r.run_id for r in await anyone.list_runs()] == [run.run_id]
        finally:
            await door.stop()
    # A front door open to the network without tokens does not start.
    with pytest.raises(InvalidArgument, match=r"refusing to serve 0\.0\.0\.0:0 without tokens"):
        Gateway(GatewaySettings(), "0.0.0.0:0", CommonSettings())
