"""Plain NATS subscriptions for live views (WatchRun): every subscriber sees every event."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import nats
from nats.aio.client import Client


class Watcher:
    """One NATS connection shared by all live watches of a process."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._nc: Client | None = None
        self._lock = asyncio.Lock()

    async def _connection(self) -> Client:
        async with self._lock:
            if self._nc is None or self._nc.is_closed:
                self._nc = await nats.connect(self.url, max_reconnect_attempts=-1)
            return self._nc

    @asynccontextmanager
    async def __call__(self, subjects: list[str]) -> AsyncIterator[asyncio.Queue[tuple[str, dict[str, Any]]]]:
        """Subscribe to ``subjects``; yields a queue of (subject, payload) as they arrive."""
        nc = await self._connection()
        queue: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue(maxsize=10_000)

        async def on_msg(msg: Any) -> None:
            try:
                payload = json.loads(msg.data)
            except ValueError:
                return
            if not queue.full():
                queue.put_nowait((msg.subject, payload))

        subs = [await nc.subscribe(s, cb=on_msg) for s in subjects]
        await nc.flush()

        try:
            yield queue
        finally:
            for sub in subs:
                try:
                    await sub.unsubscribe()
                except Exception:
                    pass

    async def close(self) -> None:
        if self._nc is not None and not self._nc.is_closed:
            await self._nc.close()
