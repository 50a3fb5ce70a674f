"""One run is one distributed trace: spans of runner, grader, transcript-store and metrics
link up through the context carried on events (checked with the SDK's in-memory exporter)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client

_EXPORTER = InMemorySpanExporter()


@pytest.fixture(scope="module")
def exporter() -> InMemorySpanExporter:
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):  # the global provider can be set once per process
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
    return _EXPORTER


async def test_a_run_is_one_trace(tmp_path: Path, exporter: InMemorySpanExporter) -> None:
    suite = Suite.model_validate(
        {
            "name": "traced",
            "cases": [
                {"id": f"c{i}", "input": "hi", "graders": [{"output_contains": {"text": "HI"}}]}
                for i in range(2)
            ],
        }
    )
    async with EmbeddedStack(tmp_path / "d") as stack, Client(stack.target) as client:
        exporter.clear()
        run = await client.submit(suite, agent="python:tests.agents:echo_tool", k=3)
        [ev async for ev in client.watch(run.run_id)]
    spans = exporter.get_finished_spans()
    submit = next(s for s in spans if s.name == "SubmitRun")
    in_run = [s for s in spans if s.context.trace_id == submit.context.trace_id]
    names = Counter(s.name for s in in_run)
    assert names["runner.expand"] == 1
    assert names["runner.trial"] == 6
    assert names["grader.grade"] == 6
    assert names["transcripts.store"] == 6
    assert names["metrics.record"] == 6
    assert names["metrics.check"] >= 1
    by_id = {s.context.span_id: s for s in in_run}
    trial = next(s for s in in_run if s.name == "runner.trial")
    assert by_id[trial.parent.span_id].name == "runner.expand"
    grade = next(s for s in in_run if s.name == "grader.grade")
    assert by_id[grade.parent.span_id].name == "runner.trial"
    assert all(
        s.attributes.get("agenteval.run_id") == run.run_id for s in in_run if s.name.startswith("runner.")
    )
