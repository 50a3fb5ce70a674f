"""The gateway's wiring: a gRPC server with health, reflection and the router."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from agenteval.contracts.transport import MAX_MESSAGE_BYTES
from agenteval.gateway.proxy import Router
from agenteval.gateway.routes import routes
from agenteval.gateway.settings import GatewaySettings
from agenteval.runtime.health import HealthServicer
from agenteval.runtime.host import check_exposure
from agenteval.runtime.settings import CommonSettings

log = logging.getLogger("agenteval.gateway")


class Gateway:
    """One address for every agenteval RPC (distributed mode): clients, the CLI and the web
    dashboard need only this, and compose publishes only this port."""

    def __init__(
        self, settings: GatewaySettings, address: str | None = None, common: CommonSettings | None = None
    ) -> None:
        self.settings = settings
        self.address = address or settings.grpc_address
        common = common or CommonSettings()
        check_exposure(self.address, common)
        self.tls = common.server_tls()
        ca_file = common.tls_ca or common.tls_cert
        self.methods = routes(settings)
        self.router = Router(
            self.methods,
            settings.default_timeout_s,
            common.authenticator(),
            ca_file.read_bytes() if ca_file else None,
        )
        self.health = HealthServicer()
        self.server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ]
        )
        self.port = 0

    async def start(self) -> None:
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        self.server.add_generic_rpc_handlers([self.router])
        names = sorted({path.split("/")[1] for path in self.methods})
        reflection.enable_server_reflection([*names, reflection.SERVICE_NAME], self.server)
        if self.tls is not None:
            creds = grpc.ssl_server_credentials([(self.tls[1], self.tls[0])])
            self.port = self.server.add_secure_port(self.address, creds)
        else:
            self.port = self.server.add_insecure_port(self.address)
        await self.server.start()
        for name in ["", *names]:
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)

    @property
    def target(self) -> str:
        host = self.address.rsplit(":", 1)[0]
        return f"{'127.0.0.1' if host in ('0.0.0.0', '[::]', '') else host}:{self.port}"

    async def stop(self, grace_s: float = 2.0) -> None:
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace_s)
        await self.router.close()


def main(address: str | None = None) -> None:
    """Run the gateway until SIGTERM/SIGINT."""

    async def go() -> None:
        from agenteval.contracts.errors import AgentEvalError

        try:
            gateway = Gateway(GatewaySettings(), address)
        except AgentEvalError as exc:
            print(f"gateway: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
        await gateway.start()
        http = None
        if gateway.settings.http_address:
            from agenteval.gateway.web import create_app
            from agenteval.gateway.web.server import HttpServer

            common = CommonSettings()
            check_exposure(gateway.settings.http_address, common)
            ca = common.tls_ca or common.tls_cert
            http = HttpServer(
                create_app(gateway.target, common.authenticator(), str(ca) if ca else None),
                gateway.settings.http_address,
            )
            await http.start()
        dashboard = f", dashboard {http.url}" if http is not None else ""
        print(f"gateway serving on {gateway.target}{dashboard}", file=sys.stderr)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        if http is not None:
            await http.stop()
        await gateway.stop()

    asyncio.run(go())
