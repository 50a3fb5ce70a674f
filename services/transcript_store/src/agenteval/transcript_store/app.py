"""The transcript-store's wiring."""

from __future__ import annotations

from pathlib import Path

from faststream.nats import NatsBroker

from agenteval.runtime.bus import connection_of
from agenteval.runtime.grpc_server import GrpcServer
from agenteval.runtime.host import ServiceHost
from agenteval.runtime.settings import CommonSettings
from agenteval.runtime.transcript_bucket import TranscriptBucket
from agenteval.storage import create_engine, upgrade
from agenteval.transcript_store import handlers
from agenteval.transcript_store.grpc_api import TranscriptServicer
from agenteval.transcript_store.repository import DatasetRepository, TranscriptRepository
from agenteval.transcript_store.service import TranscriptService
from agenteval.transcript_store.settings import TranscriptSettings
from agenteval.v1 import transcripts_pb2, transcripts_pb2_grpc

MIGRATIONS = Path(__file__).parent / "migrations"


class TranscriptStoreComponent:
    name = "transcript_store"

    def __init__(self, common: CommonSettings, settings: TranscriptSettings | None = None) -> None:
        self.common = common
        self.settings = settings or TranscriptSettings()
        self.engine = create_engine(common.database_for("transcripts", self.settings.database_url))
        self.service = TranscriptService(TranscriptRepository(self.engine), DatasetRepository(self.engine))

    async def prepare(self) -> None:
        await upgrade(self.engine, "transcript_store", MIGRATIONS)

    def register_handlers(self, broker: NatsBroker) -> None:
        transcripts = TranscriptBucket(
            lambda: connection_of(broker), self.common.subjects, self.common.bus_replicas
        )
        handlers.register(broker, self.service, self.common.subjects, self.settings.batch_size, transcripts)

    def register_grpc(self, server: GrpcServer) -> None:
        server.add(
            transcripts_pb2_grpc.add_TranscriptServiceServicer_to_server,
            TranscriptServicer(self.service),
            [transcripts_pb2.DESCRIPTOR.services_by_name["TranscriptService"].full_name],
        )

    async def started(self, host: ServiceHost) -> None:
        pass

    async def close(self) -> None:
        await self.engine.dispose()
