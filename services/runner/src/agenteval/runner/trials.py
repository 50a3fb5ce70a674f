"""Where trials run: ``python:`` and ``anthropic:`` agents in agent worker processes (the
default) or, when the runner is told its agents are trusted, in the runner's own process (an
``anthropic:`` agent's tool loop calls the case's ``{"python": ...}`` tool mocks, user code);
``grpc://`` and ``http(s)://`` agents from the runner (they are network calls: no user code
runs here)."""

from __future__ import annotations

import time
from collections import OrderedDict

from pydantic import ValidationError

from agenteval.contracts.errors import InvalidArgument
from agenteval.contracts.events import TrialRequested
from agenteval.contracts.trace import Trace, TrialError
from agenteval.runner.agents import FUNCTION_AGENTS, check_spec, load_agent
from agenteval.runner.executor import MAX_ERROR_CHARS, cancelled_trace, run_trial, trial_metadata
from agenteval.runner.settings import RunnerSettings
from agenteval.runner.workers import Verdict, WorkerLimits, WorkerPool

CHECKED_SPECS = 256


class TrialRunner:
    """Runs trials and checks agent specs, isolated or not as the settings say."""

    def __init__(self, settings: RunnerSettings) -> None:
        self.pool: WorkerPool | None = None
        if not settings.agents_in_process:
            self.pool = WorkerPool(
                WorkerLimits(
                    workers=settings.agent_workers,
                    threads=settings.agent_worker_threads,
                    memory_mb=settings.agent_memory_mb,
                    output_chars=settings.agent_output_chars,
                    max_trace_bytes=settings.agent_max_trace_bytes,
                    kill_grace_s=settings.agent_kill_grace_s,
                )
            )
        self._checked: OrderedDict[str, None] = OrderedDict()

    def start(self) -> None:
        """Start the agent workers in the background (else the first trial starts them)."""
        if self.pool is not None:
            self.pool.start()

    async def close(self) -> None:
        if self.pool is not None:
            await self.pool.close()

    async def check(self, spec: str) -> None:
        """Raise InvalidArgument with the reason when the agent of ``spec`` cannot be loaded."""
        spec = check_spec(spec)
        if self.pool is None or not spec.startswith("python:"):
            load_agent(spec)
            return
        if spec in self._checked:
            self._checked.move_to_end(spec)
            return
        error = await self.pool.load(spec)
        if error is not None:
            raise InvalidArgument(error)
        self._checked[spec] = None
        if len(self._checked) > CHECKED_SPECS:
            self._checked.popitem(last=False)

    async def run(self, req: TrialRequested, cancelled: bool = False) -> Trace:
        """The trial's full trace; never raises for agent faults (PoolClosed when stopping)."""
        if cancelled:
            return cancelled_trace(req)
        spec = req.agent.strip()
        if self.pool is None or not spec.startswith(FUNCTION_AGENTS):
            return await run_trial(req)
        case = req.case
        item = (
            spec,
            [m.model_dump() for m in case.input],
            req.run_id,
            case.id,
            req.trial_index,
            req.seed,
            case.initial_state,
            case.tool_mocks,
            case.metadata,
            req.timeout_s,
            req.agent_version,
        )
        started = time.perf_counter()
        out = await self.pool.run(item, req.timeout_s, req.trial_id)
        if isinstance(out, Verdict):
            trace = self._judged(req, out, (time.perf_counter() - started) * 1000.0)
        else:
            try:
                trace = Trace.model_validate_json(out)
            except ValidationError as exc:
                trace = self._judged(
                    req,
                    Verdict(
                        "error",
                        "bad_agent_output",
                        "the agent recorded a trace that does not fit (token counts are whole "
                        f"numbers from 0 to 2**63-1, durations finite): {exc}",
                    ),
                    (time.perf_counter() - started) * 1000.0,
                )
        trace.input = case.input
        return trace

    @staticmethod
    def _judged(req: TrialRequested, verdict: Verdict, latency_ms: float) -> Trace:
        return Trace(
            status="timeout" if verdict.status == "timeout" else "error",
            error=TrialError(
                code=verdict.code,
                message=verdict.message[:MAX_ERROR_CHARS],
                retryable=verdict.status == "timeout",
            ),
            latency_ms=latency_ms,
            metadata=trial_metadata(req.seed, req.agent.strip(), req.agent_version),
        )
