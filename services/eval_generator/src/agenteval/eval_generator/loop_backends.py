"""The agent loop's view of a dataset: only the training split, never the held-out part."""

from __future__ import annotations

from typing import Any

from agenteval.eval_generator.service import Backends, Labeled


class SplitTraceSource:
    def __init__(self, train: list[Labeled]) -> None:
        self.train = train
        self.by_id = {tid: (t, lab) for tid, t, lab in train}

    async def list(
        self, label: str | None, limit: int, offset: int, agent: str | None = None
    ) -> tuple[list[Any], int]:
        from agenteval.eval_generator.agent_loop import TraceSummary

        rows = [
            (tid, t, lab)
            for tid, t, lab in self.train
            if label in (None, "all", lab) and agent in (None, _agent(t))
        ]
        page = rows[offset : offset + limit]
        return [
            TraceSummary(
                trace_id=tid,
                label=lab,
                summary=str(t.get("output") or "")[:200],
                step_count=len(t.get("steps") or []),
                has_tool_calls=any(s.get("type") == "tool_call" for s in t.get("steps") or []),
                agent=_agent(t),
            )
            for tid, t, lab in page
        ], len(rows)

    async def get(self, trace_id: str) -> dict[str, Any] | None:
        found = self.by_id.get(trace_id)
        return found[0] if found else None


def _agent(trace: dict[str, Any]) -> str | None:
    """The agent an import named for the trace (kept in its metadata as agent_id)."""
    metadata = trace.get("metadata")
    agent = metadata.get("agent_id") if isinstance(metadata, dict) else None
    return str(agent) if agent not in (None, "") else None


class SplitCodeTester:
    def __init__(self, train: list[Labeled], backends: Backends) -> None:
        self.train = train
        self.backends = backends

    async def test(self, code: str, trace_ids: list[str] | None) -> dict[str, Any]:
        wanted = set(trace_ids or [])
        traces = [t for t in self.train if not wanted or t[0] in wanted]
        return await self.backends.test_code(code, traces)
