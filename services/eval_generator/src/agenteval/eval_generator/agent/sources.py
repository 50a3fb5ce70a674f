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
        from agenteval.eval_generator.agent.loop import TraceSummary

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


PROBE_TRACES = 2
"""Traces a function runs on first: one that times out there is not run on the rest, since
each timed-out trace costs the sandbox's whole per-trace limit."""


def _timed_out(report: dict[str, Any]) -> str | None:
    for m in report.get("mismatches") or []:
        error = m.get("error") or ""
        if error.startswith("timeout"):
            return f"timed out on trace {m.get('trace_id')} ({error.removeprefix('timeout: ')})"
    return None


class SplitCodeTester:
    """Tests code on the training split only, for the model and for choosing among candidates.

    Keeps every code the model tested (``tested``) and every full-split report, so a function
    the model already measured is not measured again."""

    def __init__(self, train: list[Labeled], backends: Backends) -> None:
        self.train = train
        self.backends = backends
        self.tested: list[str] = []
        self._reports: dict[str, dict[str, Any]] = {}

    async def test(self, code: str, trace_ids: list[str] | None) -> dict[str, Any]:
        """The loop's test_eval_code."""
        self.tested.append(code)
        wanted = set(trace_ids or [])
        if not wanted:
            return await self.measure(code)
        return await self._run(code, [t for t in self.train if t[0] in wanted])

    async def measure(self, code: str) -> dict[str, Any]:
        """The report of ``code`` on the whole training split."""
        from agenteval.eval_generator.agent.tools import normalize_code

        key = normalize_code(code)
        if key not in self._reports:
            self._reports[key] = await self._run(code, self.train)
        return self._reports[key]

    async def _run(self, code: str, traces: list[Labeled]) -> dict[str, Any]:
        if len(traces) > PROBE_TRACES:
            probe = await self.backends.test_code(code, traces[:PROBE_TRACES])
            timed_out = _timed_out(probe)
            if probe.get("code_error") or timed_out:
                error = probe.get("code_error") or f"{timed_out}; the other traces were not run"
                return {**probe, "accuracy": 0.0, "total": len(traces), "code_error": error}
        report = await self.backends.test_code(code, traces)
        timed_out = _timed_out(report)
        if timed_out and not report.get("code_error"):
            report = {**report, "code_error": timed_out}
        return report
