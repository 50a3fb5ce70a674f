"""Hosting services: one broker and one gRPC server for one or more service components.

A component is a service's wiring (its ``app.py`` builds one): it prepares storage,
registers its bus handlers and its gRPC servicers. Distributed mode hosts one component
per process; embedded mode hosts all five in one process over the same bus.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Sequence
from typing import Protocol

from faststream.nats import NatsBroker

from agenteval.runtime.bus import make_broker
from agenteval.runtime.grpc_server import GrpcServer
from agenteval.runtime.settings import CommonSettings

log = logging.getLogger("agenteval.host")


class Component(Protocol):
    """What each service's app.py provides."""

    name: str

    async def prepare(self) -> None:
        """Open storage and run migrations (before anything is served)."""

    def register_handlers(self, broker: NatsBroker) -> None:
        """Declare bus subscribers on ``broker``."""

    def register_grpc(self, server: GrpcServer) -> None:
        """Add gRPC servicers to ``server``."""

    async def started(self, host: ServiceHost) -> None:
        """Called once the broker and the server run."""

    async def close(self) -> None:
        """Release resources."""


class ServiceHost:
    """Runs components over one NATS connection and one gRPC server."""

    def __init__(self, components: Sequence[Component], settings: CommonSettings, grpc_address: str) -> None:
        self.components = list(components)
        self.settings = settings
        self.broker = make_broker(settings.nats_url)
        self.grpc = GrpcServer(grpc_address)
        self._started = False

    @property
    def target(self) -> str:
        """Address clients dial."""
        return self.grpc.target

    async def start(self) -> None:
        for comp in self.components:
            await comp.prepare()
        for comp in self.components:
            comp.register_handlers(self.broker)
            comp.register_grpc(self.grpc)
        await self.broker.start()
        await self.grpc.start()
        self._started = True
        for comp in self.components:
            await comp.started(self)
        log.info("serving", extra={"components": [c.name for c in self.components], "grpc": self.target})

    async def stop(self) -> None:
        if self._started:
            await self.grpc.stop()
            await self.broker.stop()
            self._started = False
        for comp in reversed(self.components):
            try:
                await comp.close()
            except Exception:
                log.exception("error closing %s", comp.name)

    async def serve_forever(self) -> None:
        """Serve until SIGINT/SIGTERM, then stop: NOT_SERVING, drain, close."""
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, stop.set)
            except (NotImplementedError, RuntimeError):
                pass
        await stop.wait()
