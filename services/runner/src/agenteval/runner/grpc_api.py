"""RunService over gRPC: a thin servicer over RunnerService."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

from agenteval.contracts import pb
from agenteval.contracts.errors import InvalidArgument, PermissionDenied
from agenteval.contracts.events import RunCompleted
from agenteval.contracts.pb import reported_to_pb, summary_to_pb
from agenteval.runner.repository import RunRecord
from agenteval.runner.service import RunnerService, SubmitRunInput
from agenteval.runtime import auth
from agenteval.runtime.results import Reported
from agenteval.v1 import runner_pb2, runner_pb2_grpc

# (subject filter, start sequence, new only) -> the result-stream messages on it, None when idle
ReportReader = Callable[[str, int, bool], AsyncGenerator[Reported | None, None]]
_TERMINAL = ("completed", "failed")


def run_to_pb(rec: RunRecord) -> runner_pb2.Run:
    return pb.run_to_pb(rec.info())


class RunServicer(runner_pb2_grpc.RunServiceServicer):
    def __init__(self, service: RunnerService, results: ReportReader) -> None:
        self.service = service
        self.results = results

    async def SubmitRun(
        self, request: runner_pb2.SubmitRunRequest, context: Any
    ) -> runner_pb2.SubmitRunResponse:
        suite = None
        if request.HasField("suite"):
            suite = pb.suite_from_pb(request.suite)
        elif not request.suite_ref:
            raise InvalidArgument("give a suite, or suite_ref naming a stored one")
        rec = await self.service.submit(
            SubmitRunInput(
                suite=suite,
                suite_ref=request.suite_ref,
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
        version = request.suite_version.strip().lower()
        if version and not (7 <= len(version) <= 64 and all(c in "0123456789abcdef" for c in version)):
            raise InvalidArgument(
                f"suite_version: {request.suite_version[:70]!r} is not a version digest (7 to 64 hex digits)"
            )
        recs = await self.service.repo.list(
            request.suite or None,
            request.agent_version or None,
            request.limit or 50,
            suite_version=version or None,
            projects=auth.current().visible,
        )
        return runner_pb2.ListRunsResponse(runs=[run_to_pb(r) for r in recs])

    async def CancelRun(
        self, request: runner_pb2.CancelRunRequest, context: Any
    ) -> runner_pb2.CancelRunResponse:
        return runner_pb2.CancelRunResponse(run=run_to_pb(await self.service.cancel(request.run_id)))

    async def WatchRun(
        self, request: runner_pb2.WatchRunRequest, context: Any
    ) -> AsyncIterator[runner_pb2.WatchRunResponse]:
        rec = await self.service.get(request.run_id)
        after = request.after
        seen: set[str] = set()
        reports = self.results(self.service.subjects.run_reported_filter(run_id=rec.run_id), 0, False)
        try:
            async for item in reports:
                if item is None:  # nothing for a while: the stored state is the truth
                    rec = await self.service.get(rec.run_id)
                    if rec.status in ("completed", "failed"):
                        # Its end is not on the stream (older than the stream's retention).
                        yield self._snapshot(rec)
                        return
                    continue
                ev = item.event
                fresh = [t for t in ev.trials if t.trial_id not in seen]
                seen.update(t.trial_id for t in fresh)
                if item.seq <= after:  # the subscriber has it: only remember what it saw
                    if ev.kind in _TERMINAL:
                        return
                    continue
                if ev.kind == "trials" and not fresh:
                    continue  # a batch reported again after a redelivery
                if ev.kind == "completed" and ev.summary is not None:
                    # Record it before the stream ends, so a GetRun right after sees it.
                    await self.service.on_completed(
                        [
                            RunCompleted(
                                event_id=f"run.completed:{ev.run_id}", run_id=ev.run_id, summary=ev.summary
                            )
                        ]
                    )
                yield reported_to_pb(item.seq, ev, fresh)
                if ev.kind in _TERMINAL:
                    return
        finally:
            await reports.aclose()

    async def WatchRuns(
        self, request: runner_pb2.WatchRunsRequest, context: Any
    ) -> AsyncIterator[runner_pb2.WatchRunResponse]:
        caller = auth.current()
        if request.project and not caller.sees(request.project):
            raise PermissionDenied(f"this token may not use project {request.project!r}")
        visible = frozenset({request.project}) if request.project else caller.visible
        subject = self.service.subjects.run_reported_filter(
            project=request.project or None,
            suite=request.suite or None,
            agent_version=request.agent_version or None,
        )
        start = request.after + 1 if request.after else 0
        seen: dict[str, set[str]] = {}
        reports = self.results(subject, start, True)
        try:
            async for item in reports:
                if item is None:
                    continue
                ev = item.event
                if visible is not None and (ev.project or "default") not in visible:
                    continue
                run_seen = seen.setdefault(ev.run_id, set())
                fresh = [t for t in ev.trials if t.trial_id not in run_seen]
                run_seen.update(t.trial_id for t in fresh)
                if ev.kind == "trials" and not fresh:
                    continue
                if ev.kind in _TERMINAL:
                    seen.pop(ev.run_id, None)
                yield reported_to_pb(item.seq, ev, fresh)
        finally:
            await reports.aclose()

    def _snapshot(self, rec: RunRecord) -> runner_pb2.WatchRunResponse:
        kind = {
            "completed": runner_pb2.RUN_EVENT_TYPE_COMPLETED,
            "cancelled": runner_pb2.RUN_EVENT_TYPE_CANCELLED,
            "failed": runner_pb2.RUN_EVENT_TYPE_FAILED,
        }.get(rec.status, runner_pb2.RUN_EVENT_TYPE_SUBMITTED)
        msg = runner_pb2.WatchRunResponse(
            type=kind,
            run_id=rec.run_id,
            trials_total=rec.trials_total,
            trials_graded=rec.trials_graded,
            trials_completed=rec.trials_graded,
            passes=rec.passes,
            suite=rec.suite,
            agent_version=rec.agent_version,
            project=rec.project,
            reason=rec.error or "",
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
            comparison=pb.comparison_to_pb(result.document),
            passed=result.passed,
            baseline_run_id=result.baseline_run_id,
            candidate_run_id=result.candidate_run_id,
        )

    async def ListWebhookDeliveries(
        self, request: runner_pb2.ListWebhookDeliveriesRequest, context: Any
    ) -> runner_pb2.ListWebhookDeliveriesResponse:
        if request.run_id:
            request.run_id = (await self.service.get(request.run_id)).run_id  # the caller's run
        else:
            auth.current().require_admin("listing every run's webhook deliveries (give a run)")
        hooks = self.service.webhooks
        rows = await hooks.deliveries(request.run_id, request.limit) if hooks is not None else []
        return runner_pb2.ListWebhookDeliveriesResponse(
            deliveries=[
                runner_pb2.WebhookDelivery(
                    delivery_id=r["delivery_id"],
                    event=r["event"],
                    url=r["url"],
                    run_id=r["run_id"],
                    attempts=r["attempts"],
                    status=r["status"],
                    last_status_code=r["last_status_code"],
                    last_error=r["last_error"],
                    created_at=r["created_at"].isoformat(),
                    updated_at=r["updated_at"].isoformat(),
                )
                for r in rows
            ]
        )
