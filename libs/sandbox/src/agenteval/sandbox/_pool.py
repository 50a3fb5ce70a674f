"""The sandbox pool: persistent workers, batches split across them, limits enforced."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import itertools
import math
import os
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agenteval.sandbox import _policy
from agenteval.sandbox._process import WorkerDied, WorkerProcess, describe_exit, encode_trace
from agenteval.sandbox._types import (
    EvalResult,
    LLMCallback,
    LLMReply,
    LLMRequest,
    SandboxError,
    SandboxLimits,
)

MAX_CHUNK = 256
CHECK_CACHE_SIZE = 256
NO_LLM = "no LLM is configured for eval functions"


def check_code(
    code: str, allowed_imports: Sequence[str] = (), function: str | None = None
) -> list[SandboxError]:
    """Static validation without running anything: syntax, imports, forbidden names and
    attributes, and that the eval function exists. Empty list: the code may run."""
    return list(_checked(code, tuple(allowed_imports), function))


@functools.lru_cache(maxsize=CHECK_CACHE_SIZE)
def _checked(code: str, allowed_imports: tuple[str, ...], function: str | None) -> tuple[SandboxError, ...]:
    # An AST walk costs milliseconds; a suite repeats the same code in every case and run.
    analysis = _policy.analyze(code, _policy.allowed_set(allowed_imports), function)
    return tuple(SandboxError(p.rule, p.message) for p in analysis.problems)


@dataclass
class _Job:
    """One run_batch: the code, its encoded traces and where results go."""

    fixed: dict[str, Any]
    """The request's members besides id and traces."""
    traces: Sequence[Any]
    timeout_s: float
    results: list[EvalResult | None]
    encoded: dict[int, bytes] = field(default_factory=dict)
    """Traces are encoded chunk by chunk, so workers start while the rest is encoded."""
    retried: set[int] = field(default_factory=set)
    """Positions re-run once because their worker died before showing any sign of life."""

    def request(self, request_id: int, positions: Sequence[int]) -> dict[str, Any]:
        blobs = []
        for p in positions:
            blob = self.encoded.get(p)
            if blob is None:
                blob = self.encoded[p] = encode_trace(self.traces[p])
            blobs.append(blob)
        return {**self.fixed, "id": request_id, "traces": blobs}


class _Slot:
    """A place for one worker; a dead worker is replaced on the slot's next use."""

    def __init__(self, limits: SandboxLimits) -> None:
        self.limits = limits
        self.worker = WorkerProcess(limits)

    async def ensure_started(self) -> WorkerProcess:
        if not self.worker.alive:
            await self.worker.kill()
            self.worker = WorkerProcess(self.limits)
            await self.worker.start()
        return self.worker


