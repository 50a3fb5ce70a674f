"""The gRPC health service every agenteval server answers, with ``List``.

grpcio-health-checking's asyncio servicer implements ``Check`` and ``Watch`` but answers
``List`` with UNIMPLEMENTED (surfacing as an error to operators' tools); this one lists
the status of every service the server registered.
"""

from __future__ import annotations

from typing import Any

from grpc_health.v1 import health_pb2
from grpc_health.v1.health import aio as health_aio


class HealthServicer(health_aio.HealthServicer):
    async def List(
        self, request: health_pb2.HealthListRequest, context: Any
    ) -> health_pb2.HealthListResponse:
        statuses = {
            name: health_pb2.HealthCheckResponse(status=status)
            for name, status in dict(self._server_status).items()
        }
        return health_pb2.HealthListResponse(statuses=statuses)
