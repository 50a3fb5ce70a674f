"""The eval-generator's wiring."""

from __future__ import annotations

from pathlib import Path

from faststream.nats import NatsBroker

from agenteval.eval_generator.generation.jobs import JobManager, JobSettings
from agenteval.eval_generator.grpc_api import EvalGeneratorServicer
from agenteval.eval_generator.repository import EvalRepository, JobRepository
from agenteval.eval_generator.service import EvalGenerator
from agenteval.eval_generator.settings import EvalGeneratorSettings
from agenteval.runtime.grpc_server import GrpcServer
from agenteval.runtime.host import ServiceHost
from agenteval.runtime.settings import CommonSettings
from agenteval.storage import create_engine, upgrade
from agenteval.v1 import eval_generator_pb2, eval_generator_pb2_grpc

MIGRATIONS = Path(__file__).parent / "migrations"


class EvalGeneratorComponent:
    name = "eval_generator"

    def __init__(self, common: CommonSettings, settings: EvalGeneratorSettings | None = None) -> None:
        self.common = common
        self.settings = settings or EvalGeneratorSettings()
        self.engine = create_engine(common.database_for("evals", self.settings.database_url))
        self.repo = EvalRepository(self.engine)
        self._targets = (self.settings.transcripts_addr or "", self.settings.grader_addr or "")
        self._generator: EvalGenerator | None = None
        self.jobs = JobManager(
            JobRepository(self.engine),
            self.generator,
            JobSettings(
                max_running=self.settings.jobs_max_running,
                poll_interval_s=self.settings.job_poll_interval_s,
                lease_s=self.settings.job_lease_s,
            ),
        )

    async def prepare(self) -> None:
        await upgrade(self.engine, "eval_generator", MIGRATIONS)

    def register_handlers(self, broker: NatsBroker) -> None:
        pass

    def register_grpc(self, server: GrpcServer) -> None:
        server.add(
            eval_generator_pb2_grpc.add_EvalGeneratorServiceServicer_to_server,
            EvalGeneratorServicer(self.repo, self.jobs),
            [eval_generator_pb2.DESCRIPTOR.services_by_name["EvalGeneratorService"].full_name],
        )

    async def started(self, host: ServiceHost) -> None:
        # Embedded: every service answers on this host's address; alone: the configured ones.
        self._targets = (
            self.settings.transcripts_addr or host.target,
            self.settings.grader_addr or host.target,
        )
        # Queued jobs, and those a stopped or dead instance left, run from now on.
        await self.jobs.start()

    async def stopping(self) -> None:
        """Before the gRPC server stops: running jobs go back to the queue while the services
        they call (the grader, in embedded mode this very server) still answer."""
        await self.jobs.stop()

    def generator(self) -> EvalGenerator:
        if self._generator is None:
            from agenteval.eval_generator.generation.backends import GrpcBackends

            self._generator = EvalGenerator(self.repo, GrpcBackends(*self._targets, common=self.common))
        return self._generator

    async def close(self) -> None:
        await self.jobs.stop()
        await self.engine.dispose()
