"""Never worse: each way a generation used to go wrong ends in a chosen function at least as good
as what it started from (the synthesizer's rule, the saved version), or in a loud failure that
saves nothing. Through the real service over gRPC, the real SDK against the fake Messages API,
the real sandbox."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.sdk import (
    AgentEvalError,
    Client,
    EvalCandidate,
    EvalInfo,
    InvalidArgument,
    LabeledTrace,
    Trace,
)
from agenteval.v1 import eval_generator_pb2 as pb
from tests.eval_generator.generation_helpers import (
    about_59,
    about_73,
    always_good,
    candidates_by_source,
    current_eval,
    follow,
    hangs,
    import_traces,
    kinds,
    outcome,
    parity_traces,
    perfect,
    raises_sometimes,
    request,
    saved_eval,
    start,
    status,
)
from tests.fakes.anthropic_server import (
    FakeAnthropicServer,
    cut_off_reply,
    server_error,
    text_reply,
    tool_use_reply,
    unauthorized,
)
from tests.fixtures.labeled_datasets import DATASETS

ROOT = Path(__file__).resolve().parents[2]


def support_traces(n: int = 60) -> list[tuple[str, dict[str, Any], str]]:
    """A dataset the synthesizer's rule does well on (about 90%+)."""
    data = DATASETS["support_tool_errors"](n=n, seed=4)
    return [
        (f"s{i}", t, "positive" if ok else "negative")
        for i, (t, ok) in enumerate(zip(data.traces, data.labels, strict=True))
    ]


def assert_never_worse(saved: EvalInfo) -> EvalCandidate:
    """The chosen candidate is the most accurate that ran on every training trace, and at least as
    accurate as the synthesizer's rule and the version saved before; returns it."""
    [chosen] = [c for c in saved.candidates if c.chosen]
    eligible = [c for c in saved.candidates if not c.code_error and not c.errors]
    assert chosen in eligible, saved.candidates
    assert chosen.train_accuracy == max(c.train_accuracy for c in eligible)
    start = [c for c in saved.candidates if c.source in ("synthesizer", "previous")]
    assert start and all(chosen.train_accuracy >= c.train_accuracy for c in start)
    assert saved.train_accuracy == chosen.train_accuracy
    return chosen