class SandboxPool:
    """Runs eval functions in sandboxed worker processes.

    Workers start on :meth:`start` (or lazily on first use) and are reused across calls;
    one that hits a limit or dies is killed and replaced. Safe to call from many
    coroutines at once on one event loop: a worker runs one request at a time.
    """

    check_code = staticmethod(check_code)

    def __init__(
        self,
        workers: int | None = None,
        limits: SandboxLimits = SandboxLimits(),
        llm: LLMCallback | None = None,
    ) -> None:
        self.size = max(1, workers if workers is not None else (os.cpu_count() or 2))
        self.limits = limits
        self.llm = llm
        self._slots = [_Slot(limits) for _ in range(self.size)]
        self._idle: asyncio.Queue[_Slot] = asyncio.Queue()
        for slot in self._slots:
            self._idle.put_nowait(slot)
        self._ids = itertools.count(1)
        self._checks: OrderedDict[tuple[str, str | None, frozenset[str]], tuple[list[SandboxError], str]] = (
            OrderedDict()
        )
        self._closed = False

    async def __aenter__(self) -> SandboxPool:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> None:
        """Spawn every worker now (otherwise each starts on first use)."""
        await asyncio.gather(*(slot.ensure_started() for slot in self._slots))

    async def close(self) -> None:
        self._closed = True
        await asyncio.gather(*(slot.worker.close() for slot in self._slots))

    def worker_pids(self) -> list[int]:
        """Process ids of the live workers."""
        return [pid for slot in self._slots if (pid := slot.worker.pid) is not None]

    async def run(
        self,
        code: str,
        trace: Any,
        *,
        function: str | None = None,
        allowed_imports: Sequence[str] = (),
        timeout_s: float | None = None,
    ) -> EvalResult:
        """Run the eval function in ``code`` on one trace."""
        results = await self.run_batch(
            code, [trace], function=function, allowed_imports=allowed_imports, timeout_s=timeout_s
        )
        return results[0]

    async def run_batch(
        self,
        code: str,
        traces: Sequence[Any],
        *,
        function: str | None = None,
        allowed_imports: Sequence[str] = (),
        timeout_s: float | None = None,
    ) -> list[EvalResult]:
        """Run the eval function on every trace, split across workers; results in order.

        A trace that breaks a limit gets its own error; the others still get results.
        ``allowed_imports`` adds top-level modules to the default allowlist for this call.
        """
        if self._closed:
            raise RuntimeError("the sandbox pool is closed")
        allowed = _policy.allowed_set(allowed_imports)
        if not traces:
            return []
        problems, key = self._check(code, function, allowed)
        if problems:
            return [EvalResult(None, "", problems[0], 0.0, 0) for _ in traces]
        limits = self.limits
        fixed = {
            "op": "run",
            "key": key,
            "code": code,
            "function": function,
            "imports": sorted(allowed),
            "limits": {
                "cpu_s": limits.cpu_s,
                "max_output_bytes": limits.max_output_bytes,
                "max_error_chars": limits.max_error_chars,
                "max_llm_calls": limits.max_llm_calls,
                "max_llm_prompt_bytes": limits.max_llm_prompt_bytes,
            },
        }
        job = _Job(
            fixed=fixed,
            traces=traces,
            timeout_s=limits.timeout_s if timeout_s is None else timeout_s,
            results=[None] * len(traces),
        )
        chunk = max(1, min(MAX_CHUNK, math.ceil(len(traces) / (self.size * 4))))
        queue: deque[Sequence[int]] = deque(
            range(i, min(i + chunk, len(traces))) for i in range(0, len(traces), chunk)
        )

        async def drain() -> None:
            while queue:
                positions = list(queue.popleft())
                slot = await self._idle.get()
                try:
                    leftover = await self._execute(slot, job, positions)
                finally:
                    self._idle.put_nowait(slot)
                if leftover:
                    queue.appendleft(leftover)

        if len(queue) == 1:
            await drain()
        else:
            async with asyncio.TaskGroup() as group:
                for _ in range(min(self.size, len(queue))):
                    group.create_task(drain())
        missing = [i for i, r in enumerate(job.results) if r is None]
        if missing:  # every path above fills a result or re-queues the position
            raise RuntimeError(f"sandbox lost the results of traces {missing[:10]}")
        return job.results  # type: ignore[return-value]

    def _check(
        self, code: str, function: str | None, allowed: frozenset[str]
    ) -> tuple[list[SandboxError], str]:
        cache_key = (code, function, allowed)
        hit = self._checks.get(cache_key)
        if hit is not None:
            self._checks.move_to_end(cache_key)
            return hit
        problems = check_code(code, sorted(allowed), function)
        digest = hashlib.sha256(
            "\0".join([code, function or "", ",".join(sorted(allowed))]).encode("utf-8", "surrogatepass")
        ).hexdigest()
        self._checks[cache_key] = (problems, digest)
        if len(self._checks) > CHECK_CACHE_SIZE:
            self._checks.popitem(last=False)
        return problems, digest

    async def _execute(self, slot: _Slot, job: _Job, positions: list[int]) -> list[int]:
        """Run ``positions`` of the job on one worker; returns positions left unanswered
        because the worker went away before reaching them (to be run again)."""
        worker = await slot.ensure_started()
        loop = asyncio.get_running_loop()
        request_id = next(self._ids)
        llm_calls = [0] * len(positions)
        llm_cost = [0.0] * len(positions)
        answered = 0  # results arrive in order: positions[:answered] are done
        frames = 0
        started = loop.time()
        failure: tuple[str, str] | None = None
        blame_current = True  # whether the failure belongs to the trace in progress
        try:
            async with asyncio.timeout(None) as deadline:
                deadline.reschedule(loop.time() + job.timeout_s)
                worker.send(job.request(request_id, positions))
                await worker.drain()
                while True:
                    message = await worker.read()
                    frames += 1
                    op = message.get("op")
                    if op == "result":
                        index = answered
                        if message.get("id") != request_id or message.get("i") != index:
                            raise WorkerDied(f"worker answered out of turn: {message.get('i')!r}")
                        job.results[positions[index]] = self._result(
                            message, llm_calls[index], llm_cost[index]
                        )
                        answered += 1
                        started = loop.time()
                        deadline.reschedule(started + job.timeout_s)
                    elif op == "llm":
                        if message.get("id") != request_id or answered >= len(positions):
                            raise WorkerDied("worker asked for an LLM call outside a trace")
                        remaining = (deadline.when() or loop.time()) - loop.time()
                        deadline.reschedule(None)  # waiting for the LLM is not the eval's time
                        llm_calls[answered] += 1
                        if llm_calls[answered] > self.limits.max_llm_calls:
                            # The worker enforces this too; the pool does not rely on it for cost.
                            reply = {"op": "llm_reply", "error": "too many LLM calls"}
                        else:
                            reply, cost = await self._answer_llm(message)
                            llm_cost[answered] += cost
                        worker.send(reply)
                        await worker.drain()
                        deadline.reschedule(loop.time() + max(remaining, 0.0))
                    elif op == "done":
                        return []
                    elif op == "exit":  # it recycled itself after the last result it sent
                        failure, blame_current = ("worker_crashed", "worker exited"), False
                        break
                    elif op == "fatal":
                        failure = (str(message.get("rule")), str(message.get("message")))
                        for index in range(answered, len(positions)):
                            job.results[positions[index]] = EvalResult(
                                None, "", SandboxError(*failure), 0.0, llm_calls[index], llm_cost[index]
                            )
                        await worker.kill()
                        return []
        except TimeoutError:
            failure = ("timeout", f"the eval function did not finish within {job.timeout_s:g} s")
            await worker.kill()
        except WorkerDied:
            failure = describe_exit(await worker.exit_status(), self.limits)
            await worker.kill()
            first = positions[answered] if answered < len(positions) else None
            if frames == 0 and first is not None and first not in job.retried:
                # It may have died while idle (killed, OOM) before it read this request:
                # run the trace once more on a fresh worker before blaming it.
                job.retried.add(first)
                blame_current = False
        except BaseException:
            # Cancelled (or a bug) mid-request: the worker's state is unknown, replace it.
            await worker.kill()
            raise
        if failure is not None and blame_current and answered < len(positions):
            elapsed_ms = (loop.time() - started) * 1000.0
            job.results[positions[answered]] = EvalResult(
                None, "", SandboxError(*failure), elapsed_ms, llm_calls[answered], llm_cost[answered]
            )
            answered += 1
        await worker.exit_status()
        return positions[answered:]

    @staticmethod
    def _result(message: dict[str, Any], llm_calls: int, llm_cost: float) -> EvalResult:
        """Turn a result frame into an EvalResult, trusting nothing in it."""
        try:
            duration_ms = float(message.get("ms", 0.0))
            error = message.get("error")
            if error is not None:
                rule, text = error
                return EvalResult(
                    None, "", SandboxError(str(rule), str(text)), duration_ms, llm_calls, llm_cost
                )
            score, explanation = message["score"], message["explanation"]
        except (KeyError, TypeError, ValueError) as exc:
            raise WorkerDied(f"worker sent a malformed result: {exc!r}") from None
        if type(score) is not float or not 0.0 <= score <= 1.0 or type(explanation) is not str:
            raise WorkerDied("worker sent a malformed result")
        return EvalResult(score, explanation, None, duration_ms, llm_calls, llm_cost)

    async def _answer_llm(self, message: dict[str, Any]) -> tuple[dict[str, Any], float]:
        """The reply frame for one ``ctx.call_llm``, and what the call cost."""
        if self.llm is None:
            return {"op": "llm_reply", "error": NO_LLM}, 0.0
        request = LLMRequest(
            prompt=str(message.get("prompt", "")),
            model=message.get("model"),
            temperature=float(message.get("temperature", 0.0)),
            max_tokens=int(message.get("max_tokens", 1000)),
        )
        try:
            async with asyncio.timeout(self.limits.llm_timeout_s):
                answer = await self.llm(request)
        except TimeoutError:
            error = f"LLM call timed out after {self.limits.llm_timeout_s:g} s"
            return {"op": "llm_reply", "error": error}, 0.0
        except Exception as exc:  # the eval function sees the failure as an LLMError
            detail = f"{type(exc).__name__}: {exc}"[: self.limits.max_error_chars]
            return {"op": "llm_reply", "error": f"LLM call failed: {detail}"}, 0.0
        text, cost = (answer.text, float(answer.cost_usd)) if isinstance(answer, LLMReply) else (answer, 0.0)
        if not isinstance(text, str):
            return {"op": "llm_reply", "error": f"LLM callback returned {type(text).__name__}, not str"}, cost
        return {"op": "llm_reply", "text": text}, cost
