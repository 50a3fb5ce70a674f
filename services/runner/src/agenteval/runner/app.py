"""The runner's wiring: storage, bus handlers, RunService."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import grpc
from faststream.nats import NatsBroker

from agenteval.contracts.errors import NotFound
from agenteval.contracts.events import Event
from agenteval.runner import handlers
from agenteval.runner.grpc_api import RunServicer
from agenteval.runner.repository import RunRepository
from agenteval.runner.service import RunnerService
from agenteval.runner.settings import RunnerSettings
from agenteval.runtime.bus import connection_of, publish_many
from agenteval.runtime.grpc_server import GrpcServer, channel
from agenteval.runtime.host import ServiceHost
from agenteval.runtime.run_windows import RunWindows
from agenteval.runtime.settings import CommonSettings
from agenteval.runtime.transcript_bucket import TranscriptBucket
from agenteval.runtime.watch import Watcher
from agenteval.storage import create_engine, upgrade
from agenteval.v1 import eval_generator_pb2, eval_generator_pb2_grpc, runner_pb2, runner_pb2_grpc

MIGRATIONS = Path(__file__).parent / "migrations"


class SavedEvalCheck:
    """Whether a saved eval exists, asked of the eval generator (GetEval) when a run is submitted."""

    def __init__(self, target: str, timeout_s: float) -> None:
        self.channel = channel(target)
        self.stub = eval_generator_pb2_grpc.EvalGeneratorServiceStub(self.channel)
        self.timeout_s = timeout_s

    async def __call__(self, name: str, version: int) -> None:
        request = eval_generator_pb2.GetEvalRequest(name=name, version=version)
        try:
            await self.stub.GetEval(request, timeout=self.timeout_s)
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.NOT_FOUND:
                raise NotFound(exc.details() or f"no saved eval {name!r}") from None
            raise

    async def close(self) -> None:
        await self.channel.close()


class RunnerComponent:
    name = "runner"
    saved_evals: SavedEvalCheck | None = None

    def __init__(self, common: CommonSettings, settings: RunnerSettings | None = None) -> None:
        self.common = common
        self.settings = settings or RunnerSettings()
        self.engine = create_engine(common.database_for("runner", self.settings.database_url))
        self.broker: NatsBroker | None = None
        self.watcher = Watcher(common.nats_url)
        self.service = RunnerService(
            RunRepository(self.engine),
            self.settings,
            common.subjects,
            self._publish,
            TranscriptBucket(lambda: connection_of(self.broker), common.subjects),
            RunWindows(lambda: connection_of(self.broker), common.subjects),
        )

    async def _publish(self, subject: str, events: Sequence[Event]) -> None:
        assert self.broker is not None, "runner is not started"
        await publish_many(self.broker, subject, events, self.common.subjects)

    async def prepare(self) -> None:
        await upgrade(self.engine, "runner", MIGRATIONS)
        self.service.cancelled |= await self.service.repo.cancelled_ids()
        self.service.trials.start()  # agent workers start while the rest of the host does

    def register_handlers(self, broker: NatsBroker) -> None:
        self.broker = broker
        handlers.register(broker, self.service)

    def register_grpc(self, server: GrpcServer) -> None:
        server.add(
            runner_pb2_grpc.add_RunServiceServicer_to_server,
            RunServicer(self.service, self.watcher),
            [runner_pb2.DESCRIPTOR.services_by_name["RunService"].full_name],
        )

    async def started(self, host: ServiceHost) -> None:
        target = self.settings.evalgen_addr or host.target
        self.saved_evals = SavedEvalCheck(target, self.settings.evalgen_timeout_s)
        self.service.saved_evals = self.saved_evals

    async def close(self) -> None:
        await self.service.close()
        if self.saved_evals is not None:
            await self.saved_evals.close()
        await self.watcher.close()
        await self.engine.dispose()
