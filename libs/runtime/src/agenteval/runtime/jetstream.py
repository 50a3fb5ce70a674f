"""The JetStream hot path on plain NATS messages: a streaming pull feed and acked publishes.

nats-py's ``fetch`` waits for each message of a batch with its own ``wait_for`` and its
``publish_async`` keeps a future and parses a JSON PubAck per message; on this 2-core
machine that was ~120 µs of CPU per consumed message and ~90 µs per published one, most
of the platform's cost per trial. Here a consumer keeps pull requests open and takes
messages as they stream into a callback (~35 µs with the ack), and a batch of publishes
shares one reply subject and one waiter (~40 µs a message), with the same guarantees:
every message is acked explicitly after its handler ran, every publish waits for the
stream's acknowledgement.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections import deque
from typing import Any

# A pull request lives this long on the server; an idle consumer re-asks this often.
PULL_EXPIRES_S = 5.0
# Past its expiry plus this, a request that neither delivered nor ended is taken as lost
# (e.g. across a reconnect) and its credit is asked for again.
PULL_GRACE_S = 2.0

# What a pull feed buffers is bounded by what it asked for: never drop a message as a "slow consumer".
_UNBOUNDED = {"pending_msgs_limit": 0, "pending_bytes_limit": 0}

_STATUS = "Status"
_PENDING = "Nats-Pending-Messages"


class _Inbox:
    """A wildcard subscription on an inbox of our own, handed to ``_on_msg``."""

    nc: Any
    prefix: str
    sub: Any = None

    async def start(self) -> None:
        self.sub = await self.nc.subscribe(self.prefix + ".*", cb=self._on_msg, **_UNBOUNDED)

    async def stop(self) -> None:
        if self.sub is not None:
            try:
                await self.sub.unsubscribe()
            except Exception:
                pass
            self.sub = None

    async def _on_msg(self, msg: Any) -> None:
        raise NotImplementedError


class PullFeed(_Inbox):
    """Messages of one durable pull consumer, streamed in by open pull requests.

    ``credit`` counts messages asked for and not yet delivered; callers top it up with
    :meth:`ask` and take what arrived with :meth:`take`. A request ends when it has
    delivered all it asked for (no word from the server) or with a status message
    (408 expired, 409 ...) that says how many it left undelivered.
    """

    def __init__(self, nc: Any, stream: str, durable: str, expires_s: float = PULL_EXPIRES_S) -> None:
        self.nc = nc
        self.next_subject = f"$JS.API.CONSUMER.MSG.NEXT.{stream}.{durable}"
        self.expires_s = expires_s
        self.prefix = nc.new_inbox()
        self.buffer: deque[Any] = deque()
        self.arrived = asyncio.Event()
        self.credit = 0
        self._asked: dict[str, int] = {}
        self._ids = itertools.count()
        self._last_word = time.monotonic()
        self._stopping = False

    async def _on_msg(self, msg: Any) -> None:
        self._last_word = time.monotonic()
        headers = msg.headers
        if self._stopping:
            if msg.data or not (headers and _STATUS in headers):
                await _nak_quietly(self.nc, [msg])  # delivered on a request still open at stop
            return
        if not msg.data and headers and _STATUS in headers:
            asked = self._asked.pop(msg.subject, 0)
            if headers[_STATUS] == "100":  # idle heartbeat: not the end of a request
                self._asked[msg.subject] = asked
                return
            left = headers.get(_PENDING)
            self.credit -= int(left) if left is not None and left.isdigit() else asked
            self.credit = max(self.credit, 0)
            self.arrived.set()  # wake the taker: it may need to ask again
            return
        self.credit = max(self.credit - 1, 0)
        self.buffer.append(msg)
        self.arrived.set()

    async def ask(self, n: int) -> None:
        """Open a pull request for ``n`` more messages."""
        if n <= 0:
            return
        reply = f"{self.prefix}.{next(self._ids)}"
        if len(self._asked) > 256:  # requests that were fulfilled never say so: forget old ones
            self._asked.clear()
        self._asked[reply] = n
        self.credit += n
        body = json.dumps({"batch": n, "expires": int(self.expires_s * 1e9)}).encode()
        await self.nc.publish(self.next_subject, body, reply=reply)

    def stale(self) -> bool:
        """Credit is open but the server has said nothing for longer than a request lives."""
        return self.credit > 0 and time.monotonic() - self._last_word > self.expires_s + PULL_GRACE_S

    def reset(self) -> None:
        """Forget open requests (they were lost); the caller asks again."""
        self.credit = 0
        self._asked.clear()
        self._last_word = time.monotonic()

    async def stop(self) -> None:
        """Stop taking deliveries and hand back every message no handler took: redelivered now
        (to another consumer) instead of after the ack wait.

        Requests still open on the server keep delivering until it learns the inbox is gone, so
        the subscription is drained, not dropped: the server is told, a round trip makes sure all
        it sent before that has arrived, and whatever arrives meanwhile is NAKed too (the server
        gives no open request a message once the inbox has no interest).
        """
        self._stopping = True
        left = list(self.buffer)
        self.buffer.clear()
        await _nak_quietly(self.nc, left)
        sub, self.sub = self.sub, None
        if sub is not None:
            try:
                await sub.drain()
            except Exception:
                try:
                    await sub.unsubscribe()
                except Exception:
                    pass  # the connection is gone: the ack wait redelivers what it held
        self.credit = 0
        self._asked.clear()

    async def take(self, most: int, timeout: float) -> list[Any]:
        """Up to ``most`` delivered messages; waits up to ``timeout`` for the first one."""
        if not self.buffer:
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), timeout)
            except TimeoutError:
                return []
        out: list[Any] = []
        while self.buffer and len(out) < most:
            out.append(self.buffer.popleft())
        return out


async def ack_all(nc: Any, msgs: list[Any]) -> None:
    """Ack messages (an empty body on each reply subject is JetStream's +ACK)."""
    for m in msgs:
        await nc.publish(m.reply)


async def in_progress(nc: Any, msg: Any) -> None:
    """Reset the message's ack wait: its handler is still at work."""
    await nc.publish(msg.reply, b"+WPI")


async def nak_all(nc: Any, msgs: list[Any], delay_s: float) -> None:
    """Ask for redelivery after ``delay_s``."""
    body = b"-NAK " + json.dumps({"delay": int(delay_s * 1e9)}).encode()
    for m in msgs:
        await nc.publish(m.reply, body)


async def _nak_quietly(nc: Any, msgs: list[Any]) -> None:
    if not msgs:
        return
    try:
        await nak_all(nc, msgs, delay_s=0.0)
    except Exception:
        pass  # the connection is gone: the ack wait redelivers them


async def term(nc: Any, msg: Any) -> None:
    """Tell the server never to deliver this message again (it was dead-lettered)."""
    await nc.publish(msg.reply, b"+TERM")


def deliveries(msg: Any) -> int:
    """How many times the server has delivered this message (1 the first time)."""
    try:
        return int(msg.metadata.num_delivered)
    except Exception:
        return 1


class PublishError(RuntimeError):
    """The stream did not acknowledge every message of a batch."""


class _Batch:
    __slots__ = ("done", "errors", "left", "stream")

    def __init__(self, n: int, stream: bytes, done: asyncio.Future[None]) -> None:
        self.left = n
        self.stream = stream
        self.errors: list[str] = []
        self.done = done


class AckedPublisher(_Inbox):
    """Publishes batches to a stream and waits for the stream's acknowledgement of each message.

    All messages of a batch carry one reply subject; the acks that come back on it are
    counted, and the batch is done when every message was stored (or recognized as a
    duplicate of a stored one by its ``Nats-Msg-Id``).
    """

    def __init__(self, nc: Any) -> None:
        self.nc = nc
        self.prefix = nc.new_inbox()
        self._ids = itertools.count()
        self._batches: dict[str, _Batch] = {}

    async def _on_msg(self, msg: Any) -> None:
        batch = self._batches.get(msg.subject)
        if batch is None:
            return
        data = msg.data
        if not data:  # a status (503: no stream took the message)
            status = (msg.headers or {}).get(_STATUS, "?")
            batch.errors.append(f"no stream acknowledged the message (status {status})")
        elif b'"error"' in data:
            batch.errors.append(data.decode(errors="replace")[:500])
        elif batch.stream not in data:
            batch.errors.append(f"stored in another stream than {batch.stream.decode()}: {data[:200]!r}")
        batch.left -= 1
        if batch.left <= 0 and not batch.done.done():
            batch.done.set_result(None)

    def connection_lost(self) -> None:
        """Fail every batch still waiting for acks: they went to a server that is gone, and
        would otherwise wait out their whole timeout. Their publishers try again (dedupe ids
        keep what was stored from being stored twice)."""
        for batch in self._batches.values():
            if not batch.done.done():
                batch.errors.append("the connection to NATS was lost before the stream acknowledged")
                batch.done.set_result(None)

    async def publish(
        self, subject: str, items: list[tuple[bytes, dict[str, str]]], stream: str, timeout: float
    ) -> None:
        """Publish ``(payload, headers)`` pairs to ``subject``; raise unless ``stream`` stored them all."""
        if not items:
            return
        reply = f"{self.prefix}.{next(self._ids)}"
        batch = _Batch(len(items), f'"{stream}"'.encode(), asyncio.get_running_loop().create_future())
        self._batches[reply] = batch
        try:
            for data, headers in items:
                await self.nc.publish(subject, data, reply=reply, headers=headers)
            try:
                await asyncio.wait_for(batch.done, timeout)
            except TimeoutError:
                raise PublishError(
                    f"{batch.left} of {len(items)} messages to {subject} not acknowledged in {timeout:g}s"
                ) from None
        finally:
            self._batches.pop(reply, None)
        if batch.errors:
            raise PublishError(
                f"{len(batch.errors)} of {len(items)} messages to {subject}: {batch.errors[0]}"
            )
