"""fetch_traces as the notes have it: a rating and the agent the traces came from.

The traces take the real path: the shipped generic example imported into a real
transcript-store over gRPC, read back by the generator's backend, then listed by the tool.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agenteval.eval_generator.agent.prompt import TOOL_SCHEMAS
from agenteval.eval_generator.agent.sources import SplitTraceSource
from agenteval.eval_generator.agent.tools import AgentTools
from agenteval.eval_generator.generation.backends import GrpcBackends
from agenteval.runtime.grpc_server import GrpcServer
from agenteval.storage import create_engine, upgrade
from agenteval.transcript_store.app import MIGRATIONS
from agenteval.transcript_store.grpc_api import TranscriptServicer
from agenteval.transcript_store.repository import DatasetRepository, TranscriptRepository
from agenteval.transcript_store.service import TranscriptService
from agenteval.v1 import transcripts_pb2, transcripts_pb2_grpc

EXAMPLE = Path(__file__).resolve().parents[2] / "examples/traces/generic_traces.jsonl"


class NoTests:
    async def test(self, code: str, trace_ids: list[str] | None) -> dict[str, Any]:
        raise AssertionError("fetch_traces must not test code")


@pytest.fixture
async def tools(db_url: str) -> AsyncIterator[AgentTools]:
    """The agent's tools over the example dataset, as stored by a real transcript-store."""
    engine = create_engine(db_url)
    await upgrade(engine, "transcript_store", MIGRATIONS)
    server = GrpcServer()
    server.add(
        transcripts_pb2_grpc.add_TranscriptServiceServicer_to_server,
        TranscriptServicer(TranscriptService(TranscriptRepository(engine), DatasetRepository(engine))),
        [transcripts_pb2.DESCRIPTOR.services_by_name["TranscriptService"].full_name],
    )
    await server.start()
    try:
        backends = GrpcBackends(server.target, "127.0.0.1:9")  # the grader is not used here
        imported = await backends.transcripts.ImportTraces(
            iter([transcripts_pb2.ImportTracesRequest(dataset="gen", chunk=EXAMPLE.read_bytes())])
        )
        assert imported.imported == 8 and not imported.problems, imported
        _, labeled = await backends.labeled_traces("gen")
        yield AgentTools("quality", SplitTraceSource(labeled), NoTests())
    finally:
        await server.stop(0)
        await engine.dispose()


async def fetch(tools: AgentTools, **args: Any) -> dict[str, Any]:
    outcome = await tools.run("fetch_traces", args)
    assert not outcome.is_error, outcome.content
    return json.loads(outcome.content)


async def test_fetch_traces_filters_by_agent_and_rating(tools: AgentTools) -> None:
    support_bad = await fetch(tools, agent_id="support-bot", rating="negative")
    assert sorted(t["trace_id"] for t in support_bad["traces"]) == ["support-001", "support-003"]
    assert support_bad["total"] == 2
    assert {t["agent_id"] for t in support_bad["traces"]} == {"support-bot"}
    assert {t["rating"] for t in support_bad["traces"]} == {"negative"}

    travel = await fetch(tools, agent_id="travel-bot-v2", limit=100)
    assert sorted(t["trace_id"] for t in travel["traces"]) == [
        "travel-001",
        "travel-002",
        "travel-003",
        "travel-004",
    ]
    repeated = next(t for t in travel["traces"] if t["trace_id"] == "travel-004")
    assert repeated["step_count"] == 5 and repeated["has_tool_calls"], "each call once"

    everyone = await fetch(tools, limit=100)
    assert everyone["total"] == 8
    assert (await fetch(tools, agent_id="nobody"))["total"] == 0


async def test_the_model_is_told_it_can_filter_by_agent() -> None:
    schema = next(s for s in TOOL_SCHEMAS if s["name"] == "fetch_traces")
    assert schema["input_schema"]["properties"]["agent_id"]["type"] == "string"
    assert "agent" in schema["description"]
