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
from agenteval.runner.agents import Agent, AgentOutput, BadAgentOutput, load_agent
from agenteval.sdk import AgentContext

MAX_ERROR_CHARS = 4000


def trial_seed(run_seed: int, case_id: str, trial_index: int) -> int:
    """The seed of one trial's RNG: fixed by the run's seed, the case and the index."""
    digest = hashlib.sha256(f"{run_seed}:{case_id}:{trial_index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def _error(code: str, message: str, retryable: bool = False) -> TrialError:
    return TrialError(code=code, message=message[:MAX_ERROR_CHARS], retryable=retryable)


MEMORY_HINT = ""
"""Said after "the agent ran out of memory" (an agent worker names its limit here)."""

CANCEL_GRACE_S = 0.5
"""How long a timed-out agent gets to wind down once cancelled before an agent worker answers
for its trial and abandons it (an agent that ignores cancellation)."""


def trial_context(req: TrialRequested) -> AgentContext:
    case = req.case
    return AgentContext(
        run_id=req.run_id,
        case_id=case.id,
        trial_index=req.trial_index,
        seed=req.seed,
        initial_state=case.initial_state,
        tool_mocks=case.tool_mocks,
        metadata=case.metadata,
    )


def trial_metadata(seed: int, agent: str, agent_version: str) -> dict[str, Any]:
    return {"seed": seed, "agent": agent, "agent_version": agent_version}


def cancelled_trace(req: TrialRequested) -> Trace:
    return Trace(
        input=req.case.input,
        status="error",
        metadata=trial_metadata(req.seed, req.agent, req.agent_version),
        error=_error("cancelled", "the run was cancelled before this trial started"),
    )


async def run_trial(req: TrialRequested, cancelled: bool = False) -> Trace:
    """Run the agent for one trial in this process and return its full trace; never raises
    for agent faults (the trusted, in-process way; agent workers call :func:`run_agent`)."""
    if cancelled:
        return cancelled_trace(req)
    trace = await run_agent(
        req.agent,
        [m.model_dump() for m in req.case.input],
        trial_context(req),
        req.timeout_s,
        trial_metadata(req.seed, req.agent, req.agent_version),
    )
    trace.input = req.case.input
    return trace


async def run_agent(
    spec: str,
    messages: list[dict[str, Any]],
    ctx: AgentContext,
    timeout_s: float,
    meta: dict[str, Any],
) -> Trace:
    """Load and run the agent under its timeout; its trace (without ``input``), whatever it did."""
    started = time.perf_counter()
    result: AgentOutput | None = None
    error: TrialError | None = None
    try:
        agent = load_agent(spec)
        result = await _call(agent, messages, ctx, timeout_s)
    except TimeoutError:
        error = timeout_error(timeout_s)
    except BadAgentOutput as exc:
        error = _error("bad_agent_output", str(exc))
    except AgentEvalError as exc:
        error = _error("agent_not_found", str(exc))
    except MemoryError:
        error = _error("agent_out_of_memory", f"MemoryError: the agent ran out of memory{MEMORY_HINT}")
    except AgentExited as exc:
        error = _error("agent_exited", f"the agent called sys.exit({exc.code!r}); the trial ends here")
    except Exception as exc:
        error = _error("agent_error", f"{type(exc).__name__}: {_text(exc)}")
    return build_trace(ctx, meta, (time.perf_counter() - started) * 1000.0, result, error)


def timeout_error(timeout_s: float) -> TrialError:
    return _error("timeout", f"the agent did not finish within {timeout_s:g}s", retryable=True)


def build_trace(
    ctx: AgentContext,
    meta: dict[str, Any],
    latency_ms: float,
    result: AgentOutput | None,
    error: TrialError | None,
) -> Trace:
    """The trace of a trial from what its context recorded and what the agent returned (or
    the error that ended it)."""
    status = "ok" if error is None else "timeout" if error.code == "timeout" else "error"
    steps = list(ctx.steps)
    usage = ctx.usage
    state = ctx.state
    output, extra = (result.output, result.extra) if result is not None else (None, {})
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
        usage = attribute_usage(usage, steps, "usage" in extra)
    return Trace(
        steps=steps,
        output=output,
        state=state,
        usage=usage,
        latency_ms=latency_ms,
        status=status,
        error=error,
        metadata=meta,
    )


def attribute_usage(usage: Usage, steps: list[Step], reported: bool) -> Usage:
    """The trial's usage with its tokens attributed to models, so they can be priced: an agent
    that reports a trace (HTTP, gRPC, a returned dict) may give ``usage`` without ``models``, or
    its LLM calls' tokens without any ``usage`` (``reported`` False). Tokens of LLM-call steps are
    counted per model; usage with no model at all goes to the one model its steps name. What
    cannot be attributed stays so: the run counts the trial's cost as unknown, never $0."""
    calls = [s for s in steps if s.type == "llm_call"]
    per_model: dict[str, dict[str, int]] = {}
    for s in calls:
        if s.model:
            counts = per_model.setdefault(s.model, {"input_tokens": 0, "output_tokens": 0})
            counts["input_tokens"] += s.input_tokens
            counts["output_tokens"] += s.output_tokens
    if not reported:
        step_in, step_out = sum(s.input_tokens for s in calls), sum(s.output_tokens for s in calls)
        if usage.input_tokens >= step_in and usage.output_tokens >= step_out:
            return usage  # the steps are the context's own, already counted
        usage = Usage(input_tokens=step_in, output_tokens=step_out)
    if usage.models or not (usage.input_tokens or usage.output_tokens):
        return usage
    if len(per_model) == 1 and not any(sum(c.values()) for c in per_model.values()):
        [model] = per_model
        per_model = {model: {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}}
    per_model = {m: c for m, c in per_model.items() if c["input_tokens"] or c["output_tokens"]}
    return usage.model_copy(update={"models": per_model})


async def _call(
    agent: Agent, messages: list[dict[str, Any]], ctx: AgentContext, timeout_s: float
) -> AgentOutput:
    """The agent's output, or TimeoutError once ``timeout_s`` has passed (the agent is then
    cancelled: a sync agent's thread runs on, counted in ``agents.threads``). An agent that
    ignores the cancellation holds its trial; an agent worker answers for it (and abandons it)."""
    try:
        async with asyncio.timeout(timeout_s):
            return await agent.run(messages, ctx)
    except SystemExit as exc:  # raised out of a task, it would take the event loop down
        raise AgentExited(exc.code) from None


class AgentExited(Exception):
    """The agent raised SystemExit: the trial ends, its process does not."""

    def __init__(self, code: object) -> None:
        super().__init__(code)
        self.code = code


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:
        return "(its message could not be read)"


def unserializable(trace: Trace, exc: Exception) -> Trace:
    """An error trace in place of one that cannot be written as JSON (what can be kept is)."""
    message = f"the agent's result cannot be serialized: {type(exc).__name__}: {_text(exc)}"
    keep = trace.model_copy(update={"steps": [], "state": {}, "output": None})
    meta = {k: v for k, v in trace.metadata.items() if k in ("seed", "agent", "agent_version")}
    for field, value in (("steps", trace.steps), ("state", trace.state), ("output", trace.output)):
        try:
            keep.model_copy(update={field: value}).model_dump_json()
        except Exception:
            continue
        keep = keep.model_copy(update={field: value})
    return keep.model_copy(
        update={"status": "error", "error": _error("bad_agent_output", message), "metadata": meta}
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
