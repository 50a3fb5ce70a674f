"""RunService over gRPC: a thin servicer over RunnerService."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from agenteval.contracts import pb
from agenteval.contracts.errors import InvalidArgument
from agenteval.contracts.events import RunCompleted
from agenteval.contracts.pb import summary_to_pb
from agenteval.runner.repository import RunRecord
from agenteval.runner.service import RunnerService, SubmitRunInput
from agenteval.v1 import runner_pb2, runner_pb2_grpc

# (subjects) -> async context manager yielding a queue of (subject, payload dict)
Watcher = Callable[[list[str]], AbstractAsyncContextManager[asyncio.Queue[tuple[str, dict[str, Any]]]]]


def run_to_pb(rec: RunRecord) -> runner_pb2.Run:
    return pb.run_to_pb(rec.info())


class RunServicer(runner_pb2_grpc.RunServiceServicer):
    def __init__(self, service: RunnerService, watch: Watcher) -> None:
        self.service = service
        self.watch = watch

    async def SubmitRun(
        self, request: runner_pb2.SubmitRunRequest, context: Any
    ) -> runner_pb2.SubmitRunResponse:
        if not request.HasField("suite"):
            raise InvalidArgument("suite is not set")
        suite = pb.suite_from_pb(request.suite)
        rec = await self.service.submit(
            SubmitRunInput(
                suite=suite,
                agent=request.agent,
                k=request.k or None,
                agent_version=request.agent_version,
                concurrency=request.concurrency,
                seed=request.seed,
                timeout_s=request.timeout_s or None,
                tags=list(request.tags),
                request_id=request.request_id,
            )
        )
        return runner_pb2.SubmitRunResponse(run=run_to_pb(rec))

    async def GetRun(self, request: runner_pb2.GetRunRequest, context: Any) -> runner_pb2.GetRunResponse:
        return runner_pb2.GetRunResponse(run=run_to_pb(await self.service.get(request.run_id)))

    async def ListRuns(
        self, request: runner_pb2.ListRunsRequest, context: Any
    ) -> runner_pb2.ListRunsResponse:
        recs = await self.service.repo.list(
            request.suite or None, request.agent_version or None, request.limit or 50
        )
        return runner_pb2.ListRunsResponse(runs=[run_to_pb(r) for r in recs])

    async def CancelRun(
        self, request: runner_pb2.CancelRunRequest, context: Any
    ) -> runner_pb2.CancelRunResponse:
        return runner_pb2.CancelRunResponse(run=run_to_pb(await self.service.cancel(request.run_id)))

    async def WatchRun(
        self, request: runner_pb2.WatchRunRequest, context: Any
    ) -> AsyncIterator[runner_pb2.WatchRunResponse]:
        subjects = self.service.subjects
        wanted = [subjects.run_progressed, subjects.run_completed, subjects.run_cancelled]
        # Subscribe before reading the state, so no event falls between the two.
        async with self.watch(wanted) as events:
            rec = await self.service.get(request.run_id)
            yield self._snapshot(rec)
            if rec.status in ("completed", "failed") or (
                rec.status == "cancelled" and rec.summary is not None
            ):
                return
            while True:
                try:
                    subject, payload = await asyncio.wait_for(events.get(), timeout=5.0)
                except TimeoutError:
                    # Nothing heard for a while: the stored state is the truth (covers a missed event).
                    rec = await self.service.get(request.run_id)
                    if rec.status in ("completed", "failed"):
                        yield self._snapshot(rec)
                        return
                    continue
                if payload.get("run_id") != request.run_id:
                    continue
                if subject == subjects.run_progressed:
                    yield runner_pb2.WatchRunResponse(
                        type=runner_pb2.RUN_EVENT_TYPE_PROGRESS,
                        run_id=request.run_id,
                        trials_total=payload["trials_total"],
                        trials_graded=payload["trials_graded"],
                        trials_completed=payload["trials_graded"],
                        passes=payload["passes"],
                    )
                elif subject == subjects.run_completed:
                    done = RunCompleted.model_validate(payload)
                    # Record it before the stream ends, so a GetRun right after sees it.
                    (summary,) = await self.service.on_completed([done])
                    yield runner_pb2.WatchRunResponse(
                        type=runner_pb2.RUN_EVENT_TYPE_COMPLETED,
                        run_id=request.run_id,
                        trials_total=summary.trials,
                        trials_graded=summary.trials,
                        trials_completed=summary.trials,
                        passes=summary.passes,
                        summary=summary_to_pb(summary),
                    )
                    return
                elif subject == subjects.run_cancelled:
                    yield runner_pb2.WatchRunResponse(
                        type=runner_pb2.RUN_EVENT_TYPE_CANCELLED, run_id=request.run_id
                    )

    def _snapshot(self, rec: RunRecord) -> runner_pb2.WatchRunResponse:
        kind = {
            "completed": runner_pb2.RUN_EVENT_TYPE_COMPLETED,
            "cancelled": runner_pb2.RUN_EVENT_TYPE_CANCELLED,
        }.get(rec.status, runner_pb2.RUN_EVENT_TYPE_SUBMITTED)
        msg = runner_pb2.WatchRunResponse(
            type=kind,
            run_id=rec.run_id,
            trials_total=rec.trials_total,
            trials_graded=rec.trials_graded,
            trials_completed=rec.trials_graded,
            passes=rec.passes,
        )
        if rec.summary is not None:
            msg.summary.CopyFrom(summary_to_pb(rec.summary))
        return msg

    async def CompareRuns(
        self, request: runner_pb2.CompareRunsRequest, context: Any
    ) -> runner_pb2.CompareRunsResponse:
        from agenteval.runner.compare import compare

        result = await compare(
            self.service,
            request.baseline,
            request.candidate,
            threshold=request.threshold if request.HasField("threshold") else 0.05,
            alpha=request.alpha if request.HasField("alpha") and request.alpha > 0 else 0.05,
        )
        return runner_pb2.CompareRunsResponse(
            comparison_json=json.dumps(result.document),
            passed=result.passed,
            baseline_run_id=result.baseline_run_id,
            candidate_run_id=result.candidate_run_id,
        )
