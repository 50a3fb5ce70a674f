"""Datasets of imported traces: one trace per id, labels that change, a version that counts changes."""

from __future__ import annotations

import pytest

from agenteval.contracts.errors import InvalidArgument, NotFound
from agenteval.contracts.trace import Trace
from agenteval.importers import ImportedTrace
from agenteval.storage import create_engine, upgrade
from agenteval.transcript_store.app import MIGRATIONS
from agenteval.transcript_store.repository import DatasetRepository


def item(i: int, label: str | None = "positive") -> ImportedTrace:
    trace = Trace(
        input=[{"role": "user", "content": f"q{i}"}],
        output=f"answer {i}",
        steps=[{"type": "tool_call", "name": "t", "arguments": {}}] if i % 2 else [],
    )
    return ImportedTrace(
        trace_id=f"id-{i}", trace=trace, label=label, comment=None, rater=None, source_format="jsonl"
    )


@pytest.fixture
async def repo(db_url: str):
    engine = create_engine(db_url)
    await upgrade(engine, "transcript_store", MIGRATIONS)
    yield DatasetRepository(engine)
    await engine.dispose()


async def test_import_relabel_and_versions(repo: DatasetRepository) -> None:
    assert await repo.import_traces("prod", [item(0), item(1, "negative"), item(2, None)]) == (3, 0, 1)
    # the same traces again: nothing new, same version
    assert await repo.import_traces("prod", [item(0), item(1, "negative")]) == (0, 2, 1)
    # a new label on an existing trace is a change
    assert await repo.import_traces("prod", [item(0, "negative")]) == (0, 1, 2)
    rows, total = await repo.list("prod", label="negative")
    assert total == 2 and {r["trace_id"] for r in rows} == {"id-0", "id-1"}
    # the filter takes the spellings a label does
    rows, total = await repo.list("prod", label="thumbs_down")
    assert total == 2 and {r["trace_id"] for r in rows} == {"id-0", "id-1"}
    rows, total = await repo.list("prod", labeled_only=True)
    assert total == 2
    labeled = await repo.label("prod", "id-2", "positive", comment="looks right", rater="ana")
    assert labeled["label"] == "positive" and labeled["rater"] == "ana"
    assert await repo.version("prod") == 3
    row = await repo.get("prod", "id-1")
    assert (
        row is not None and row["summary"] == "answer 1" and row["has_tool_calls"] and row["step_count"] == 1
    )
    # datasets are separate
    assert await repo.import_traces("other", [item(0)]) == (1, 0, 1)


async def test_bad_requests(repo: DatasetRepository) -> None:
    await repo.import_traces("prod", [item(0)])
    with pytest.raises(NotFound):
        await repo.label("prod", "nope", "positive")
    with pytest.raises(InvalidArgument):
        await repo.label("prod", "id-0", "meh")
    with pytest.raises(InvalidArgument):
        await repo.list("prod", label="meh")
    with pytest.raises(NotFound):
        await repo.list("missing")
    with pytest.raises(InvalidArgument):
        await repo.import_traces("bad name!", [item(0)])


async def test_traces_keep_the_agent_they_came_from_and_filter_by_it(repo: DatasetRepository) -> None:
    a, b, unnamed = item(0), item(1, "negative"), item(2)
    a.agent, b.agent = "travel-bot-v2", "support-bot"
    more = item(3, "negative")
    more.agent = "travel-bot-v2"
    await repo.import_traces("prod", [a, b, unnamed, more])
    rows, total = await repo.list("prod", agent="travel-bot-v2")
    assert total == 2 and [r["trace_id"] for r in rows] == ["id-0", "id-3"]
    assert {r["agent"] for r in rows} == {"travel-bot-v2"}
    rows, total = await repo.list("prod", agent="travel-bot-v2", label="bad")
    assert total == 1 and [r["trace_id"] for r in rows] == ["id-3"], "agent and label filters combine"
    rows, total = await repo.list("prod", agent="nobody")
    assert (rows, total) == ([], 0)
    rows, total = await repo.list("prod")
    assert total == 4, "no agent filter: every trace, with or without an agent"
    got = await repo.get("prod", "id-2")
    assert got is not None and got["agent"] is None
