"""The grader's wiring: the sandbox pool, bus handlers, GraderService."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from faststream.nats import NatsBroker

from agenteval.contracts.events import TrialGraded
from agenteval.grader import handlers
from agenteval.grader.eval_code import EvalCodeTester
from agenteval.grader.grpc_api import GraderServicer
from agenteval.grader.service import GraderService
from agenteval.grader.settings import GraderSettings
from agenteval.runtime.bus import publish_many
from agenteval.runtime.grpc_server import GrpcServer
from agenteval.runtime.host import ServiceHost
from agenteval.runtime.settings import CommonSettings
from agenteval.v1 import grader_pb2, grader_pb2_grpc


class LazyPool:
    """The sandbox pool, started on first use: suites without eval functions never spawn workers."""

    def __init__(self, settings: GraderSettings) -> None:
        self.settings = settings
        self._pool: Any = None

    async def get(self) -> Any:
        if self._pool is None:
            from agenteval.sandbox import SandboxLimits, SandboxPool

            self._pool = SandboxPool(
                workers=self.settings.sandbox_workers,
                limits=SandboxLimits(timeout_s=self.settings.sandbox_timeout_s),
            )
            await self._pool.start()
        return self._pool

    async def run_batch(self, *args: Any, **kwargs: Any) -> Any:
        return await (await self.get()).run_batch(*args, **kwargs)

    async def run(self, *args: Any, **kwargs: Any) -> Any:
        return await (await self.get()).run(*args, **kwargs)

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()


class GraderComponent:
    name = "grader"

    def __init__(self, common: CommonSettings, settings: GraderSettings | None = None) -> None:
        self.common = common
        self.settings = settings or GraderSettings()
        self.pool = LazyPool(self.settings)
        self.service = GraderService({"sandbox": self.pool})
        self.tester = EvalCodeTester(self.pool)
        self.broker: NatsBroker | None = None

    async def _publish(self, subject: str, events: Sequence[TrialGraded]) -> None:
        assert self.broker is not None
        await publish_many(self.broker, subject, events, self.common.subjects)

    async def prepare(self) -> None:
        pass

    def register_handlers(self, broker: NatsBroker) -> None:
        self.broker = broker
        handlers.register(broker, self.service, self.common.subjects, self._publish, self.settings.batch_size)

    def register_grpc(self, server: GrpcServer) -> None:
        server.add(
            grader_pb2_grpc.add_GraderServiceServicer_to_server,
            GraderServicer(self.tester),
            [grader_pb2.DESCRIPTOR.services_by_name["GraderService"].full_name],
        )

    async def started(self, host: ServiceHost) -> None:
        pass

    async def close(self) -> None:
        await self.pool.close()
