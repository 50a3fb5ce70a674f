"""The synthesizer takes seconds on a few hundred traces: the eval-generator runs it in a worker
thread, so the service's event loop keeps answering other requests meanwhile."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from agenteval.cli.stack import EmbeddedStack
from agenteval.eval_generator import synthesizer
from agenteval.sdk import Client
from tests.eval_generator.generation_helpers import follow, import_traces, request, start, status
from tests.fixtures.labeled_datasets import DATASETS


def support_traces(n: int = 40) -> list[tuple[str, dict[str, Any], str]]:
    data = DATASETS["support_tool_errors"](n=n, seed=4)
    return [
        (f"s{i}", t, "positive" if ok else "negative")
        for i, (t, ok) in enumerate(zip(data.traces, data.labels, strict=True))
    ]


async def test_the_loop_serves_requests_while_the_synthesizer_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = synthesizer.synthesize
    started = threading.Event()
    released = threading.Event()
    calls: list[tuple[bool, bool]] = []

    def held_synthesize(*args: Any, **kwargs: Any) -> Any:
        try:
            asyncio.get_running_loop()
            on_loop = True
        except RuntimeError:
            on_loop = False
        started.set()
        # Held until the test has been served by the loop; on the loop thread nobody could release it.
        calls.append((on_loop, released.wait(timeout=60)))
        return real(*args, **kwargs)

    monkeypatch.setattr(synthesizer, "synthesize", held_synthesize)
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        await import_traces(client, "support", support_traces())
        job = await start(client, request("support", "support", method="synthesizer"))
        while not started.is_set():
            await asyncio.sleep(0.05)
        assert await client.list_evals() == []  # answered while the synthesis is held
        released.set()
        _, finished = await follow(client, job.job_id)

    assert calls == [(False, True)]
    assert status(finished) == "done", finished
