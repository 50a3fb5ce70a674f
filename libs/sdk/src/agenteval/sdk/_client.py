"""A small async client over the gRPC contracts, used by the CLI, tests and scripts."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc

from agenteval.contracts.pb import summary_from_pb
from agenteval.contracts.suite import Suite
from agenteval.contracts.summary import RunSummary
from agenteval.contracts.transport import channel
from agenteval.v1 import (
    eval_generator_pb2_grpc,
    grader_pb2_grpc,
    metrics_pb2_grpc,
    runner_pb2,
    runner_pb2_grpc,
    suites_pb2,
    suites_pb2_grpc,
    transcripts_pb2,
    transcripts_pb2_grpc,
)

RECONNECT_S = 120.0
"""How long a watch keeps trying to reconnect to a server that went away."""
RECONNECT_PAUSE_S = 0.5


def _transient(exc: grpc.aio.AioRpcError) -> bool:
    """A connection that broke or a server that is restarting, not an answer."""
    if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED):
        return True
    details = (exc.details() or "").lower()
    return exc.code() in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL) and (
        "stream removed" in details or "rst_stream" in details or "goaway" in details
    )


class Client:
    """Stubs of every service. One address serves all in embedded mode; in a distributed
    deployment each service's address comes from ``AGENTEVAL_<SERVICE>_ADDR`` when set."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._channels: dict[str, grpc.aio.Channel] = {}
        self.runs = runner_pb2_grpc.RunServiceStub(self._channel("RUNNER"))
        self.transcripts = transcripts_pb2_grpc.TranscriptServiceStub(self._channel("TRANSCRIPTS"))
        self.grader = grader_pb2_grpc.GraderServiceStub(self._channel("GRADER"))
        self.metrics = metrics_pb2_grpc.MetricsServiceStub(self._channel("METRICS"))
        self.evals = eval_generator_pb2_grpc.EvalGeneratorServiceStub(self._channel("EVALGEN"))
        self.suites = suites_pb2_grpc.SuiteServiceStub(self._channel("SUITES"))

    def _channel(self, service: str) -> grpc.aio.Channel:
        target = os.environ.get(f"AGENTEVAL_{service}_ADDR") or self.target
        if target not in self._channels:
            self._channels[target] = channel(target)
        return self._channels[target]

    async def close(self) -> None:
        for ch in self._channels.values():
            await ch.close()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def submit(self, suite: Suite, agent: str = "", k: int | None = None, **kw: Any) -> runner_pb2.Run:
        req = runner_pb2.SubmitRunRequest(suite_json=suite.model_dump_json(), agent=agent, k=k or 0, **kw)
        return (await self.runs.SubmitRun(req)).run

    async def submit_stored(
        self, suite_ref: str, agent: str = "", k: int | None = None, **kw: Any
    ) -> runner_pb2.Run:
        """Run a stored suite: ``NAME`` (its current version) or ``NAME@VERSION``."""
        req = runner_pb2.SubmitRunRequest(suite_ref=suite_ref, agent=agent, k=k or 0, **kw)
        return (await self.runs.SubmitRun(req)).run

    async def push_suite(self, suite: Suite, expected_version: int = 0) -> suites_pb2.UpdateSuiteResponse:
        """Store ``suite`` (created when new); the same content again is the same version."""
        req = suites_pb2.UpdateSuiteRequest(
            name=suite.name,
            suite_yaml=suite.model_dump_json(),  # JSON is YAML too, and much faster to read
            expected_version=expected_version,
            allow_missing=True,
        )
        return await self.suites.UpdateSuite(req)

    async def get_suite(self, name: str, version: str = "") -> suites_pb2.SuiteVersion:
        """A stored suite's version (the current one by default), with its YAML."""
        return (await self.suites.GetSuite(suites_pb2.GetSuiteRequest(name=name, version=version))).version

    async def watch(
        self, run_id: str, after: int = 0, *, reconnect_s: float = RECONNECT_S
    ) -> AsyncIterator[runner_pb2.WatchRunResponse]:
        """The run's result stream from after ``after`` until the run ends.

        A dropped connection or a restarting server (for up to ``reconnect_s``) is followed
        by a new WatchRun that resumes after the last message received: nothing is missed
        and nothing comes twice."""
        request = runner_pb2.WatchRunRequest(run_id=run_id, after=after)
        async for ev in self._resuming(self.runs.WatchRun, request, reconnect_s):
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
        async for ev in self._resuming(self.runs.WatchRuns, request, reconnect_s):
            yield ev

    async def _resuming(
        self, rpc: Any, request: Any, reconnect_s: float
    ) -> AsyncIterator[runner_pb2.WatchRunResponse]:
        deadline: float | None = None
        while True:
            try:
                async for ev in rpc(request):
                    deadline = None
                    if ev.seq:
                        request.after = ev.seq
                    yield ev
                return
            except grpc.aio.AioRpcError as exc:
                if not _transient(exc):
                    raise
                now = time.monotonic()
                deadline = deadline or now + reconnect_s
                if now >= deadline:
                    raise
                await asyncio.sleep(RECONNECT_PAUSE_S)

    async def cancel_run(self, run_id: str, timeout_s: float | None = None) -> runner_pb2.Run:
        """Cancel a run: trials not yet started are skipped; the run then completes."""
        return (await self.runs.CancelRun(runner_pb2.CancelRunRequest(run_id=run_id), timeout=timeout_s)).run

    async def get_run(self, run_id: str) -> runner_pb2.Run:
        return (await self.runs.GetRun(runner_pb2.GetRunRequest(run_id=run_id))).run

    async def summary(self, run_id: str) -> RunSummary | None:
        run = await self.get_run(run_id)
        return summary_from_pb(run.summary) if run.HasField("summary") else None

    async def trials(
        self, run_id: str, case_id: str = "", summary_only: bool = False
    ) -> list[transcripts_pb2.Trial]:
        resp = await self.transcripts.ListTrials(
            transcripts_pb2.ListTrialsRequest(
                run_id=run_id, case_id=case_id, summary_only=summary_only, limit=10_000
            )
        )
        return list(resp.trials)
