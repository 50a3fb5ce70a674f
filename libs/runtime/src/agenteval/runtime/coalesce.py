"""Items handed over one at a time by concurrent tasks, sent on as batches (no transport here)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Coalescer(Generic[T]):
    """Sends items given one at a time (from concurrent tasks) as batches: everything handed
    over in one turn of the event loop goes out together, and each caller returns once its
    batch is sent (or raises with the batch's error).

    The runner finishes trials in concurrent tasks; one publish batch a loop turn instead
    of one publish and ack wait per trial saves work per trial and lets the trials waiting
    for a slot start before the finished ones are published.
    """

    def __init__(self, send: Callable[[list[T]], Awaitable[None]], serial: bool = False) -> None:
        """``serial``: one batch at a time; what comes meanwhile waits for it and goes next
        (for sends that contend, such as updates of one row: fewer, larger batches)."""
        self._send_batch = send
        self._serial = serial
        self._pending: list[T] = []
        self._batch: asyncio.Future[None] | None = None
        self._sending = 0

    async def add(self, item: T) -> None:
        self._pending.append(item)
        if self._batch is None:
            loop = asyncio.get_running_loop()
            self._batch = loop.create_future()
            # Callers cancelled while it was out (a runner stopping) leave its error unread.
            self._batch.add_done_callback(_read_outcome)
            if not (self._serial and self._sending):
                loop.call_soon(self._flush)
        await asyncio.shield(self._batch)

    def _flush(self) -> None:
        items, batch = self._pending, self._batch
        self._pending, self._batch = [], None
        assert batch is not None
        self._sending += 1
        task = asyncio.create_task(self._send(items, batch))
        _background.add(task)
        task.add_done_callback(_background.discard)

    async def _send(self, items: list[T], batch: asyncio.Future[None]) -> None:
        try:
            await self._send_batch(items)
        except BaseException as exc:
            if not batch.done():
                batch.set_exception(exc)
            if isinstance(exc, asyncio.CancelledError):
                raise
        else:
            if not batch.done():
                batch.set_result(None)
        finally:
            self._sending -= 1
            if self._serial and self._batch is not None:  # what came while this batch was out
                asyncio.get_running_loop().call_soon(self._flush)


_background: set[asyncio.Task[None]] = set()


def _read_outcome(batch: asyncio.Future[None]) -> None:
    """Mark a batch's error as read: whoever waits on it gets it; nobody need be waiting."""
    if not batch.cancelled():
        batch.exception()
