"""Forwarding: each call goes to its backend as raw bytes, metadata and deadline included,
and the backend's status comes back as it was."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import grpc

from agenteval.contracts.errors import AgentEvalError
from agenteval.contracts.transport import channel
from agenteval.gateway.routes import Method
from agenteval.runtime.auth import Authenticator
from agenteval.runtime.grpc_server import caller_of, status_for

log = logging.getLogger("agenteval.gateway")

_HOP_BY_HOP = {"content-type", "te", "user-agent", "grpc-accept-encoding", "grpc-timeout"}


def _metadata(context: grpc.aio.ServicerContext) -> list[tuple[str, str | bytes]]:
    """What the client sent (tokens, trace context), less what the transport sets itself."""
    return [(k, v) for k, v in (context.invocation_metadata() or ()) if k.lower() not in _HOP_BY_HOP]


def _identity(data: bytes) -> bytes:
    return data


class Router(grpc.GenericRpcHandler):
    """A generic handler: any routed method, any of the four call shapes."""

    def __init__(
        self,
        methods: dict[str, Method],
        default_timeout_s: float,
        authenticator: Authenticator | None = None,
        tls_ca: bytes | None = None,
    ) -> None:
        self.methods = methods
        self.default_timeout_s = default_timeout_s
        self.authenticator = authenticator
        self.tls_ca = tls_ca
        self.channels: dict[str, grpc.aio.Channel] = {}

    def _channel(self, backend: str) -> grpc.aio.Channel:
        if backend not in self.channels:
            # The caller's token travels in the forwarded metadata: the backend checks it too.
            self.channels[backend] = channel(backend, tls_ca=self.tls_ca)
        return self.channels[backend]

    def _refusal(self, handler_call_details: grpc.HandlerCallDetails) -> tuple[grpc.StatusCode, str] | None:
        """(UNAUTHENTICATED or PERMISSION_DENIED, why), or None when the call may go on:
        strangers are turned away here, before any backend sees them."""
        if self.authenticator is None:
            return None
        try:
            caller_of(
                handler_call_details.method, handler_call_details.invocation_metadata, self.authenticator
            )
        except AgentEvalError as exc:
            return status_for(exc), str(exc)
        return None

    def _timeout(self, context: grpc.aio.ServicerContext) -> float:
        remaining = context.time_remaining()
        return self.default_timeout_s if remaining is None else max(0.001, remaining)

    async def close(self) -> None:
        for ch in self.channels.values():
            await ch.close()

    def service(
        self, handler_call_details: grpc.HandlerCallDetails
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        path = handler_call_details.method
        method = self.methods.get(path)
        if method is None:
            return None  # UNIMPLEMENTED, as from any server
        refusal = self._refusal(handler_call_details)
        if refusal is not None:
            return _refusing(method, *refusal)
        ch = self._channel(method.backend)
        kw: dict[str, Any] = {"request_serializer": _identity, "response_deserializer": _identity}

        async def fail(context: grpc.aio.ServicerContext, exc: grpc.aio.AioRpcError) -> None:
            await context.abort(exc.code(), exc.details() or "")

        if not method.client_streaming and not method.server_streaming:

            async def unary_unary(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
                try:
                    return await ch.unary_unary(path, **kw)(
                        request, metadata=_metadata(context), timeout=self._timeout(context)
                    )
                except grpc.aio.AioRpcError as exc:
                    await fail(context, exc)
                    raise

            return grpc.unary_unary_rpc_method_handler(unary_unary)

        if not method.client_streaming:

            async def unary_stream(request: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
                call = ch.unary_stream(path, **kw)(
                    request, metadata=_metadata(context), timeout=self._timeout(context)
                )
                try:
                    async for item in call:
                        yield item
                except grpc.aio.AioRpcError as exc:
                    await fail(context, exc)
                finally:
                    call.cancel()

            return grpc.unary_stream_rpc_method_handler(unary_stream)

        if not method.server_streaming:

            async def stream_unary(
                requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext
            ) -> bytes:
                try:
                    return await ch.stream_unary(path, **kw)(
                        requests, metadata=_metadata(context), timeout=self._timeout(context)
                    )
                except grpc.aio.AioRpcError as exc:
                    await fail(context, exc)
                    raise

            return grpc.stream_unary_rpc_method_handler(stream_unary)

        async def stream_stream(
            requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext
        ) -> AsyncIterator[bytes]:
            call = ch.stream_stream(path, **kw)(
                requests, metadata=_metadata(context), timeout=self._timeout(context)
            )
            try:
                async for item in call:
                    yield item
            except grpc.aio.AioRpcError as exc:
                await fail(context, exc)
            finally:
                call.cancel()

        return grpc.stream_stream_rpc_method_handler(stream_stream)


def _refusing(method: Method, code: grpc.StatusCode, text: str) -> grpc.RpcMethodHandler[Any, Any]:
    """A handler of ``method``'s call shape that only answers ``code``."""

    async def unary(request: Any, context: grpc.aio.ServicerContext) -> bytes:
        await context.abort(code, text)
        raise AssertionError("unreachable")

    async def stream(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        await context.abort(code, text)
        yield b""  # never reached: abort raises

    if method.client_streaming and method.server_streaming:
        return grpc.stream_stream_rpc_method_handler(stream)
    if method.client_streaming:
        return grpc.stream_unary_rpc_method_handler(unary)
    if method.server_streaming:
        return grpc.unary_stream_rpc_method_handler(stream)
    return grpc.unary_unary_rpc_method_handler(unary)
