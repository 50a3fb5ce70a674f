"""A small async client over the gRPC contracts, used by the CLI, tests and scripts."""

from __future__ import annotations

import os
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

    async def watch(self, run_id: str) -> AsyncIterator[runner_pb2.WatchRunResponse]:
        async for ev in self.runs.WatchRun(runner_pb2.WatchRunRequest(run_id=run_id)):
            yield ev

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
