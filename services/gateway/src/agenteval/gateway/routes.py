"""Which backend serves each gRPC service, and the shape (streaming or not) of every method."""

from __future__ import annotations

from dataclasses import dataclass

from agenteval.gateway.settings import GatewaySettings
from agenteval.v1 import (
    eval_generator_pb2,
    grader_pb2,
    metrics_pb2,
    operations_pb2,
    runner_pb2,
    suites_pb2,
    transcripts_pb2,
)


@dataclass(frozen=True)
class Method:
    """A method as the proxy needs it: where it goes and whether each side streams."""

    backend: str
    client_streaming: bool
    server_streaming: bool


def routes(settings: GatewaySettings) -> dict[str, Method]:
    """Every agenteval method by its full path (``/agenteval.v1.RunService/SubmitRun``)."""
    services = [
        (runner_pb2, "RunService", settings.runner_addr),
        (operations_pb2, "OperationsService", settings.runner_addr),
        (grader_pb2, "GraderService", settings.grader_addr),
        (metrics_pb2, "MetricsService", settings.metrics_addr),
        (transcripts_pb2, "TranscriptService", settings.transcripts_addr),
        (eval_generator_pb2, "EvalGeneratorService", settings.evalgen_addr),
        (suites_pb2, "SuiteService", settings.suites_addr),
    ]
    out: dict[str, Method] = {}
    for module, name, backend in services:
        service = module.DESCRIPTOR.services_by_name[name]
        for method in service.methods:
            out[f"/{service.full_name}/{method.name}"] = Method(
                backend, method.client_streaming, method.server_streaming
            )
    return out
