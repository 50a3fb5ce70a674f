"""What both ends of a gRPC connection agree on: the message size limit, a client channel, and
which status code stands for which contract error."""

from __future__ import annotations

from typing import Any

import grpc

from agenteval.contracts import errors

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""The largest gRPC message a server accepts or a client sends (a whole transcript fits)."""


def channel(
    target: str, *, token: str | None = None, project: str | None = None, tls_ca: bytes | None = None
) -> grpc.aio.Channel:
    """A client channel with the servers' message size limits.

    ``token``: sent as ``authorization: Bearer <token>`` on every call; ``project``: the
    project the calls act in (``agenteval-project``); ``tls_ca``: PEM of the CA that signed
    the server's certificate (turns TLS on)."""
    options = [
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ]
    metadata: list[tuple[str, str]] = []
    if token:
        metadata.append(("authorization", f"Bearer {token}"))
    if project:
        metadata.append(("agenteval-project", project))
    interceptors = _with_metadata(metadata) if metadata else None
    if tls_ca is not None:
        creds = grpc.ssl_channel_credentials(root_certificates=tls_ca)
        return grpc.aio.secure_channel(target, creds, options=options, interceptors=interceptors)
    return grpc.aio.insecure_channel(target, options=options, interceptors=interceptors)


def _with_metadata(extra: list[tuple[str, str]]) -> list[Any]:
    """Client interceptors that add ``extra`` to every call's metadata."""

    def details(d: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
        md = grpc.aio.Metadata(*(d.metadata or ()))
        for k, v in extra:
            md[k] = v
        return grpc.aio.ClientCallDetails(d.method, d.timeout, md, d.credentials, d.wait_for_ready)

    class UnaryUnary(grpc.aio.UnaryUnaryClientInterceptor):
        async def intercept_unary_unary(self, continuation: Any, call_details: Any, request: Any) -> Any:
            return await continuation(details(call_details), request)

    class UnaryStream(grpc.aio.UnaryStreamClientInterceptor):
        async def intercept_unary_stream(self, continuation: Any, call_details: Any, request: Any) -> Any:
            return await continuation(details(call_details), request)

    class StreamUnary(grpc.aio.StreamUnaryClientInterceptor):
        async def intercept_stream_unary(
            self, continuation: Any, call_details: Any, request_iterator: Any
        ) -> Any:
            return await continuation(details(call_details), request_iterator)

    class StreamStream(grpc.aio.StreamStreamClientInterceptor):
        async def intercept_stream_stream(
            self, continuation: Any, call_details: Any, request_iterator: Any
        ) -> Any:
            return await continuation(details(call_details), request_iterator)

    return [UnaryUnary(), UnaryStream(), StreamUnary(), StreamStream()]


STATUS_CODES: dict[type[errors.AgentEvalError], grpc.StatusCode] = {
    errors.NotFound: grpc.StatusCode.NOT_FOUND,
    errors.InvalidArgument: grpc.StatusCode.INVALID_ARGUMENT,
    errors.AlreadyExists: grpc.StatusCode.ALREADY_EXISTS,  # before Conflict, its base
    errors.Conflict: grpc.StatusCode.FAILED_PRECONDITION,
    errors.Unavailable: grpc.StatusCode.UNAVAILABLE,
    errors.PermissionDenied: grpc.StatusCode.PERMISSION_DENIED,
    errors.Unauthenticated: grpc.StatusCode.UNAUTHENTICATED,
}
"""The status code a server answers with for each contract error (and a client maps back)."""

ERRORS_BY_CODE: dict[grpc.StatusCode, type[errors.AgentEvalError]] = {
    code: cls for cls, code in STATUS_CODES.items()
}
