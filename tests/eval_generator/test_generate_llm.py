"""Generation with Claude: the service runs the tool-use loop through the real SDK against the
fake Messages API, streams its steps, and saves the best measured function with honest
accuracies, its tokens and its cost."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval.cli.stack import EmbeddedStack
from agenteval.sdk import Client, GenerationUsage
from agenteval.stats import cost_usd
from agenteval.v1 import eval_generator_pb2 as pb
from tests.eval_generator.generation_helpers import (
    candidates_by_source,
    follow,
    import_traces,
    kinds,
    outcome,
    parity_traces,
    perfect,
    request,
    start,
    status,
)
from tests.fakes.anthropic_server import FakeAnthropicServer, text_reply, tool_use_reply
from tests.fixtures.labeled_datasets import DATASETS


async def test_generate_with_claude_through_the_service(
    tmp_path: Path, anthropic_env: FakeAnthropicServer
) -> None:
    code = perfect("parity")
    anthropic_env.enqueue(
        tool_use_reply(
            "fetch_traces",
            {"rating": "negative", "limit": 5},
            text="Let me look at failures first.",
            input_tokens=1200,
            output_tokens=80,
        ),
        tool_use_reply("test_eval_code", {"code": code}, input_tokens=2500, output_tokens=300),
    )
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        await import_traces(client, "prod", parity_traces(80))
        job = await start(client, request("parity", "prod", method="llm"))
        events, job = await follow(client, job.job_id)

    seen = kinds(events)
    assert {"tool_called", "test_result", "candidate"} <= set(seen) and seen[-1] == "saved", seen
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))
    assert (status(job), outcome(job), job.eval_version, job.runs) == ("done", "promoted", 1, 1)
    saved = events[-1].eval
    assert saved is not None
    assert saved.generator == "claude-sonnet-4-5" and saved.code.strip() == code.strip()
    assert saved.status == "current" and saved.job_id == job.job_id
    assert (saved.train_accuracy, saved.holdout_accuracy) == (1.0, 1.0)
    # measured against the synthesizer's rule, which cannot see parity
    by_source = candidates_by_source(saved)
    assert by_source["model_final"][0].chosen and by_source["synthesizer"][0].train_accuracy < 0.75
    # tokens and cost (from the price table) are kept with the job and with the eval
    expected = GenerationUsage(
        input_tokens=3700,
        output_tokens=380,
        cost_usd=cost_usd("claude-sonnet-4-5", 3700, 380),
        price_known=True,
        attempts=1,
        steps=2,
        stop_reason="target_reached",
        model="claude-sonnet-4-5",
    )
    assert job.usage == expected and saved.usage == expected
    assert expected.cost_usd > 0
    # the model only ever saw training traces
    split = saved.split
    assert split is not None and split.seed == 1 and split.holdout_fraction == 0.3
    assert len(split.train) + len(split.holdout) == 80 and not set(split.train) & set(split.holdout)
    shown = json.dumps(anthropic_env.message_requests[1].messages)
    assert not any(f'"{tid}"' in shown for tid in split.holdout)


async def test_model_code_that_cannot_run_gives_way_to_the_synthesizers(
    tmp_path: Path, anthropic_env: FakeAnthropicServer
) -> None:
    data = DATASETS["support_tool_errors"](n=60, seed=4)
    labeled = [
        (f"t{i}", t, "positive" if ok else "negative")
        for i, (t, ok) in enumerate(zip(data.traces, data.labels, strict=True))
    ]
    forbidden = "import socket\n\ndef eval_llm_errors(trace, ctx=None):\n    return 1.0, 'fine'\n"
    anthropic_env.enqueue(text_reply(f"Done:\n```python\n{forbidden}```"))
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        await import_traces(client, "prod", labeled)
        # the one-call RPC is a job too, streamed to its end
        events = [
            ev
            async for ev in client._stubs.evals.GenerateEval(
                pb.GenerateEvalRequest(name="llm_errors", dataset="prod", method="llm")
            )
        ]
    saved = events[-1].eval
    assert saved.generator == "synthesizer" and "import socket" not in saved.code, saved.generator
    assert any("cannot run" in e.message and "socket" in e.message for e in events)
    warned = [e.message for e in events if e.type == pb.GENERATE_EVENT_TYPE_WARNING]
    assert any("the model's functions were not chosen" in w for w in warned), warned
    assert saved.holdout_accuracy > 0.7
