"""What both ends of a gRPC connection agree on: the message size limit, a client channel, and
which status code stands for which contract error."""

from __future__ import annotations

import grpc

from agenteval.contracts import errors

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""The largest gRPC message a server accepts or a client sends (a whole transcript fits)."""


def channel(target: str) -> grpc.aio.Channel:
    """A client channel with the servers' message size limits."""
    return grpc.aio.insecure_channel(
        target,
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ],
    )


STATUS_CODES: dict[type[errors.AgentEvalError], grpc.StatusCode] = {
    errors.NotFound: grpc.StatusCode.NOT_FOUND,
    errors.InvalidArgument: grpc.StatusCode.INVALID_ARGUMENT,
    errors.AlreadyExists: grpc.StatusCode.ALREADY_EXISTS,  # before Conflict, its base
    errors.Conflict: grpc.StatusCode.FAILED_PRECONDITION,
    errors.Unavailable: grpc.StatusCode.UNAVAILABLE,
    errors.PermissionDenied: grpc.StatusCode.PERMISSION_DENIED,
}
"""The status code a server answers with for each contract error (and a client maps back)."""

ERRORS_BY_CODE: dict[grpc.StatusCode, type[errors.AgentEvalError]] = {
    code: cls for cls, code in STATUS_CODES.items()
}
