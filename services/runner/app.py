"""The runner's wiring: storage, bus handlers, RunService."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from faststream.nats import NatsBroker

from agenteval.contracts.events import Event
from agenteval.runner import handlers
from agenteval.runner.grpc_api import RunServicer
from agenteval.runner.repository import RunRepository
from agenteval.runner.service import RunnerService
from agenteval.runner.settings import RunnerSettings
from agenteval.runtime.bus import publish_many
from agenteval.runtime.grpc_server import GrpcServer
from agenteval.runtime.host import ServiceHost
from agenteval.runtime.settings import CommonSettings
from agenteval.runtime.watch import Watcher
from agenteval.storage import create_engine, upgrade
from agenteval.v1 import runner_pb2, runner_pb2_grpc

MIGRATIONS = Path(__file__).parent / "migrations"


class RunnerComponent:
    name = "runner"

    def __init__(self, common: CommonSettings, settings: RunnerSettings | None = None) -> None:
        self.common = common
        self.settings = settings or RunnerSettings()
        self.engine = create_engine(common.database_for("runner", self.settings.database_url))
        self.broker: NatsBroker | None = None
        self.watcher = Watcher(common.nats_url)
        self.service = RunnerService(
            RunRepository(self.engine), self.settings, common.subjects, self._publish
        )

    async def _publish(self, subject: str, events: Sequence[Event]) -> None:
        assert self.broker is not None, "runner is not started"
        await publish_many(self.broker, subject, events, self.common.subjects)

    async def prepare(self) -> None:
        await upgrade(self.engine, "runner", MIGRATIONS)
        self.service.cancelled |= await self.service.repo.cancelled_ids()

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
        pass

    async def close(self) -> None:
        await self.watcher.close()
        await self.engine.dispose()
