"""Running one trial: the agent under a timeout, its trace captured whatever happens."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from typing import Any

from pydantic import ValidationError

from agenteval.contracts.errors import AgentEvalError
from agenteval.contracts.events import TrialRequested
from agenteval.contracts.trace import Step, Trace, TrialError, Usage
from agenteval.runner.agents import BadAgentOutput, load_agent
from agenteval.sdk import AgentContext

MAX_ERROR_CHARS = 4000


def trial_seed(run_seed: int, case_id: str, trial_index: int) -> int:
    """The seed of one trial's RNG: fixed by the run's seed, the case and the index."""
    digest = hashlib.sha256(f"{run_seed}:{case_id}:{trial_index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def _error(code: str, message: str, retryable: bool = False) -> TrialError:
    return TrialError(code=code, message=message[:MAX_ERROR_CHARS], retryable=retryable)


async def run_trial(req: TrialRequested, cancelled: bool = False) -> Trace:
    """Run the agent for one trial and return its full trace; never raises for agent faults."""
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
    except BadAgentOutput as exc:
        status = "error"
        error = _error("bad_agent_output", str(exc))
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


# NATS' default max payload is 1 MB; an event must stay well under it with its case attached.
# A larger trace travels by reference (the full trace in the transcripts bucket) with a cut copy.
MAX_TRACE_BYTES = 640 * 1024
_KEEP_CHARS = 4000


def _clip(value: Any) -> Any:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    if len(text) <= _KEEP_CHARS:
        return value
    return (
        text[:_KEEP_CHARS] + f"... [{len(text) - _KEEP_CHARS} characters cut: the transcript was too large]"
    )


def fits_bus(trace: Trace, limit: int = MAX_TRACE_BYTES) -> bool:
    """Whether the trace may travel whole in its trial.completed."""
    return len(trace.model_dump_json()) <= limit


def fit_trace(trace: Trace, limit: int = MAX_TRACE_BYTES) -> Trace:
    """A copy of the trace small enough to travel on the bus: oversized tool results, messages
    and the final state are cut (and the trace says so). It goes with a reference to the full
    trace, or alone when the full trace could not be stored."""
    if fits_bus(trace, limit):
        return trace
    steps = [
        s.model_copy(
            update={"result": _clip(s.result), "content": _clip(s.content) if s.content else s.content}
        )
        for s in trace.steps
    ]
    state = trace.state
    if len(json.dumps(state, default=str)) > limit // 4:
        state = {"_truncated": _clip(state)}
    fitted = trace.model_copy(
        update={
            "steps": steps,
            "state": state,
            "output": _clip(trace.output) if trace.output else trace.output,
            "metadata": {**trace.metadata, "truncated": True},
        }
    )
    if len(fitted.model_dump_json()) > limit:  # still too big: keep the first and last steps
        head, tail = fitted.steps[:50], fitted.steps[-50:]
        fitted = fitted.model_copy(
            update={
                "steps": head + tail if len(fitted.steps) > 100 else head,
                "metadata": {**fitted.metadata, "steps_dropped": len(fitted.steps) - 100},
            }
        )
    return fitted
