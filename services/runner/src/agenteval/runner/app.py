"""The runner's wiring: storage, bus handlers, RunService."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, Sequence
from pathlib import Path

import grpc
from faststream.nats import NatsBroker

from agenteval.contracts.errors import InvalidArgument, NotFound, Unavailable
from agenteval.contracts.events import Event
from agenteval.runner import handlers
from agenteval.runner.grpc_api import RunServicer
from agenteval.runner.repository import RunRepository
from agenteval.runner.service import RunnerService, StoredSuite
from agenteval.runner.settings import RunnerSettings
from agenteval.runtime.auth import PROJECT_HEADER
from agenteval.runtime.bus import connection_of, publish_many
from agenteval.runtime.grpc_server import GrpcServer
from agenteval.runtime.host import ServiceHost
from agenteval.runtime.results import Reported, read_reports
from agenteval.runtime.run_windows import RunWindows
from agenteval.runtime.settings import CommonSettings
from agenteval.runtime.transcript_bucket import TranscriptBucket
from agenteval.storage import create_engine, upgrade
from agenteval.suites import loads_suite
from agenteval.v1 import (
    eval_generator_pb2,
    eval_generator_pb2_grpc,
    runner_pb2,
    runner_pb2_grpc,
    suites_pb2,
    suites_pb2_grpc,
)

MIGRATIONS = Path(__file__).parent / "migrations"
log = logging.getLogger("agenteval.runner")


class SavedEvalCheck:
    """Whether a saved eval exists, asked of the eval generator (GetEval) when a run is submitted."""

    def __init__(self, target: str, timeout_s: float, common: CommonSettings) -> None:
        self.channel = common.channel(target)
        self.stub = eval_generator_pb2_grpc.EvalGeneratorServiceStub(self.channel)
        self.timeout_s = timeout_s

    async def __call__(self, name: str, version: int, project: str) -> None:
        request = eval_generator_pb2.GetEvalRequest(name=name, version=version)
        try:
            await self.stub.GetEval(request, timeout=self.timeout_s, metadata=((PROJECT_HEADER, project),))
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.NOT_FOUND:
                raise NotFound(exc.details() or f"no saved eval {name!r}") from None
            raise

    async def close(self) -> None:
        await self.channel.close()


class StoredSuites:
    """Stored suite versions, asked of the suite store (GetSuite) when a run names one."""

    def __init__(self, target: str, timeout_s: float, common: CommonSettings) -> None:
        self.target = target
        self.channel = common.channel(target)
        self.stub = suites_pb2_grpc.SuiteServiceStub(self.channel)
        self.timeout_s = timeout_s

    async def __call__(self, name: str, version: str, project: str) -> StoredSuite:
        request = suites_pb2.GetSuiteRequest(name=name, version=version)
        try:
            found = (
                await self.stub.GetSuite(
                    request, timeout=self.timeout_s, metadata=((PROJECT_HEADER, project),)
                )
            ).version
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.NOT_FOUND:
                raise NotFound(exc.details() or f"no stored suite {name!r}") from None
            if exc.code() == grpc.StatusCode.INVALID_ARGUMENT:
                raise InvalidArgument(f"suite_ref: {exc.details()}") from None
            raise Unavailable(
                f"could not get suite {name!r} from the suite store at {self.target}: {exc.details() or exc.code()}"
            ) from None
        suite = loads_suite(found.suite_yaml, f"stored suite {found.name}@{found.version}")
        return StoredSuite(suite=suite, digest=found.digest, version=found.version)

    async def close(self) -> None:
        await self.channel.close()


class RunnerComponent:
    name = "runner"
    saved_evals: SavedEvalCheck | None = None
    _watchdog: asyncio.Task[None] | None = None
    stored_suites: StoredSuites | None = None

    def __init__(self, common: CommonSettings, settings: RunnerSettings | None = None) -> None:
        self.common = common
        self.settings = settings or RunnerSettings()
        self.engine = create_engine(common.database_for("runner", self.settings.database_url))
        self.broker: NatsBroker | None = None
        self.service = RunnerService(
            RunRepository(self.engine),
            self.settings,
            common.subjects,
            self._publish,
            TranscriptBucket(lambda: connection_of(self.broker), common.subjects, common.bus_replicas),
            RunWindows(lambda: connection_of(self.broker), common.subjects, common.bus_replicas),
        )
        from agenteval.runner.agents import load_registered_agents
        from agenteval.runner.webhooks import Webhooks, load_webhooks

        try:
            if self.settings.agents_file:
                self.service.registered_agents = load_registered_agents(self.settings.agents_file)
            targets = load_webhooks(self.settings.webhooks_file) if self.settings.webhooks_file else []
        except ValueError as exc:  # a config file is checked at start-up: one line, no traceback
            raise InvalidArgument(str(exc)) from None
        self.service.webhooks = Webhooks(
            targets, self.engine, self.settings.webhook_attempts, self.settings.webhook_first_wait_s
        )

    async def _publish(self, subject: str, events: Sequence[Event]) -> None:
        assert self.broker is not None, "runner is not started"
        await publish_many(self.broker, subject, events, self.common.subjects)

    def _reports(self, subject: str, start_seq: int, new_only: bool) -> AsyncGenerator[Reported | None, None]:
        return read_reports(
            connection_of(self.broker), self.common.subjects, subject, start_seq=start_seq, new_only=new_only
        )

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
            RunServicer(self.service, self._reports),
            [runner_pb2.DESCRIPTOR.services_by_name["RunService"].full_name],
        )

    async def started(self, host: ServiceHost) -> None:
        if self.settings.agent_modules is None and not _loopback(host.grpc.address):
            # Reachable from other hosts: a python: spec would run any code here. Say so once.
            self.service.agent_modules, self.service.agent_paths = "", self.settings.agent_paths
            log.warning(
                "runner listens on %s: python: agents are refused until AGENTEVAL_RUNNER_AGENT_MODULES "
                "names the modules callers may run",
                host.grpc.address,
            )
        target = self.settings.evalgen_addr or host.target
        self.saved_evals = SavedEvalCheck(target, self.settings.evalgen_timeout_s, self.common)
        self.service.saved_evals = self.saved_evals
        self.stored_suites = StoredSuites(
            self.settings.suites_addr or host.target, self.settings.suites_timeout_s, self.common
        )
        self.service.stored_suites = self.stored_suites
        self._watchdog = asyncio.create_task(self._watch_runs(), name="runner watchdog")

    async def _watch_runs(self) -> None:
        while True:
            await asyncio.sleep(self.settings.watchdog_interval_s)
            try:
                await self.service.watchdog(time.monotonic())
            except Exception:
                log.exception("watchdog pass failed; next one in %gs", self.settings.watchdog_interval_s)

    async def close(self) -> None:
        if self.service.webhooks is not None:
            await self.service.webhooks.close()
        if self._watchdog is not None:
            self._watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watchdog
        await self.service.close()
        if self.saved_evals is not None:
            await self.saved_evals.close()
        if self.stored_suites is not None:
            await self.stored_suites.close()
        await self.engine.dispose()


def _loopback(address: str) -> bool:
    host = address.rsplit(":", 1)[0].strip("[]")
    return host in ("127.0.0.1", "localhost", "::1") or host.startswith("127.")
