"""The metrics service's wiring."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence
from pathlib import Path

from faststream.nats import NatsBroker

from agenteval.contracts.events import Event
from agenteval.contracts.summary import RunSummary
from agenteval.metrics import handlers, instruments
from agenteval.metrics.grpc_api import MetricsServicer
from agenteval.metrics.repository import MetricsRepository
from agenteval.metrics.service import MetricsService
from agenteval.metrics.settings import MetricsSettings
from agenteval.runtime.bus import publish_many
from agenteval.runtime.grpc_server import GrpcServer
from agenteval.runtime.host import ServiceHost
from agenteval.runtime.settings import CommonSettings
from agenteval.storage import create_engine, upgrade
from agenteval.v1 import metrics_pb2, metrics_pb2_grpc

MIGRATIONS = Path(__file__).parent / "migrations"
RESTORED_RUNS = 200
"""Newest completed runs whose summaries set the gauges again at start-up."""
log = logging.getLogger("agenteval.metrics")


class MetricsComponent:
    name = "metrics"

    def __init__(self, common: CommonSettings, settings: MetricsSettings | None = None) -> None:
        self.common = common
        self.settings = settings or MetricsSettings()
        self.engine = create_engine(common.database_for("metrics", self.settings.database_url))
        self.broker: NatsBroker | None = None
        self.service = MetricsService(
            MetricsRepository(self.engine), common.subjects, self._publish, on_completed=self._export
        )
        self._transcripts_target = self.settings.transcripts_addr
        self._exports: set[asyncio.Task[None]] = set()

    async def _publish(self, subject: str, events: Sequence[Event]) -> None:
        assert self.broker is not None
        await publish_many(self.broker, subject, events, self.common.subjects)

    async def prepare(self) -> None:
        await upgrade(self.engine, "metrics", MIGRATIONS)
        instruments.MAX_VERSIONS = self.settings.max_versions_per_suite
        run_ids = await self.service.repo.latest_completed(RESTORED_RUNS)
        restored = instruments.restore([await self.service.summary(run_id) for run_id in run_ids])
        log.info("gauges restored from %d stored run summaries", restored)

    def register_handlers(self, broker: NatsBroker) -> None:
        self.broker = broker
        handlers.register(broker, self.service, self.settings.batch_size)

    def register_grpc(self, server: GrpcServer) -> None:
        server.add(
            metrics_pb2_grpc.add_MetricsServiceServicer_to_server,
            MetricsServicer(self.service),
            [metrics_pb2.DESCRIPTOR.services_by_name["MetricsService"].full_name],
        )

    async def started(self, host: ServiceHost) -> None:
        self._transcripts_target = self._transcripts_target or host.target

    async def _export(self, summary: RunSummary) -> None:
        """Log the run to MLflow in the background when MLFLOW_TRACKING_URI is set."""
        if not os.environ.get("MLFLOW_TRACKING_URI"):
            return
        task = asyncio.create_task(self._log_to_mlflow(summary))
        self._exports.add(task)
        task.add_done_callback(self._exports.discard)

    async def _log_to_mlflow(self, summary: RunSummary) -> None:
        from agenteval.metrics.mlflow_export import log_run

        transcripts: list[dict] = []
        total = summary.trials
        if self._transcripts_target and self.settings.mlflow_max_traces > 0:
            try:
                transcripts, total = await fetch_transcripts(
                    self._transcripts_target, summary.run_id, self.settings.mlflow_max_traces, self.common
                )
            except Exception:
                log.warning("could not fetch transcripts for MLflow", extra={"run_id": summary.run_id})
        await asyncio.to_thread(log_run, summary, transcripts, trials_total=max(total, summary.trials))

    async def close(self) -> None:
        if self._exports:
            await asyncio.wait(self._exports, timeout=30)
        await self.engine.dispose()


async def fetch_transcripts(
    target: str, run_id: str, limit: int, common: CommonSettings | None = None
) -> tuple[list[dict], int]:
    """Up to ``limit`` of the run's stored transcripts, and how many trials the run has.

    Each transcript is a trace dict with its case id and trial id (in ``metadata``), its
    ``trial_index``, its verdict (``passed``) and its graders' verdicts (``grades``).
    """
    from agenteval.contracts.pb import grades_from_pb, trace_from_pb
    from agenteval.runtime.grpc_server import channel
    from agenteval.v1 import transcripts_pb2, transcripts_pb2_grpc

    async with common.channel(target) if common is not None else channel(target) as ch:
        stub = transcripts_pb2_grpc.TranscriptServiceStub(ch)
        resp = await stub.ListTrials(transcripts_pb2.ListTrialsRequest(run_id=run_id, limit=limit))
    out = []
    for t in resp.trials:
        if t.HasField("trace"):
            doc = trace_from_pb(t.trace).to_eval_dict()
            doc["metadata"] = {**doc.get("metadata", {}), "case_id": t.case_id, "trial_id": t.trial_id}
            doc["trial_index"] = t.trial_index
            doc["passed"] = t.passed if t.HasField("passed") else None
            doc["grades"] = grades_from_pb(t.grades)
            out.append(doc)
    return out, max(resp.total, len(resp.trials))
