"""The metrics service's wiring."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from faststream.nats import NatsBroker

from agenteval.contracts.events import Event
from agenteval.metrics import handlers
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


class MetricsComponent:
    name = "metrics"

    def __init__(self, common: CommonSettings, settings: MetricsSettings | None = None) -> None:
        self.common = common
        self.settings = settings or MetricsSettings()
        self.engine = create_engine(common.database_for("metrics", self.settings.database_url))
        self.broker: NatsBroker | None = None
        self.service = MetricsService(MetricsRepository(self.engine), common.subjects, self._publish)

    async def _publish(self, subject: str, events: Sequence[Event]) -> None:
        assert self.broker is not None
        await publish_many(self.broker, subject, events, self.common.subjects)

    async def prepare(self) -> None:
        await upgrade(self.engine, "metrics", MIGRATIONS)

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
        pass

    async def close(self) -> None:
        await self.engine.dispose()
