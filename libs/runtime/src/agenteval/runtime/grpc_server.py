"""gRPC servers: health and reflection on every server, one error-mapping interceptor.

Servicers raise the contract errors (NotFound, InvalidArgument, ...); the interceptor
turns them into status codes so no servicer sets a code by hand.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from agenteval.contracts import errors
from agenteval.contracts.transport import MAX_MESSAGE_BYTES, STATUS_CODES, channel
from agenteval.runtime import auth
from agenteval.runtime.auth import Authenticator, Caller
from agenteval.runtime.health import HealthServicer

log = logging.getLogger("agenteval.grpc")

_TRequest = TypeVar("_TRequest")
_TResponse = TypeVar("_TResponse")


MAX_DETAILS_CHARS = 1000
"""Longest error text sent back (an error that quotes a 5 MB id must not echo it)."""


def details(text: str) -> str:
    """An error message as it goes over the wire: cut to MAX_DETAILS_CHARS."""
    if len(text) <= MAX_DETAILS_CHARS:
        return text
    return f"{text[:MAX_DETAILS_CHARS]}... ({len(text) - MAX_DETAILS_CHARS} characters cut)"


def internal(method: str, exc: BaseException) -> str:
    """Log an unexpected error with an id; the caller gets the id, never driver or SQL text."""
    error_id = secrets.token_hex(6)
    log.error(
        "unhandled error in %s (error id %s)", method, error_id, exc_info=exc, extra={"error_id": error_id}
    )
    return f"internal error (error id {error_id}); the server's log has the details"


_UNREACHABLE = {
    "OperationalError",  # SQLAlchemy: the database went away or refused the connection
    "InterfaceError",
    "DisconnectionError",
    "CannotConnectNowError",  # asyncpg: the server is starting or shutting down
    "ConnectionDoesNotExistError",
    "ConnectionFailureError",
    "AdminShutdownError",
}


def unreachable(exc: BaseException) -> bool:
    """The error is a backend (the database) being away, not a bug: the caller may retry."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, (ConnectionError, TimeoutError)) or any(
            c.__name__ in _UNREACHABLE for c in type(cur).__mro__
        ):
            return True
        cur = cur.__cause__ or cur.__context__
    return False


def unexpected(method: str, exc: BaseException) -> tuple[grpc.StatusCode, str]:
    """An error no servicer mapped: UNAVAILABLE when a backend is away (retry later), else
    INTERNAL with an error id. Neither carries driver or SQL text."""
    if unreachable(exc):
        error_id = secrets.token_hex(6)
        log.warning("%s: a backend is unavailable (error id %s): %s", method, error_id, type(exc).__name__)
        return (
            grpc.StatusCode.UNAVAILABLE,
            f"a backend (the database) is unavailable; try again (error id {error_id})",
        )
    return grpc.StatusCode.INTERNAL, internal(method, exc)


def check_request(msg: Any, path: str = "") -> None:
    """Refuse text fields holding NUL bytes (no database column takes them), naming the field."""
    for field, value in msg.ListFields():
        name = f"{path}{field.name}"
        if field.type == field.TYPE_STRING:
            values = value if _repeated(field) else [value]
            for i, v in enumerate(values):
                if "\x00" in v:
                    where = f"{name}[{i}]" if _repeated(field) else name
                    raise errors.InvalidArgument(f"{where}: contains a NUL byte")
        elif field.type == field.TYPE_MESSAGE:
            if field.message_type.GetOptions().map_entry:
                for k, v in value.items():
                    if isinstance(k, str) and "\x00" in k:
                        raise errors.InvalidArgument(f"{name}: a key contains a NUL byte")
                    if isinstance(v, str) and "\x00" in v:
                        raise errors.InvalidArgument(f"{name}[{k!r}]: contains a NUL byte")
                    if hasattr(v, "ListFields"):
                        check_request(v, f"{name}[{k!r}].")
            elif _repeated(field):
                for i, item in enumerate(value):
                    check_request(item, f"{name}[{i}].")
            else:
                check_request(value, f"{name}.")


def _repeated(field: Any) -> bool:
    return bool(field.is_repeated)


class _Undecodable:
    """A request the server could not parse (wrong message, invalid UTF-8 in a string)."""

    def __init__(self, why: str) -> None:
        self.why = why


def _lenient(deserializer: Any) -> Any:
    if deserializer is None:
        return None

    def parse(data: bytes) -> Any:
        try:
            return deserializer(data)
        except Exception as exc:
            return _Undecodable(f"{type(exc).__name__}: {exc}")

    return parse


async def _refuse(request: Any, context: grpc.aio.ServicerContext) -> None:
    if isinstance(request, _Undecodable):
        await context.abort(
            grpc.StatusCode.INVALID_ARGUMENT, details(f"the request could not be decoded: {request.why}")
        )
    check_request(request)


def status_for(exc: BaseException) -> grpc.StatusCode:
    for cls, code in STATUS_CODES.items():
        if isinstance(exc, cls):
            return code
    return grpc.StatusCode.INTERNAL


@contextmanager
def _server_span(method: str, context: Any, current: bool = True) -> Iterator[None]:
    """A server span per RPC, continuing the caller's trace from gRPC metadata.

    ``current``: made the current span (unary calls). A stream's span is not: its handler
    yields, and may be closed from another task at shutdown, where the context it attached
    could not be detached."""
    from opentelemetry import propagate, trace

    carrier = {k: v for k, v in (context.invocation_metadata() or ()) if isinstance(v, str)}
    tracer = trace.get_tracer("agenteval.grpc")
    name, parent = method.rsplit("/", 1)[-1], propagate.extract(carrier)
    if current:
        with tracer.start_as_current_span(name, context=parent, kind=trace.SpanKind.SERVER) as span:
            span.set_attribute("rpc.system", "grpc")
            span.set_attribute("rpc.method", method)
            yield
        return
    span = tracer.start_span(name, context=parent, kind=trace.SpanKind.SERVER)
    span.set_attribute("rpc.system", "grpc")
    span.set_attribute("rpc.method", method)
    try:
        yield
    finally:
        span.end()


