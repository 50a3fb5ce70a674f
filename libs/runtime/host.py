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
from typing import Any, Protocol

from faststream.nats import NatsBroker

from agenteval.runtime.bus import BatchConsumers, make_broker
from agenteval.runtime.grpc_server import GrpcServer
from agenteval.runtime.settings import CommonSettings

log = logging.getLogger("agenteval.host")


def start_metrics_server(port: int, addr: str = "0.0.0.0") -> tuple[int, Any]:
    """Serve the process's Prometheus registry on http://addr:port/metrics; return (port, server)."""
    from prometheus_client import start_http_server

    if port == 0:
        from agenteval.runtime.nats_server import free_port

        port = free_port()
    server, _thread = start_http_server(port, addr=addr)
    return port, server


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
        self.metrics_port: int | None = None
        self._metrics_server: Any = None

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
        self.batch_consumers = BatchConsumers(self.broker, self.settings.nats_url)
        await self.batch_consumers.start()
        await self.broker.start()
        await self.grpc.start()
        if self.settings.metrics_port is not None:
            self.metrics_port, self._metrics_server = start_metrics_server(self.settings.metrics_port)
        self._started = True
        for comp in self.components:
            await comp.started(self)
        log.info("serving", extra={"components": [c.name for c in self.components], "grpc": self.target})

    async def stop(self) -> None:
        if self._metrics_server is not None:
            self._metrics_server.shutdown()
            self._metrics_server.server_close()
            self._metrics_server = None
        if self._started:
            await self.grpc.stop()
            await self.batch_consumers.stop()
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
