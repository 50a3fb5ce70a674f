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


def start_metrics_server(port: int, addr: str = "127.0.0.1") -> tuple[int, Any]:
    """Serve the process's Prometheus registry on http://addr:port/metrics; return (port, server)."""
    from prometheus_client import start_http_server

    if port == 0:
        from agenteval.runtime.nats_server import free_port

        port = free_port()
    server, _thread = start_http_server(port, addr=addr)
    return port, server


# Measured on W1 (embedded, 5,000 trials): with the default thresholds (700, 10, 10) the
# cyclic GC took ~0.35 ms per trial, a quarter of the platform's CPU, rescanning the
# long-lived startup heap (SQLAlchemy, pydantic schemas, gRPC) on every older-generation
# pass. Freezing that heap and collecting the young generation every 50,000 allocations
# instead of 700 brought it to ~0.05 ms per trial; the garbage of a trial is mostly freed
# by reference counting anyway.
GC_THRESHOLDS = (50_000, 20, 100)


def tune_gc() -> None:
    """Move everything allocated so far out of the GC's sight and collect less often."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


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


# A component may also define ``async def stopping(self) -> None``: called first when the host
# stops, while the gRPC server and the broker still serve (to hand work back while the
# services it calls still answer).


STOP_STEP_TIMEOUT_S = 15.0
"""How long one step of stopping may take before it is abandoned (logged), so a process
whose work is done always exits: its messages are acked or redelivered, nothing is lost."""


async def _bounded(what: str, step: Any) -> None:
    try:
        await asyncio.wait_for(step, STOP_STEP_TIMEOUT_S)
    except TimeoutError:
        log.warning("stopping %s took over %.0fs; going on without it", what, STOP_STEP_TIMEOUT_S)
    except Exception:
        log.exception("error stopping %s", what)


def check_exposure(address: str, settings: CommonSettings) -> None:
    """Refuse to serve open (no tokens) beyond loopback unless allow_open says so."""
    from agenteval.contracts.errors import InvalidArgument
    from agenteval.runtime.auth import is_loopback

    if settings.tokens_file is None and not settings.allow_open and not is_loopback(address):
        raise InvalidArgument(
            f"refusing to serve {address} without tokens: anyone who reaches it could run, read and "
            "delete everything. Set AGENTEVAL_TOKENS_FILE (agent-eval tokens create), listen on "
            "127.0.0.1, or set AGENTEVAL_ALLOW_OPEN=true on a network you trust"
        )


class ServiceHost:
    """Runs components over one NATS connection and one gRPC server."""

    def __init__(self, components: Sequence[Component], settings: CommonSettings, grpc_address: str) -> None:
        self.components = list(components)
        self.settings = settings
        self.broker = make_broker(settings.nats_servers, **settings.nats_options())
        authenticator = settings.authenticator()
        if authenticator is not None and not settings.service_token:
            # The services hosted here call each other (the runner asks the suite store...):
            # with a token of their own, since none was configured.
            settings.service_token = authenticator.add_internal()
        self.grpc = GrpcServer(grpc_address, authenticator, settings.server_tls())
        check_exposure(grpc_address, settings)
        self._started = False
        self.metrics_port: int | None = None
        self._metrics_server: Any = None

    @property
    def target(self) -> str:
        """Address clients dial."""
        return self.grpc.target

    def _serve_operations(self) -> None:
        """Every host answers OperationsService (dead letters), whatever services it hosts."""
        from agenteval.runtime.bus import connection_of
        from agenteval.runtime.dead_letters import DeadLetters, OperationsServicer
        from agenteval.v1 import operations_pb2, operations_pb2_grpc

        def letters() -> DeadLetters | None:
            nc = connection_of(self.broker)
            return None if nc is None else DeadLetters(nc, self.settings.subjects)

        self.grpc.add(
            operations_pb2_grpc.add_OperationsServiceServicer_to_server,
            OperationsServicer(letters),
            [operations_pb2.DESCRIPTOR.services_by_name["OperationsService"].full_name],
        )

    async def start(self) -> None:
        for comp in self.components:
            await comp.prepare()
        for comp in self.components:
            comp.register_handlers(self.broker)
            comp.register_grpc(self.grpc)
        self._serve_operations()
        self.batch_consumers = BatchConsumers(
            self.broker,
            self.settings.nats_url,
            self.settings.bus_max_age_s,
            max_deliver=self.settings.bus_max_deliver,
            retry_max_delay_s=self.settings.bus_retry_max_delay_s,
            nats_options=self.settings.nats_options(),
            replicas=self.settings.bus_replicas,
        )
        await self.batch_consumers.start()
        await self.broker.start()
        await self.grpc.start()
        if self.settings.metrics_port is not None:
            self.metrics_port, self._metrics_server = start_metrics_server(
                self.settings.metrics_port, self.settings.metrics_address
            )
        self._started = True
        for comp in self.components:
            await comp.started(self)
        tune_gc()
        log.info("serving", extra={"components": [c.name for c in self.components], "grpc": self.target})

    async def stop(self) -> None:
        if self._metrics_server is not None:
            self._metrics_server.shutdown()
            self._metrics_server.server_close()
            self._metrics_server = None
        if self._started:
            for comp in self.components:
                stopping = getattr(comp, "stopping", None)
                if stopping is not None:
                    await _bounded(f"{comp.name} (stopping)", stopping())
            await _bounded("the gRPC server", self.grpc.stop())
            await _bounded("the bus consumers", self.batch_consumers.stop())
            await _bounded("the broker", self.broker.stop())
            self._started = False
        for comp in reversed(self.components):
            await _bounded(comp.name, comp.close())

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


def serve_main(component: Any, address: str) -> None:
    """Run one service alone until SIGTERM/SIGINT (distributed mode).

    ``component`` builds the service from the common settings (its app.py's component
    class); NATS, the database and the rest come from ``AGENTEVAL_*`` settings. Each
    service's ``__main__`` calls this, so ``python -m agenteval.runner`` runs the runner
    in an image that holds only the runner's distribution.
    """
    import sys

    from agenteval.runtime.telemetry import setup_logging, setup_tracing

    common = CommonSettings()
    setup_logging(common.log_level, common.json_logs)
    built = component(common)
    setup_tracing(f"agenteval-{built.name}")

    async def go() -> None:
        from agenteval.contracts.errors import AgentEvalError

        try:
            host = ServiceHost([built], common, address)
        except AgentEvalError as exc:
            print(f"{built.name}: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
        await host.start()
        access = "tokens required" if common.tokens_file else "open: no tokens (AGENTEVAL_TOKENS_FILE unset)"
        tls = ", TLS" if common.tls_cert else ""
        print(
            f"{built.name} serving on {host.target}{tls} ({access}; NATS {common.nats_url})", file=sys.stderr
        )
        try:
            await host.serve_forever()
        finally:
            await host.stop()

    asyncio.run(go())