_OPEN_METHODS = ("/grpc.health.v1.Health/", "/grpc.reflection.")
"""Answered without a token: health checks (load balancers, compose) and the schema."""
_ADMIN_METHODS = ("/agenteval.v1.OperationsService/",)
"""Operators' RPCs: an admin token only (dead letters carry every project's messages)."""


def caller_of(method: str, metadata: Any, authenticator: Authenticator | None) -> Caller:
    """Who calls ``method``: raises Unauthenticated / PermissionDenied when it may not."""
    pairs = [(k, v) for k, v in (metadata or ())]
    if authenticator is None:
        return auth.open_caller(pairs)
    if method.startswith(_OPEN_METHODS):
        return auth.OPEN
    caller = authenticator.caller(pairs)
    if method.startswith(_ADMIN_METHODS):
        caller.require_admin(method.rsplit("/", 1)[-1])
    return caller


class ErrorInterceptor(grpc.aio.ServerInterceptor):
    """Maps contract errors to gRPC status codes for unary and streaming handlers, and
    authenticates every call (when the server has tokens) before its handler runs."""

    def __init__(self, authenticator: Authenticator | None = None) -> None:
        self.authenticator = authenticator

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[_TRequest, _TResponse] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[_TRequest, _TResponse] | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        method = handler_call_details.method

        def wrap_unary(fn: Any) -> Any:
            async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
                try:
                    auth.acting_as(caller_of(method, context.invocation_metadata(), self.authenticator))
                    if not hasattr(request, "__aiter__"):  # a client stream is checked by its reader
                        await _refuse(request, context)
                    with _server_span(method, context):
                        return await fn(request, context)
                except errors.AgentEvalError as exc:
                    await context.abort(status_for(exc), details(str(exc)))
                except grpc.aio.AbortError:
                    raise
                except Exception as exc:
                    await context.abort(*unexpected(method, exc))

            return call

        def wrap_stream(fn: Any) -> Any:
            async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
                try:
                    auth.acting_as(caller_of(method, context.invocation_metadata(), self.authenticator))
                    if not hasattr(request, "__aiter__"):  # a client stream is checked by its reader
                        await _refuse(request, context)
                    with _server_span(method, context, current=False):
                        async for item in fn(request, context):
                            yield item
                except errors.AgentEvalError as exc:
                    await context.abort(status_for(exc), details(str(exc)))
                except grpc.aio.AbortError:
                    raise
                except Exception as exc:
                    await context.abort(*unexpected(method, exc))

            return call

        if handler.unary_unary:
            return grpc.unary_unary_rpc_method_handler(
                wrap_unary(handler.unary_unary),
                _lenient(handler.request_deserializer),
                handler.response_serializer,
            )
        if handler.stream_unary:
            return grpc.stream_unary_rpc_method_handler(
                wrap_unary(handler.stream_unary), handler.request_deserializer, handler.response_serializer
            )
        if handler.unary_stream:
            return grpc.unary_stream_rpc_method_handler(
                wrap_stream(handler.unary_stream),
                _lenient(handler.request_deserializer),
                handler.response_serializer,
            )
        if handler.stream_stream:
            return grpc.stream_stream_rpc_method_handler(
                wrap_stream(handler.stream_stream), handler.request_deserializer, handler.response_serializer
            )
        return handler


class GrpcServer:
    """An aio server with health, reflection and the error interceptor.

    ``authenticator``: the tokens every call must carry (None: open); ``tls``: PEM
    (certificate chain, private key) to serve TLS instead of plaintext."""

    def __init__(
        self,
        address: str = "127.0.0.1:0",
        authenticator: Authenticator | None = None,
        tls: tuple[bytes, bytes] | None = None,
    ) -> None:
        self.tls = tls
        self.server = grpc.aio.server(
            interceptors=[ErrorInterceptor(authenticator)],
            options=[
                ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ],
        )
        self.health = HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        self.address = address
        self.port = 0
        self._service_names: list[str] = [health_pb2.DESCRIPTOR.services_by_name["Health"].full_name]

    def add(self, add_fn: Callable[[Any, Any], None], servicer: Any, full_names: Iterable[str]) -> None:
        """Register a servicer (``add_XServicer_to_server``) and the names it serves."""
        add_fn(servicer, self.server)
        self._service_names.extend(full_names)

    async def start(self) -> int:
        reflection.enable_server_reflection([*self._service_names, reflection.SERVICE_NAME], self.server)
        if self.tls is not None:
            creds = grpc.ssl_server_credentials([(self.tls[1], self.tls[0])])
            self.port = self.server.add_secure_port(self.address, creds)
        else:
            self.port = self.server.add_insecure_port(self.address)
        if self.port == 0:
            raise errors.Unavailable(f"cannot bind gRPC server to {self.address}")
        await self.server.start()
        for name in self._service_names:
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        await self.health.set("", health_pb2.HealthCheckResponse.SERVING)
        return self.port

    @property
    def target(self) -> str:
        host = self.address.rsplit(":", 1)[0]
        if host in ("0.0.0.0", "[::]", ""):
            host = "127.0.0.1"
        return f"{host}:{self.port}"

    async def stop(self, grace_s: float = 2.0) -> None:
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace_s)


__all__ = ["MAX_MESSAGE_BYTES", "ErrorInterceptor", "GrpcServer", "channel"]
