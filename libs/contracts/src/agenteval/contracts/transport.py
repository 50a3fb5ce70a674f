"""What both ends of a gRPC connection agree on: the message size limit and a client channel."""

from __future__ import annotations

import grpc

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
