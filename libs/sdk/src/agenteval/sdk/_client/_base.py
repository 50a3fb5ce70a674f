"""The client's connections: one channel per address, the raw stubs, errors as contract errors."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self, TypeVar

import grpc

from agenteval.contracts.transport import ERRORS_BY_CODE, channel
from agenteval.v1 import (
    eval_generator_pb2_grpc,
    grader_pb2_grpc,
    metrics_pb2_grpc,
    runner_pb2_grpc,
    suites_pb2_grpc,
    transcripts_pb2_grpc,
)

T = TypeVar("T")

IMPORT_CHUNK_BYTES = 1024 * 1024
"""Size of the chunks a trace file is streamed in."""


@dataclass(frozen=True)
class _Stubs:
    """The raw gRPC stubs: internal, for agenteval's own CLI where no typed method exists yet
    (comparisons). Not part of the public API; they may change at any time."""

    runs: runner_pb2_grpc.RunServiceStub
    transcripts: transcripts_pb2_grpc.TranscriptServiceStub
    grader: grader_pb2_grpc.GraderServiceStub
    metrics: metrics_pb2_grpc.MetricsServiceStub
    evals: eval_generator_pb2_grpc.EvalGeneratorServiceStub
    suites: suites_pb2_grpc.SuiteServiceStub


RECONNECT_S = 120.0
"""How long a watch keeps trying to reconnect to a server that went away."""
RECONNECT_PAUSE_S = 0.5


def _transient(exc: grpc.aio.AioRpcError) -> bool:
    """A connection that broke or a server that is restarting, not an answer."""
    if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED):
        return True
    details = (exc.details() or "").lower()
    return exc.code() in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL) and (
        "stream removed" in details or "rst_stream" in details or "goaway" in details
    )


def _contract_error(exc: grpc.aio.AioRpcError, target: str) -> Exception:
    """The contract error a status code stands for; the gRPC error itself for other codes."""
    cls = ERRORS_BY_CODE.get(exc.code())
    if cls is None:
        return exc
    details = exc.details() or exc.code().name
    if exc.code() == grpc.StatusCode.UNAVAILABLE:
        details = f"agenteval at {target} is unavailable: {details}"
    return cls(details)


class _Base:
    """Connections, stubs and error mapping shared by every part of the client."""

    def __init__(
        self,
        target: str,
        *,
        token: str | None = None,
        project: str | None = None,
        tls_ca: str | os.PathLike[str] | None = None,
    ) -> None:
        self.target = target
        self.token = token if token is not None else os.environ.get("AGENTEVAL_TOKEN") or None
        self.project = project if project is not None else os.environ.get("AGENTEVAL_PROJECT") or None
        ca = tls_ca if tls_ca is not None else os.environ.get("AGENTEVAL_TLS_CA") or None
        self._tls_ca = Path(ca).read_bytes() if ca else None
        self._channels: dict[str, grpc.aio.Channel] = {}
        self._stubs = _Stubs(
            runs=runner_pb2_grpc.RunServiceStub(self._channel("RUNNER")),
            transcripts=transcripts_pb2_grpc.TranscriptServiceStub(self._channel("TRANSCRIPTS")),
            grader=grader_pb2_grpc.GraderServiceStub(self._channel("GRADER")),
            metrics=metrics_pb2_grpc.MetricsServiceStub(self._channel("METRICS")),
            evals=eval_generator_pb2_grpc.EvalGeneratorServiceStub(self._channel("EVALGEN")),
            suites=suites_pb2_grpc.SuiteServiceStub(self._channel("SUITES")),
        )

    def _channel(self, service: str) -> grpc.aio.Channel:
        target = os.environ.get(f"AGENTEVAL_{service}_ADDR") or self.target
        if target not in self._channels:
            self._channels[target] = channel(
                target, token=self.token, project=self.project, tls_ca=self._tls_ca
            )
        return self._channels[target]

    async def _call(self, call: Awaitable[T]) -> T:
        try:
            return await call
        except grpc.aio.AioRpcError as exc:
            raise _contract_error(exc, self.target) from None

    async def close(self) -> None:
        """Close the connections."""
        for ch in self._channels.values():
            await ch.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _resuming(
        self,
        rpc: Any,
        request: Any,
        reconnect_s: float,
        position: Callable[[Any], int] = lambda ev: int(ev.seq),
    ) -> AsyncIterator[Any]:
        """The stream of ``rpc``, called again after a transient failure with ``request.after``
        set to the ``position`` of the last message received."""
        deadline: float | None = None
        while True:
            try:
                async for ev in rpc(request):
                    deadline = None
                    if position(ev):
                        request.after = position(ev)
                    yield ev
                return
            except grpc.aio.AioRpcError as exc:
                if not _transient(exc):
                    raise _contract_error(exc, self.target) from None
                now = time.monotonic()
                deadline = deadline or now + reconnect_s
                if now >= deadline:
                    raise _contract_error(exc, self.target) from None
                await asyncio.sleep(RECONNECT_PAUSE_S)