async def cli(target: str, *args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agenteval.cli",
        *args,
        "--server",
        target,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_an_api_failure_after_a_weak_test_fails_loudly_unless_a_fallback_is_allowed(
    tmp_path: Path, anthropic_env: FakeAnthropicServer
) -> None:
    weak = always_good("support")
    failures = [server_error(500)] * 3  # the SDK tries three times
    anthropic_env.enqueue(
        tool_use_reply("test_eval_code", {"code": weak}, input_tokens=900, output_tokens=90), *failures
    )
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        await import_traces(client, "support", support_traces())
        events, job = await follow(
            client, (await start(client, request("support", "support", method="llm"))).job_id
        )

        assert status(job) == "failed" and job.error_code == "UNAVAILABLE", job
        assert "the model could not be used" in job.error and "InternalServerError" in job.error
        assert "nothing was saved" in job.error and kinds(events)[-1] == "failed"
        assert await current_eval(client, "support") is None
        assert not (await client.list_evals())
        # what it spent before failing is kept
        assert (job.usage.input_tokens, job.usage.output_tokens, job.usage.attempts) == (900, 90, 1)
        assert job.usage.stop_reason == "error" and job.usage.cost_usd > 0

        # the same failure with a fallback allowed: the best measured function, never the weak one
        anthropic_env.enqueue(tool_use_reply("test_eval_code", {"code": weak}), *failures)
        req = request("support", "support", method="llm", allow_fallback=True)
        events, job = await follow(client, (await start(client, req)).job_id)
        assert (status(job), outcome(job)) == ("done", "promoted"), job
        saved = saved_eval(events)
        chosen = assert_never_worse(saved)
        assert chosen.source == "synthesizer" and saved.generator == "synthesizer"
        assert candidates_by_source(saved)["model_tested"][0].train_accuracy < chosen.train_accuracy
        assert any("could not be used" in e.message for e in events if e.type == "warning")
        assert saved.usage.stop_reason == "error"


async def test_a_401_or_replies_cut_off_fail_loudly_with_llm_and_fall_back_only_when_allowed(
    tmp_path: Path, anthropic_env: FakeAnthropicServer
) -> None:
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        await import_traces(client, "support", support_traces())

        anthropic_env.enqueue(unauthorized())
        code, out, err = await cli(
            stack.target, "evals", "generate", "support", "-d", "support", "--method", "llm"
        )
        flat = " ".join(err.split())
        assert code == 1 and "failed: the model could not be used" in flat and "401" in flat, (out, err)
        assert "Traceback" not in err and "saved support v" not in out

        # --fallback: the synthesizer's rule, and the command says the model was not used
        anthropic_env.enqueue(unauthorized())
        code, out, err = await cli(
            stack.target, "evals", "generate", "support", "-d", "support", "--method", "llm", "--fallback"
        )
        assert code == 0, (out, err)
        flat = " ".join(out.split())
        assert "the model could not be used" in flat and "saved support v1" in flat, out

        cut = cut_off_reply("```python\ndef eval_support(trace, ctx=None):\n    calls = trace.get(")
        anthropic_env.enqueue(cut, cut)
        events, job = await follow(
            client, (await start(client, request("support", "support", method="llm"))).job_id
        )
        assert status(job) == "failed" and "cut off at max_tokens" in job.error, job
        assert job.usage.stop_reason == "cut_off" and job.usage.steps == 2

        # auto means "Claude when it can": a model that cannot finish a reply gives way, loudly
        anthropic_env.enqueue(cut, cut)
        events, job = await follow(client, (await start(client, request("support", "support"))).job_id)
        assert (status(job), job.usage.stop_reason) == ("done", "cut_off"), job
        assert "warning" in kinds(events)
        # the same rule as v1: nothing new to save
        assert (outcome(job), job.eval_version) == ("kept", 1)
        assert len(await client.list_evals()) == 1


async def test_an_untested_final_function_is_measured_and_loses_to_the_tested_one(
    tmp_path: Path, anthropic_env: FakeAnthropicServer
) -> None:
    anthropic_env.enqueue(
        tool_use_reply("test_eval_code", {"code": about_73("parity")}),
        text_reply(f"Simpler is better:\n```python\n{always_good('parity')}```"),
    )
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        await import_traces(client, "tickets", parity_traces(80))
        req = request("parity", "tickets", method="llm", target_accuracy=0.95)
        job = await start(client, req)
        events, job = await follow(client, job.job_id)

        assert (status(job), outcome(job), job.eval_version) == ("done", "candidate", 1), job
        saved = saved_eval(events)
        chosen = assert_never_worse(saved)
        assert chosen.source == "model_tested" and saved.code.strip() == about_73("parity").strip()
        [final] = candidates_by_source(saved)["model_final"]
        assert not final.chosen and final.train_accuracy < chosen.train_accuracy
        assert any(
            e.type == "candidate" and "final function: training accuracy" in e.message for e in events
        ), "the untested final function is measured before the choice"

        # below the target: saved, but eval:NAME does not resolve to it until promoted
        assert saved.status == "candidate" and saved.promoted_at is None
        assert await current_eval(client, "parity") is None
        suite = Suite.model_validate(
            {"name": "s", "cases": [{"id": "c", "input": "hi", "graders": [{"eval:parity": {}}]}]}
        )
        with pytest.raises(AgentEvalError, match="only candidates below their target"):
            await client.submit(suite, agent="python:tests.agents:echo_tool", k=1)

        code, out, err = await cli(stack.target, "evals", "watch", job.job_id)
        flat = " ".join(out.split())
        assert code == 1, (out, err)
        assert "saved parity v1 as a CANDIDATE" in flat and "agent-eval evals promote parity@1" in flat
        assert "eval:parity resolves to no version yet" in flat

        code, out, err = await cli(stack.target, "evals", "promote", "parity@1")
        assert code == 0 and "parity v1 is now the current version" in out, (out, err)
        promoted = await current_eval(client, "parity")
        assert promoted is not None and promoted.version == 1 and promoted.status == "current"
        run = await client.submit(suite, agent="python:tests.agents:echo_tool", k=1)
        assert run.run_id


async def test_code_that_hangs_or_fails_on_some_traces_is_never_chosen(
    tmp_path: Path, anthropic_env: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each hanging trace costs the sandbox's per-trace limit: keep it short here.
    monkeypatch.setenv("AGENTEVAL_GRADER_SANDBOX_TIMEOUT_S", "0.5")
    anthropic_env.enqueue(*[tool_use_reply("test_eval_code", {"code": hangs("parity", i)}) for i in range(5)])
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        await import_traces(client, "tickets", parity_traces(60))

        # five attempts of code that hangs: none of it is saved
        events, job = await follow(
            client, (await start(client, request("parity", "tickets", method="llm"))).job_id
        )
        assert status(job) == "done" and job.usage.stop_reason == "attempts_exhausted", job
        saved = saved_eval(events)
        chosen = assert_never_worse(saved)
        assert chosen.source == "synthesizer" and "while True" not in saved.code
        tested = candidates_by_source(saved)["model_tested"]
        assert len(tested) == 5 and all("timed out" in c.code_error for c in tested), tested
        results = [e.message for e in events if e.type == "test_result"]
        assert sum("timed out" in m for m in results) == 5, "the model is told its code timed out"
        # what was saved grades without timing out
        check = await client.test_eval_code(
            saved.code,
            [
                LabeledTrace(trace_id=i, trace=Trace.from_eval_dict(t), label="positive")
                for i, t, _ in parity_traces(10, seed=3)
            ],
        )
        assert check.errors == 0 and not check.code_error

        # a function that errors on a few traces, however accurate elsewhere, and a final one that hangs
        anthropic_env.enqueue(
            tool_use_reply("test_eval_code", {"code": raises_sometimes("parity")}),
            tool_use_reply("test_eval_code", {"code": about_73("parity")}),
            text_reply(f"```python\n{hangs('parity', 9)}```"),
        )
        events, job = await follow(
            client, (await start(client, request("parity", "tickets", method="llm"))).job_id
        )
        assert status(job) == "done", job
        saved = saved_eval(events)
        chosen = assert_never_worse(saved)
        assert saved.code.strip() == about_73("parity").strip() and chosen.source == "model_tested"
        by_source = candidates_by_source(saved)
        [raising] = [c for c in by_source["model_tested"] if c.errors]
        assert raising.train_accuracy > chosen.train_accuracy and "failed or timed out" in raising.note
        assert "timed out" in by_source["model_final"][0].code_error
        assert by_source["previous"][0].version == 1  # the first job's rule was measured too


async def test_a_better_saved_version_is_kept_and_nothing_new_is_saved(
    tmp_path: Path, anthropic_env: FakeAnthropicServer
) -> None:
    anthropic_env.enqueue(tool_use_reply("test_eval_code", {"code": perfect("parity")}))
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        await import_traces(client, "tickets", parity_traces(60))
        _, first = await follow(
            client, (await start(client, request("parity", "tickets", method="llm"))).job_id
        )
        assert (outcome(first), first.eval_version) == ("promoted", 1)

        anthropic_env.enqueue(
            tool_use_reply("test_eval_code", {"code": about_59("parity")}),
            text_reply(f"```python\n{about_59('parity')}```"),
        )
        events, job = await follow(
            client, (await start(client, request("parity", "tickets", method="llm"))).job_id
        )
        assert (status(job), outcome(job), job.eval_version) == ("done", "kept", 1), job
        assert kinds(events)[-1] == "kept" and saved_eval(events).version == 1
        assert [e.version for e in (await client.list_evals())] == [1]
        current = await current_eval(client, "parity")
        assert (
            current is not None and current.version == 1 and current.code.strip() == perfect("parity").strip()
        )

        code, out, err = await cli(stack.target, "evals", "watch", job.job_id, "--json")
        assert code == 0, (out, err)
        doc = json.loads(out)
        assert (doc["job"]["outcome"], doc["current_version"], doc["eval"]["version"]) == ("kept", 1, 1)


ARGUMENT_ERRORS: list[tuple[dict[str, Any], str]] = [
    ({"target_accuracy": 1.5}, "target accuracy must be above 0 and at most 1, got 1.5"),
    ({"target_accuracy": -0.2}, "target accuracy"),
    ({"holdout_fraction": 0.95}, "holdout fraction"),
    ({"max_attempts": -1}, "max attempts must be 1 to 50"),
    ({"max_steps": 1}, "max steps must be 2 to 500"),
    ({"method": "gpt"}, "method must be auto, llm or synthesizer"),
    ({"name": "9lives"}, "invalid eval name"),
    ({"model": "   "}, "model must not be empty"),
    ({"dataset": "tiny"}, "needs at least 10 labeled traces with both labels"),
]


async def test_argument_errors_are_invalid_argument_before_any_work(
    tmp_path: Path, anthropic_env: FakeAnthropicServer
) -> None:
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        await import_traces(client, "tickets", parity_traces(20))
        await import_traces(client, "tiny", parity_traces(6))
        base: dict[str, Any] = {"name": "parity", "dataset": "tickets", "method": "llm"}
        for fields, problem in ARGUMENT_ERRORS:
            req = pb.GenerateEvalRequest(**{**base, **fields})
            for rpc in ("StartGenerationJob", "GenerateEval"):
                with pytest.raises(grpc.aio.AioRpcError) as raised:
                    if rpc == "GenerateEval":
                        await _drain(client._stubs.evals.GenerateEval(req))
                    else:
                        await client._stubs.evals.StartGenerationJob(
                            pb.StartGenerationJobRequest(request=req)
                        )
                assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (rpc, fields)
                assert problem in (raised.value.details() or ""), (rpc, fields, raised.value.details())
            if "method" not in fields:  # the typed request cannot even hold a bad method
                with pytest.raises(InvalidArgument, match=re.escape(problem)):
                    await client.start_generation_job(request(**{**base, **fields}))
        assert await client.list_generation_jobs() == []
        assert anthropic_env.message_requests == []


async def _drain(stream: Any) -> None:
    async for _ in stream:
        pass


async def test_cli_argument_errors_exit_2_with_the_reason_and_no_traceback(tmp_path: Path) -> None:
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        await import_traces(client, "tickets", parity_traces(20))
        code, out, err = await cli(
            stack.target, "evals", "generate", "parity", "-d", "tickets", "--target", "1.5"
        )
        assert code == 2 and "target accuracy must be above 0 and at most 1, got 1.5" in err, (out, err)
        assert "Traceback" not in err
        code, _, err = await cli(stack.target, "evals", "promote", "parity")
        assert code == 2 and "NAME@VERSION" in err and "Traceback" not in err
        code, _, err = await cli(stack.target, "evals", "promote", "parity@3")
        assert code == 2 and "no saved eval 'parity' version 3" in err
