"""GenerateEval with Claude: the service runs the tool-use loop through the real SDK against the
fake Messages API, streams its steps, and saves the model's code with honest accuracies."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval.cli.stack import EmbeddedStack
from agenteval.sdk import Client
from agenteval.v1 import eval_generator_pb2 as pb
from tests.fakes.anthropic_server import FakeAnthropicServer, text_reply, tool_use_reply
from tests.fixtures.labeled_datasets import DATASETS

CODE = '''
import re

def eval_llm_errors(trace, ctx=None):
    """Negative when a tool failed and the answer does not admit it."""
    failed = [c for c in trace.get("tool_calls", []) if c.get("error")]
    answer = (trace.get("output") or "").lower()
    admits = re.search(r"error|unable|couldn|could not|failed|sorry|unavailable|try again|problem", answer)
    if failed and not admits:
        return 0.0, "a tool failed and the answer claims success"
    return 1.0, "no ignored tool error"
'''


async def test_generate_with_claude_through_the_service(
    tmp_path: Path, anthropic_env: FakeAnthropicServer
) -> None:
    data = DATASETS["support_tool_errors"](n=120, seed=3)
    lines = "\n".join(
        json.dumps({"id": f"t{i}", "trace": t, "label": "positive" if ok else "negative"})
        for i, (t, ok) in enumerate(zip(data.traces, data.labels, strict=True))
    )
    anthropic_env.enqueue(
        tool_use_reply(
            "fetch_traces", {"rating": "negative", "limit": 5}, text="Let me look at failures first."
        ),
        tool_use_reply("test_eval_code", {"code": CODE}),
        text_reply(f"Final version:\n```python\n{CODE}\n```"),
    )
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        imported = await client.import_traces("prod", lines.encode(), format="jsonl")
        assert imported.imported == 120
        events = [
            ev
            async for ev in client._stubs.evals.GenerateEval(
                pb.GenerateEvalRequest(name="llm_errors", dataset="prod", method="llm", seed=1)
            )
        ]
        saved = await client.get_eval("llm_errors")
    kinds = [pb.GenerateEventType.Name(e.type) for e in events]
    assert "GENERATE_EVENT_TYPE_TOOL_CALLED" in kinds and "GENERATE_EVENT_TYPE_TEST_RESULT" in kinds
    assert kinds[-1] == "GENERATE_EVENT_TYPE_SAVED" and events[-1].eval.version == saved.version
    assert saved.generator == "claude-sonnet-4-5" and "def eval_llm_errors" in saved.code
    assert saved.holdout_accuracy > 0.7 and saved.train_accuracy > 0.7
    # the model only ever saw training traces
    split = saved.split
    assert split is not None and split.seed == 1 and split.holdout_fraction == 0.3
    assert len(split.train) + len(split.holdout) == 120 and not set(split.train) & set(split.holdout)
    first = anthropic_env.message_requests[1]  # the request after fetch_traces carries its result
    shown = json.dumps(first.messages)
    assert not any(f'"{tid}"' in shown for tid in split.holdout)


async def test_model_code_that_cannot_run_gives_way_to_the_synthesizers(
    tmp_path: Path, anthropic_env: FakeAnthropicServer
) -> None:
    data = DATASETS["support_tool_errors"](n=60, seed=4)
    lines = "\n".join(
        json.dumps({"id": f"t{i}", "trace": t, "label": "positive" if ok else "negative"})
        for i, (t, ok) in enumerate(zip(data.traces, data.labels, strict=True))
    )
    forbidden = "import socket\n\ndef eval_llm_errors(trace, ctx=None):\n    return 1.0, 'fine'\n"
    anthropic_env.enqueue(text_reply(f"Done:\n```python\n{forbidden}```"))
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        await client.import_traces("prod", lines.encode(), format="jsonl")
        events = [
            ev
            async for ev in client._stubs.evals.GenerateEval(
                pb.GenerateEvalRequest(name="llm_errors", dataset="prod", method="llm")
            )
        ]
    saved = events[-1].eval
    assert saved.generator == "synthesizer" and "import socket" not in saved.code, saved.generator
    assert any("cannot run" in e.message and "socket" in e.message for e in events)
    assert saved.holdout_accuracy > 0.7
