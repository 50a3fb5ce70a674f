"""The suite store's wiring: storage and SuiteService. It has no bus handlers: suites change
only through its gRPC API, and the runner asks it for the version a run names."""

from __future__ import annotations

from pathlib import Path

from faststream.nats import NatsBroker

from agenteval.runtime.grpc_server import GrpcServer
from agenteval.runtime.host import ServiceHost
from agenteval.runtime.settings import CommonSettings
from agenteval.storage import create_engine, upgrade
from agenteval.suite_store.grpc_api import SuiteServicer
from agenteval.suite_store.repository import SuiteRepository
from agenteval.suite_store.service import SuiteStore
from agenteval.suite_store.settings import SuiteStoreSettings
from agenteval.v1 import suites_pb2, suites_pb2_grpc

MIGRATIONS = Path(__file__).parent / "migrations"


class SuiteStoreComponent:
    name = "suite_store"

    def __init__(self, common: CommonSettings, settings: SuiteStoreSettings | None = None) -> None:
        self.common = common
        self.settings = settings or SuiteStoreSettings()
        self.engine = create_engine(common.database_for("suites", self.settings.database_url))
        self.store = SuiteStore(SuiteRepository(self.engine), self.settings)

    async def prepare(self) -> None:
        await upgrade(self.engine, "suite_store", MIGRATIONS)

    def register_handlers(self, broker: NatsBroker) -> None:
        pass

    def register_grpc(self, server: GrpcServer) -> None:
        server.add(
            suites_pb2_grpc.add_SuiteServiceServicer_to_server,
            SuiteServicer(self.store),
            [suites_pb2.DESCRIPTOR.services_by_name["SuiteService"].full_name],
        )

    async def started(self, host: ServiceHost) -> None:
        pass

    async def close(self) -> None:
        await self.engine.dispose()
