"""Serving the HTTP API and dashboard with uvicorn inside an already running event loop."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator
from typing import Any

import uvicorn
from fastapi import FastAPI


class _Server(uvicorn.Server):
    """uvicorn leaving the signals to the process it runs in (which stops it on SIGTERM/Ctrl-C)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class HttpServer:
    """uvicorn on ``address`` (host:port; port 0 picks a free one), as a task of this loop."""

    def __init__(self, app: FastAPI, address: str) -> None:
        host, _, port = address.rpartition(":")
        self.host = host.strip("[]") or "127.0.0.1"
        self.sock = socket.socket(socket.AF_INET6 if ":" in self.host else socket.AF_INET)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.sock.bind((self.host, int(port or 0)))
        except (OSError, ValueError) as exc:
            self.sock.close()
            from agenteval.contracts.errors import InvalidArgument

            raise InvalidArgument(f"cannot serve HTTP on {address}: {exc}") from None
        self.port = int(self.sock.getsockname()[1])
        config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
        self.server = _Server(config)
        self._task: asyncio.Task[Any] | None = None

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        return f"http://{host}:{self.port}/"

    async def start(self) -> None:
        self._task = asyncio.create_task(self.server.serve(sockets=[self.sock]), name="http")
        while not self.server.started:
            if self._task.done():
                await self._task  # raises what stopped it
                raise RuntimeError("the HTTP server stopped at start-up")
            await asyncio.sleep(0.02)

    async def stop(self) -> None:
        if self._task is not None:
            self.server.should_exit = True
            await asyncio.wait_for(self._task, 10)
            self._task = None
        self.sock.close()
