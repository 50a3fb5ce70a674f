"""``python -m agenteval.gateway.healthcheck [ADDRESS]``: the gateway image's container healthcheck
(its image holds no runtime library): exit 0 when the gateway answers SERVING."""

from __future__ import annotations

import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

if __name__ == "__main__":
    address = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:50050"
    try:
        with grpc.insecure_channel(address) as ch:
            resp = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=3.0)
        sys.exit(0 if resp.status == health_pb2.HealthCheckResponse.SERVING else 1)
    except grpc.RpcError:
        sys.exit(1)
