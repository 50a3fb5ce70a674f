"""How far each run's window of trials has moved, in a JetStream key-value bucket.

A run with a concurrency limit, served by several runner replicas, is published as a
window: its first LIMIT trials, then one more for each that finishes, whichever replica ran
it. The count of trials released so far lives here, one key per run, moved on by
compare-and-set, so replicas never release the same position twice. A database row did the
same job, but a commit per move (and its round trips through a busy event loop) held each
finished trial's slot idle for tens of milliseconds; a KV update is one NATS round trip.

The positions due are published before the counter moves past them. A runner killed between
the two has moved nothing: the finished trial comes back (it was never acked), reads the same
count, publishes the same positions (their ids dedupe the repeat) and moves it then. Moving
first and publishing after lost those positions for good, and the run never ended.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from agenteval.contracts.errors import Unavailable
from agenteval.contracts.subjects import Subjects

# Keys of runs long finished go away on their own.
WINDOW_TTL_S = 7 * 24 * 3600.0
CAS_ATTEMPTS = 50


class RunWindows:
    """``open`` a run's window at its first trials; ``release`` moves it on and says which
    positions are now due. ``connection`` returns the NATS connection (None before start)."""

    def __init__(self, connection: Callable[[], Any], subjects: Subjects, replicas: int = 1) -> None:
        self._connection = connection
        self.replicas = replicas
        self.name = f"{subjects.stream}_WINDOWS"
        self._kv: Any = None
        self._lock = asyncio.Lock()

    async def _bucket(self) -> Any:
        from nats.js.api import KeyValueConfig
        from nats.js.errors import BadRequestError, BucketNotFoundError

        if self._kv is not None:
            return self._kv
        async with self._lock:
            if self._kv is None:
                nc = self._connection()
                if nc is None or nc.is_closed:
                    raise Unavailable("no NATS connection for the run windows")
                js = nc.jetstream()
                try:
                    self._kv = await js.key_value(self.name)
                except BucketNotFoundError:
                    try:
                        self._kv = await js.create_key_value(
                            KeyValueConfig(bucket=self.name, ttl=WINDOW_TTL_S, replicas=self.replicas)
                        )
                    except BadRequestError:  # another replica made it first
                        self._kv = await js.key_value(self.name)
        return self._kv

    async def open(self, run_id: str, first: int) -> None:
        """The run's first ``first`` trials are out (a second call, e.g. on redelivery, keeps
        a window that has moved on)."""
        from nats.js.errors import KeyWrongLastSequenceError

        kv = await self._bucket()
        try:
            await kv.create(run_id, str(first).encode())
        except KeyWrongLastSequenceError:
            pass

    async def release(
        self, run_id: str, n: int, total: int, publish: Callable[[int, int], Awaitable[None]]
    ) -> tuple[int, int]:
        """Move the window on by ``n`` finished trials: ``publish(start, stop)`` the positions
        now due, clipped to the run's ``total``, then move the counter past them; returns them
        (empty when every trial is out). When ``publish`` raises, nothing has moved."""
        from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError

        kv = await self._bucket()
        for _ in range(CAS_ATTEMPTS):
            try:
                entry = await kv.get(run_id)
            except KeyNotFoundError:
                raise Unavailable(f"run {run_id} has no window") from None
            released = int(entry.value or b"0")
            start, stop = min(released, total), min(released + n, total)
            if start == stop:
                return start, stop  # every trial is out
            await publish(start, stop)
            try:
                await kv.update(run_id, str(released + n).encode(), last=entry.revision)
            except KeyWrongLastSequenceError:
                # Another replica moved it meanwhile (and published what this one just did:
                # the ids dedupe it): read again.
                continue
            return start, stop
        raise Unavailable(f"run {run_id}: the window kept moving under {CAS_ATTEMPTS} attempts")
