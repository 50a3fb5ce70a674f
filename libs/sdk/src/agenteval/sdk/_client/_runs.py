"""Runs: submit, follow, compare."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

from agenteval.contracts import pb
from agenteval.contracts.records import (
    RunInfo,
)
from agenteval.contracts.suite import Suite
from agenteval.contracts.summary import RunSummary
from agenteval.sdk._client._base import RECONNECT_S, _Base
from agenteval.v1 import (
    runner_pb2,
)


class _Runs(_Base):
    # -- runs ------------------------------------------------------------------------------
    async def submit(
        self,
        suite: Suite,
        agent: str = "",
        k: int | None = None,
        *,
        agent_version: str = "",
        concurrency: int = 0,
        seed: int = 0,
        timeout_s: float | None = None,
        tags: Sequence[str] = (),
        request_id: str = "",
    ) -> RunInfo:
        """Submit ``suite`` to run against ``agent`` (empty: the suite's own), ``k`` trials per case
        (None: each case's or the suite's own). Returns at once; :meth:`wait` follows the run.

        ``seed`` fixes the trials' random generators (0 picks one), ``tags`` keeps only the cases
        with one of them, and ``request_id`` makes the submission idempotent."""
        request = runner_pb2.SubmitRunRequest(
            suite=pb.suite_to_pb(suite),
            agent=agent,
            k=k or 0,
            agent_version=agent_version,
            concurrency=concurrency,
            seed=seed,
            timeout_s=timeout_s or 0.0,
            tags=list(tags),
            request_id=request_id,
        )
        return pb.run_from_pb((await self._call(self._stubs.runs.SubmitRun(request))).run)

    async def get_run(self, run_id: str) -> RunInfo:
        """A run's state and, once it has ended, its summary."""
        resp = await self._call(self._stubs.runs.GetRun(runner_pb2.GetRunRequest(run_id=run_id)))
        return pb.run_from_pb(resp.run)

    async def list_runs(
        self, *, suite: str | None = None, agent_version: str | None = None, limit: int = 50
    ) -> list[RunInfo]:
        """Runs, newest first, optionally of one suite or agent version."""
        request = runner_pb2.ListRunsRequest(
            suite=suite or "", agent_version=agent_version or "", limit=limit
        )
        resp = await self._call(self._stubs.runs.ListRuns(request))
        return [pb.run_from_pb(r) for r in resp.runs]

    async def submit_stored(
        self,
        suite_ref: str,
        agent: str = "",
        k: int | None = None,
        *,
        agent_version: str = "",
        concurrency: int = 0,
        seed: int = 0,
        timeout_s: float | None = None,
        tags: Sequence[str] = (),
        request_id: str = "",
    ) -> RunInfo:
        """Run a stored suite: ``NAME`` (its current version) or ``NAME@VERSION``."""
        request = runner_pb2.SubmitRunRequest(
            suite_ref=suite_ref,
            agent=agent,
            k=k or 0,
            agent_version=agent_version,
            concurrency=concurrency,
            seed=seed,
            timeout_s=timeout_s or 0.0,
            tags=list(tags),
            request_id=request_id,
        )
        return pb.run_from_pb((await self._call(self._stubs.runs.SubmitRun(request))).run)

    async def cancel_run(self, run_id: str, timeout_s: float | None = None) -> RunInfo:
        """Cancel a run: trials not yet started are skipped; the run then completes."""
        request = runner_pb2.CancelRunRequest(run_id=run_id)
        resp = await self._call(self._stubs.runs.CancelRun(request, timeout=timeout_s))
        return pb.run_from_pb(resp.run)

    async def compare(
        self, baseline: str, candidate: str, *, threshold: float | None = None, alpha: float | None = None
    ) -> dict[str, Any]:
        """Compare a candidate with a baseline (each a run id, or an agent version label: its
        newest run of the suite): the comparison document (``agenteval.v1.Comparison`` field for
        field: per-case verdicts and p-values, the suite test, new errors, reasons, passed),
        the input of ``agenteval.reports.comparison_report``."""
        request = runner_pb2.CompareRunsRequest(baseline=baseline, candidate=candidate)
        if threshold is not None:
            request.threshold = threshold
        if alpha is not None:
            request.alpha = alpha
        resp = await self._call(self._stubs.runs.CompareRuns(request))
        return pb.comparison_from_pb(resp.comparison)

    async def wait(self, run_id: str, *, timeout_s: float | None = None, poll_s: float = 0.2) -> RunInfo:
        """The run once it has ended (completed, cancelled or failed); TimeoutError after
        ``timeout_s`` seconds (None: no limit)."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            run = await self.get_run(run_id)
            if run.ended:
                return run
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"run {run_id} is still {run.status} after {timeout_s:g}s")
            await asyncio.sleep(poll_s)

    async def summary(self, run_id: str) -> RunSummary | None:
        """A run's statistics once it has ended; None before."""
        return (await self.get_run(run_id)).summary

    async def watch(
        self, run_id: str, after: int = 0, *, reconnect_s: float = RECONNECT_S
    ) -> AsyncIterator[runner_pb2.WatchRunResponse]:
        """The run's result stream from after ``after`` until the run ends: submitted, batches
        of graded trials with the run's progress, then completed with the summary (or failed).

        A dropped connection or a restarting server (for up to ``reconnect_s``) is followed
        by a new WatchRun that resumes after the last message received: nothing is missed
        and nothing comes twice."""
        request = runner_pb2.WatchRunRequest(run_id=run_id, after=after)
        async for ev in self._resuming(self._stubs.runs.WatchRun, request, reconnect_s):
            yield ev

    async def watch_runs(
        self,
        suite: str = "",
        agent_version: str = "",
        project: str = "",
        after: int = 0,
        *,
        reconnect_s: float = RECONNECT_S,
    ) -> AsyncIterator[runner_pb2.WatchRunResponse]:
        """Results of every run matching the filter, from now on (or after ``after``); never ends."""
        request = runner_pb2.WatchRunsRequest(
            suite=suite, agent_version=agent_version, project=project, after=after
        )
        async for ev in self._resuming(self._stubs.runs.WatchRuns, request, reconnect_s):
            yield ev
