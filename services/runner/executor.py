"""Running one trial: the agent under a timeout, its trace captured whatever happens."""

from __future__ import annotations

import asyncio
import hashlib
import time
from typing import Any

from pydantic import ValidationError

from agenteval.contracts.errors import AgentEvalError
from agenteval.contracts.events import TrialRequested
from agenteval.contracts.trace import Step, Trace, TrialError, Usage
from agenteval.runner.agents import load_agent
from agenteval.runner.context import AgentContext

MAX_ERROR_CHARS = 4000


def trial_seed(run_seed: int, case_id: str, trial_index: int) -> int:
    """The seed of one trial's RNG: fixed by the run's seed, the case and the index."""
    digest = hashlib.sha256(f"{run_seed}:{case_id}:{trial_index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def _error(code: str, message: str, retryable: bool = False) -> TrialError:
    return TrialError(code=code, message=message[:MAX_ERROR_CHARS], retryable=retryable)


async def run_trial(req: TrialRequested, cancelled: bool = False) -> Trace:
    """Run the agent for one trial and return its trace; never raises for agent faults."""
    case = req.case
    ctx = AgentContext(
        run_id=req.run_id,
        case_id=case.id,
        trial_index=req.trial_index,
        seed=req.seed,
        initial_state=case.initial_state,
        tool_mocks=case.tool_mocks,
        metadata=case.metadata,
    )
    messages = [m.model_dump() for m in case.input]
    meta: dict[str, Any] = {"seed": req.seed, "agent": req.agent, "agent_version": req.agent_version}
    if cancelled:
        return Trace(
            input=case.input,
            status="error",
            metadata=meta,
            error=_error("cancelled", "the run was cancelled before this trial started"),
        )
    started = time.perf_counter()
    status = "ok"
    error: TrialError | None = None
    output: str | None = None
    extra: dict[str, Any] = {}
    try:
        agent = load_agent(req.agent)
        result = await asyncio.wait_for(agent.run(messages, ctx), timeout=req.timeout_s)
        output, extra = result.output, result.extra
    except TimeoutError:
        status = "timeout"
        error = _error("timeout", f"the agent did not finish within {req.timeout_s:g}s", retryable=True)
    except AgentEvalError as exc:
        status = "error"
        error = _error("agent_not_found", str(exc))
    except Exception as exc:
        status = "error"
        error = _error("agent_error", f"{type(exc).__name__}: {exc}")
    latency_ms = (time.perf_counter() - started) * 1000.0

    steps = list(ctx.steps)
    usage = ctx.usage
    state = ctx.state
    if extra:
        try:
            if "steps" in extra:
                steps = steps + [Step.model_validate(s) for s in extra["steps"]]
            if "usage" in extra:
                usage = Usage.model_validate(extra["usage"])
            if "state" in extra and isinstance(extra["state"], dict):
                state = extra["state"]
        except (ValidationError, TypeError) as exc:
            status = "error"
            error = _error("bad_agent_output", f"the agent returned a trace dict that does not fit: {exc}")
        if isinstance(extra.get("metadata"), dict):
            meta.update(extra["metadata"])
    return Trace(
        input=case.input,
        steps=steps,
        output=output,
        state=state,
        usage=usage,
        latency_ms=latency_ms,
        status=status,
        error=error,
        metadata=meta,
    )
