"""The gRPC edge: what a careless or hostile client sends gets a clear status, never a
traceback, driver text or its own 5 MB echoed back."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from agenteval.cli.stack import EmbeddedStack
from agenteval.v1 import runner_pb2, runner_pb2_grpc, transcripts_pb2, transcripts_pb2_grpc


@pytest.fixture
async def stack(tmp_path: Path):
    async with EmbeddedStack(tmp_path / "data") as s:
        yield s


async def test_a_nul_byte_in_any_text_field_is_invalid_argument_naming_the_field(
    stack: EmbeddedStack,
) -> None:
    async with grpc.aio.insecure_channel(stack.target) as ch:
        runs = runner_pb2_grpc.RunServiceStub(ch)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await runs.GetRun(runner_pb2.GetRunRequest(run_id="run-\x00x"))
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "run_id" in (info.value.details() or "") and "NUL" in (info.value.details() or "")
        transcripts = transcripts_pb2_grpc.TranscriptServiceStub(ch)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await transcripts.ListTraces(
                transcripts_pb2.ListTracesRequest(dataset="d", trace_ids=["a", "b\x00"])
            )
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "trace_ids[1]" in (info.value.details() or "")


async def test_an_undecodable_request_is_invalid_argument(stack: EmbeddedStack) -> None:
    async with grpc.aio.insecure_channel(stack.target) as ch:
        raw = ch.unary_unary(
            "/agenteval.v1.RunService/GetRun",
            request_serializer=lambda b: b,
            response_deserializer=lambda b: b,
        )
        bad_utf8 = b"\x0a\x03\xff\xfe\xfd"  # field 1 (run_id), 3 bytes that are not UTF-8
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await raw(bad_utf8)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "could not be decoded" in (info.value.details() or "")


async def test_an_error_never_echoes_a_huge_id(stack: EmbeddedStack) -> None:
    async with grpc.aio.insecure_channel(stack.target) as ch:
        runs = runner_pb2_grpc.RunServiceStub(ch)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await runs.GetRun(runner_pb2.GetRunRequest(run_id="x" * 5_000_000))
        assert info.value.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT)
        assert len(info.value.details() or "") < 2000


async def test_health_list_names_every_service_the_server_serves() -> None:
    """Health/List answers (the stock asyncio servicer answers UNIMPLEMENTED) with each
    registered service SERVING."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from agenteval.runtime.grpc_server import GrpcServer
    from agenteval.v1 import runner_pb2, runner_pb2_grpc

    server = GrpcServer("127.0.0.1:0")
    server.add(
        runner_pb2_grpc.add_RunServiceServicer_to_server,
        runner_pb2_grpc.RunServiceServicer(),
        [runner_pb2.DESCRIPTOR.services_by_name["RunService"].full_name],
    )
    await server.start()
    try:
        async with grpc.aio.insecure_channel(server.target) as ch:
            listed = await health_pb2_grpc.HealthStub(ch).List(health_pb2.HealthListRequest(), timeout=5)
        statuses = {name: s.status for name, s in listed.statuses.items()}
        assert statuses["agenteval.v1.RunService"] == health_pb2.HealthCheckResponse.SERVING
        assert statuses[""] == health_pb2.HealthCheckResponse.SERVING
    finally:
        await server.stop(0)
