"""``python -m agenteval.runtime.healthcheck ADDRESS``: exit 0 when the gRPC server at ADDRESS
answers SERVING (a container healthcheck), 1 otherwise."""

from __future__ import annotations

import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def healthy(address: str, timeout_s: float = 3.0) -> bool:
    try:
        with grpc.insecure_channel(address) as ch:
            resp = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=timeout_s)
        return bool(resp.status == health_pb2.HealthCheckResponse.SERVING)
    except grpc.RpcError:
        return False


if __name__ == "__main__":
    sys.exit(0 if healthy(sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:50051") else 1)
