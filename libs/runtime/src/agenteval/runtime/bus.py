"""The bus: one JetStream stream, durable pull consumers, deduplicated publishes.

Handlers take batches (``list[dict]``) and validate each payload themselves, so one bad
message is rejected alone instead of poisoning its batch; publishes go out concurrently
and carry the event id as ``Nats-Msg-Id`` so a redelivered handler that publishes again
is deduplicated by JetStream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from faststream.nats import ConsumerConfig, JStream, NatsBroker
from pydantic import BaseModel, ValidationError

from agenteval.contracts.events import DeliveryFailed, Event
from agenteval.contracts.subjects import Subjects
from agenteval.runtime import telemetry
from agenteval.runtime.jetstream import (
    AckedPublisher,
    PublishError,
    PullFeed,
    ack_all,
    deliveries,
    in_progress,
    nak_all,
    term,
)

log = logging.getLogger("agenteval.bus")

M = TypeVar("M", bound=BaseModel)
Handler = Callable[[Any], Awaitable[None]]

# A message not acked in this time is redelivered (the handler died or hung). Batch
# handlers are quick; a trial may run for long, so its handler tells the server it is still
# at work every third of the ack wait, and a dead runner's trials come back in seconds.
ACK_WAIT_S = 30.0
TRIAL_ACK_WAIT_S = 10.0
# After this many deliveries a message is dead-lettered: its service records the failure as
# data (DeadHandler) and the original goes to <prefix>.delivery.failed. The server itself
# never gives up on a message (max_deliver -1): giving up is ours, so it is never silent.
MAX_DELIVER = 10
# A message that failed once is retried alone, so it never takes its batch-mates with it;
# retries back off: 0.5 s, 1, 2, 4, ... up to 30 s (about two minutes over ten deliveries,
# long enough to ride out a database or bus restart).
RETRY_MAX_DELAY_S = 30.0
# Duplicate window for Nats-Msg-Id dedupe.
DUPLICATE_WINDOW_S = 600.0
# How long events stay on the stream by default (AGENTEVAL_BUS_MAX_AGE_S).
DEFAULT_MAX_AGE_S = 7 * 24 * 3600.0


def make_broker(url: str | list[str], **options: Any) -> NatsBroker:
    """A broker without FastStream's per-message log line (it halves throughput).
    ``options``: NATS credentials and TLS (``CommonSettings.nats_options``)."""
    from faststream.security import BaseSecurity, SASLPlaintext

    options.pop("servers", None)
    user, password, tls = options.pop("user", None), options.pop("password", None), options.pop("tls", None)
    if user is not None:  # FastStream takes NATS user/password and TLS as a security object
        options["security"] = SASLPlaintext(username=user, password=password or "", ssl_context=tls)
    elif tls is not None:
        options["security"] = BaseSecurity(ssl_context=tls)
    return NatsBroker(url, logger=None, connect_timeout=5, max_reconnect_attempts=-1, **options)


def stream_for(subjects: Subjects) -> JStream:
    """The one stream over ``<prefix>.>``."""
    return JStream(
        name=subjects.stream,
        subjects=[subjects.all],
        declare=True,
        duplicate_window=DUPLICATE_WINDOW_S,
    )


def consumer_config(max_ack_pending: int = 20_000, ack_wait_s: float = ACK_WAIT_S) -> ConsumerConfig:
    return ConsumerConfig(ack_wait=ack_wait_s, max_deliver=-1, max_ack_pending=max_ack_pending)


def retry_delay_s(deliveries: int, longest_s: float = RETRY_MAX_DELAY_S) -> float:
    """How long a message that failed on its ``deliveries``-th try waits before the next."""
    return min(longest_s, 0.5 * 2 ** max(0, deliveries - 1))


# (original payload, why it failed) -> record the failure as the service's own data
DeadHandler = Callable[[bytes, str], Awaitable[None]]


@dataclass
class _BatchSpec:
    subject: str
    subjects: Subjects
    durable: str
    batch_size: int
    handler: Handler
    max_workers: int = 0
    """0: hand batches to the handler; N: one handler call per message, N at once."""
    ack_wait_s: float = ACK_WAIT_S
    batches_in_flight: int = 1
    """Batches handled at once (1: one after the other)."""
    on_dead: DeadHandler | None = None
    """Records a message that reached the delivery limit as data (a trial as error, ...)."""
    max_deliver: int = MAX_DELIVER
    retry_max_delay_s: float = RETRY_MAX_DELAY_S


_batch_specs: dict[int, list[_BatchSpec]] = {}


def batch_subscriber(
    broker: NatsBroker,
    subject: str,
    subjects: Subjects,
    durable: str,
    batch_size: int = 256,
    ack_wait_s: float = ACK_WAIT_S,
    batches_in_flight: int = 1,
    on_dead: DeadHandler | None = None,
) -> Callable[[Handler], Handler]:
    """Decorator: a durable pull consumer handing batches of raw payloads to the handler.

    Runs on nats-py directly (see :class:`BatchConsumer`), started with the broker by the
    service host. FastStream's batch subscriber refetches until its window closes, and
    under load some fetched messages were neither handled nor acked until ack_wait.
    ``batches_in_flight`` > 1 lets the next batch start while one waits (e.g. on the
    sandbox), for handlers whose batches are independent of each other.
    """

    def register(fn: Handler) -> Handler:
        _batch_specs.setdefault(id(broker), []).append(
            _BatchSpec(
                subject,
                subjects,
                durable,
                batch_size,
                fn,
                ack_wait_s=ack_wait_s,
                batches_in_flight=max(1, batches_in_flight),
                on_dead=on_dead,
            )
        )
        return fn

    return register


class _Pinger:
    """Tells the server every ``interval`` seconds that messages are still being handled.

    ``waiting`` holds messages delivered but not yet handed to a handler (a feed's buffer):
    they are kept too, or the server would redeliver them while the running batch holds
    them back."""

    def __init__(
        self,
        nc: Any,
        msgs: list[Any],
        interval: float,
        tasks: set[asyncio.Task[None]],
        waiting: Iterable[Any] = (),
    ) -> None:
        self.nc, self.msgs, self.interval, self.tasks = nc, msgs, interval, tasks
        self.waiting = waiting
        self.loop = asyncio.get_running_loop()
        self.handle = self.loop.call_later(interval, self._fire)

    async def _ping(self) -> None:
        for m in [*self.msgs, *self.waiting]:
            await in_progress(self.nc, m)

    def _fire(self) -> None:
        task = self.loop.create_task(self._ping())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        self.handle = self.loop.call_later(self.interval, self._fire)

    def cancel(self) -> None:
        self.handle.cancel()


class BatchConsumer:
    """One durable pull consumer: hands what has arrived (up to ``batch_size``) to the handler,
    acks it all on success, naks it all (redelivery after a delay) when the handler raises."""

    def __init__(self, js: Any, spec: _BatchSpec, publisher: AckedPublisher | None = None) -> None:
        self.js = js
        self.nc = js._nc
        self.spec = spec
        self.publisher = publisher
        self.task: asyncio.Task[None] | None = None
        self.feed: PullFeed | None = None
        self._pings: set[asyncio.Task[None]] = set()
        self._running: set[asyncio.Task[None]] = set()

    def _config(self) -> Any:
        return consumer_config(ack_wait_s=self.spec.ack_wait_s)

    async def start(self) -> None:
        from nats.js.api import AckPolicy as JsAckPolicy

        cfg = self._config()
        cfg.ack_policy = JsAckPolicy.EXPLICIT
        cfg.durable_name = self.spec.durable
        cfg.filter_subject = self.spec.subject
        await ensure_consumer(self.js, self.spec.subjects.stream, cfg)
        self.feed = PullFeed(self.nc, self.spec.subjects.stream, self.spec.durable)
        await self.feed.start()
        self.task = asyncio.create_task(self._run(), name=f"consumer {self.spec.durable}")

    async def _run(self) -> None:
        import nats.errors

        assert self.feed is not None
        while True:
            try:
                if self.feed.stale():
                    self.feed.reset()
                await self._step(self.feed)
            except asyncio.CancelledError:
                raise
            except (nats.errors.ConnectionClosedError, nats.errors.ConnectionReconnectingError):
                await asyncio.sleep(0.5)
            except Exception:
                log.exception("consumer failed; retrying", extra={"handler": self.spec.durable})
                await asyncio.sleep(0.5)

    async def _step(self, feed: PullFeed) -> None:
        size = self.spec.batch_size
        if len(self._running) >= self.spec.batches_in_flight:  # wait for a batch to end
            await asyncio.wait(self._running, return_when=asyncio.FIRST_COMPLETED)
        want = size - feed.credit - len(feed.buffer)
        if want >= max(1, size // 2) or (feed.credit == 0 and want > 0):
            await feed.ask(want)
        msgs = await feed.take(size, timeout=1.0)
        if not msgs:
            return
        if self.spec.batches_in_flight == 1:
            await self._handle(feed, msgs)
            return
        task = asyncio.create_task(self._handle(feed, msgs))
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _handle(self, feed: PullFeed, msgs: list[Any]) -> None:
        # Raw bytes: handlers validate straight from JSON (one pass, in pydantic-core).
        # A slow batch (LLM judges, eval functions) keeps its messages with in-progress acks;
        # messages that stream in meanwhile wait in the feed's buffer: keep them as well.
        # Messages that failed before are handled one by one: a bad one fails alone.
        fresh = [m for m in msgs if deliveries(m) < 2]
        groups = ([fresh] if fresh else []) + [[m] for m in msgs if deliveries(m) >= 2]
        pinging = _Pinger(self.nc, msgs, self.spec.ack_wait_s / 3, self._pings, waiting=feed.buffer)
        try:
            for group in groups:
                await self._handle_group(group)
        finally:
            pinging.cancel()

    async def _handle_group(self, msgs: list[Any]) -> None:
        try:
            await self.spec.handler([m.data for m in msgs])
        except asyncio.CancelledError:
            # Stopping: hand the batch back now rather than after the ack wait.
            with contextlib.suppress(Exception):
                await nak_all(self.nc, msgs, delay_s=0.0)
            raise
        except Exception as exc:
            await self._failed(msgs, exc)
            return
        with contextlib.suppress(Exception):
            await ack_all(self.nc, msgs)

    async def _failed(self, msgs: list[Any], exc: BaseException) -> None:
        """Retry later, alone, with backoff; at the delivery limit, dead-letter."""
        error_id = secrets.token_hex(6)
        log.error(
            "handler failed (error id %s); %s",
            error_id,
            "retrying its messages one by one" if len(msgs) > 1 else "retrying",
            exc_info=exc,
            extra={"handler": self.spec.durable, "error_id": error_id},
        )
        for m in msgs:
            n = deliveries(m)
            if len(msgs) == 1 and n >= self.spec.max_deliver:
                await self._dead(m, exc, error_id)
                continue
            with contextlib.suppress(Exception):
                await nak_all(self.nc, [m], delay_s=retry_delay_s(n, self.spec.retry_max_delay_s))

    async def _dead(self, m: Any, exc: BaseException, error_id: str) -> None:
        """Record the failure as data, keep the original on the stream, stop its deliveries."""
        reason = f"{type(exc).__name__}: {exc}"[:4000]
        recorded = False
        if self.spec.on_dead is not None:
            try:
                await self.spec.on_dead(m.data, f"{reason} (error id {error_id})")
                recorded = True
            except Exception:
                # Keep it: without its record the run could not end. Try again later.
                log.exception(
                    "could not record a dead message; retrying", extra={"handler": self.spec.durable}
                )
                with contextlib.suppress(Exception):
                    await nak_all(self.nc, [m], delay_s=self.spec.retry_max_delay_s)
                return
        seq = 0
        with contextlib.suppress(Exception):
            seq = int(m.metadata.sequence.stream)
        event = DeliveryFailed(
            event_id=f"delivery.failed:{self.spec.durable}:{seq}",
            handler=self.spec.durable,
            subject=m.subject,
            stream_seq=seq,
            deliveries=deliveries(m),
            error=reason,
            error_id=error_id,
            data=bytes(m.data).decode("utf-8", "replace"),
            recorded=recorded,
        )
        try:
            if self.publisher is not None:
                data, headers = _prepare(event)
                await self.publisher.publish(
                    self.spec.subjects.delivery_failed,
                    [(data, headers)],
                    self.spec.subjects.stream,
                    PUBLISH_TIMEOUT_S,
                )
        except Exception:
            log.exception("could not dead-letter a message; retrying", extra={"handler": self.spec.durable})
            with contextlib.suppress(Exception):
                await nak_all(self.nc, [m], delay_s=self.spec.retry_max_delay_s)
            return
        telemetry.count_dead_lettered(self.spec.durable)
        log.error(
            "message dead-lettered after %d deliveries (error id %s)",
            deliveries(m),
            error_id,
            extra={"handler": self.spec.durable, "stream_seq": seq},
        )
        with contextlib.suppress(Exception):
            await term(self.nc, m)

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        for task in list(self._running):
            task.cancel()
        if self._running:
            await asyncio.gather(*self._running, return_exceptions=True)
        if self.feed is not None:
            await self.feed.stop()


async def ensure_stream(
    js: Any, subjects: Subjects, max_age_s: float = DEFAULT_MAX_AGE_S, replicas: int = 1
) -> None:
    """Declare the stream (idempotent). Events older than ``max_age_s`` go (0: kept forever):
    what they carried is stored by the services, and the store of a long-used data dir would
    otherwise only grow. ``replicas``: copies kept on a NATS cluster. A stream that exists is
    given the same age limit and replica count."""
    from nats.js.api import StreamConfig
    from nats.js.errors import BadRequestError

    config = StreamConfig(
        name=subjects.stream,
        subjects=[subjects.all],
        duplicate_window=DUPLICATE_WINDOW_S,
        max_age=max_age_s,
        num_replicas=replicas,
    )
    try:
        await js.add_stream(config)
    except BadRequestError:  # exists (an older version's, or another age): align the age limit
        try:
            info = await js.stream_info(subjects.stream)
            if (info.config.max_age or 0) != max_age_s or (info.config.num_replicas or 1) != replicas:
                info.config.max_age = max_age_s
                info.config.num_replicas = replicas
                await js.update_stream(info.config)
        except Exception as exc:
            log.warning("stream %s keeps its settings: %s", subjects.stream, exc)


async def ensure_consumer(js: Any, stream: str, cfg: Any) -> None:
    """Create the durable consumer, or bring an existing one (an older version's) to ``cfg``."""
    from nats.js.errors import BadRequestError

    try:
        await js.add_consumer(stream, cfg)
    except BadRequestError:
        try:
            await js.update_consumer(stream, cfg)
        except BadRequestError as exc:  # a setting that cannot change: keep the consumer as it is
            log.warning("consumer %s keeps its settings: %s", cfg.durable_name, exc)


class BatchConsumers:
    """The batch consumers registered on a broker, run over their own NATS connection."""

    def __init__(
        self,
        broker: NatsBroker,
        url: str,
        max_age_s: float = DEFAULT_MAX_AGE_S,
        max_deliver: int = MAX_DELIVER,
        retry_max_delay_s: float = RETRY_MAX_DELAY_S,
        nats_options: dict[str, Any] | None = None,
        replicas: int = 1,
    ) -> None:
        self.nats_options = dict(nats_options or {})
        self.replicas = replicas
        self.broker_id = id(broker)
        self.specs = _batch_specs.pop(id(broker), [])
        for spec in self.specs:
            spec.max_deliver, spec.retry_max_delay_s = max_deliver, retry_max_delay_s
        self.url = url
        self.max_age_s = max_age_s
        self.nc: Any = None
        self.publisher: AckedPublisher | None = None
        self.consumers: list[BatchConsumer] = []

    async def start(self) -> None:
        import nats

        options = {"servers": self.url, **self.nats_options}

        async def disconnected() -> None:
            if self.publisher is not None:
                self.publisher.connection_lost()

        self.nc = await nats.connect(max_reconnect_attempts=-1, disconnected_cb=disconnected, **options)
        js = self.nc.jetstream()
        self.publisher = AckedPublisher(self.nc)
        await self.publisher.start()
        _publishers[self.broker_id] = self.publisher  # publishes of this host go out on this connection
        for prefix in {spec.subjects.prefix: spec.subjects for spec in self.specs}.values():
            await ensure_stream(js, prefix, self.max_age_s, self.replicas)
        for spec in self.specs:
            kind = ConcurrentConsumer if spec.max_workers else BatchConsumer
            consumer = kind(js, spec, self.publisher)
            await consumer.start()
            self.consumers.append(consumer)

    async def stop(self) -> None:
        await asyncio.gather(*(c.stop() for c in self.consumers))
        self.consumers.clear()
        _publishers.pop(self.broker_id, None)
        if self.publisher is not None:
            await self.publisher.stop()
        if self.nc is not None and not self.nc.is_closed:
            await self.nc.drain()


def concurrent_subscriber(
    broker: NatsBroker,
    subject: str,
    subjects: Subjects,
    durable: str,
    max_workers: int,
    ack_wait_s: float = TRIAL_ACK_WAIT_S,
    on_dead: DeadHandler | None = None,
) -> Callable[[Handler], Handler]:
    """Decorator: a durable pull consumer running one handler call per message (raw JSON
    bytes), up to ``max_workers`` at once, each message acked as soon as its call ends and
    kept from redelivery while the call runs (an in-progress ack every ``ack_wait_s / 3``)."""

    def register(fn: Handler) -> Handler:
        _batch_specs.setdefault(id(broker), []).append(
            _BatchSpec(
                subject,
                subjects,
                durable,
                min(max_workers, 256),
                fn,
                max_workers=max_workers,
                ack_wait_s=ack_wait_s,
                on_dead=on_dead,
            )
        )
        return fn

    return register


class ConcurrentConsumer(BatchConsumer):
    """Keeps up to ``max_workers`` messages in flight: asks for as many as there are free slots,
    runs each in its own task, acks it when done (naks it for redelivery when the call raises),
    so a slow message never holds a batch back."""

    inflight: set[asyncio.Task[None]]

    def _config(self) -> Any:
        self.inflight = set()
        return consumer_config(
            max_ack_pending=max(1000, self.spec.max_workers * 4), ack_wait_s=self.spec.ack_wait_s
        )

    async def _step(self, feed: PullFeed) -> None:
        most = self.spec.max_workers
        free = most - len(self.inflight) - len(feed.buffer) - feed.credit
        # Ask in chunks, not per freed slot, unless nothing at all is asked for.
        if free > 0 and (free >= min(self.spec.batch_size, max(1, most // 8)) or feed.credit == 0):
            await feed.ask(free)
        for m in await feed.take(most, timeout=1.0):
            task = asyncio.create_task(self._one(m))
            self.inflight.add(task)
            task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self.inflight.discard(task)
        if self.feed is not None:
            self.feed.arrived.set()  # a slot is free: the loop may ask for more

    async def _one(self, m: Any) -> None:
        pinging = _Pinger(self.nc, [m], self.spec.ack_wait_s / 3, self._pings)
        try:
            await self.spec.handler(m.data)
        except asyncio.CancelledError:
            # Stopping: hand the message back now rather than after the ack wait.
            with contextlib.suppress(Exception):
                await nak_all(self.nc, [m], delay_s=0.0)
            raise
        except Exception as exc:
            await self._failed([m], exc)
        else:
            with contextlib.suppress(Exception):
                await ack_all(self.nc, [m])
        finally:
            pinging.cancel()

    async def stop(self) -> None:
        await super().stop()
        for task in list(self.inflight):
            task.cancel()
        if self.inflight:
            await asyncio.gather(*self.inflight, return_exceptions=True)


def parse_batch(model: type[M], payloads: Iterable[object], handler: str) -> list[M]:
    """Validate each payload; a payload that does not fit is logged and dropped (rejected)."""
    out: list[M] = []
    for payload in payloads:
        try:
            if isinstance(payload, (bytes, bytearray, str)):
                out.append(model.model_validate_json(payload))
            else:
                out.append(model.model_validate(payload))
        except ValidationError as exc:
            log.error(
                "rejected invalid payload",
                extra={"handler": handler, "model": model.__name__, "error": str(exc)[:2000]},
            )
            telemetry.count_rejected(handler)
    return out


# The publisher each host publishes through (plain NATS with counted acks: FastStream's and
# nats-py's JetStream publish paths cost a large share of the CPU per trial).
_publishers: dict[int, AckedPublisher] = {}
PUBLISH_TIMEOUT_S = 30.0


def connection_of(broker: NatsBroker | None) -> Any:
    """The NATS connection a started host's services share (None before it starts, or for a
    broker outside a ServiceHost)."""
    publisher = _publishers.get(id(broker)) if broker is not None else None
    return publisher.nc if publisher is not None else None


def _prepare(event: Event) -> tuple[bytes, dict[str, str]]:
    headers = {"Nats-Msg-Id": event.event_id}
    telemetry.inject_context(headers)
    if not event.trace_context and "traceparent" in headers:
        event = event.model_copy(update={"trace_context": {"traceparent": headers["traceparent"]}})
    return event.model_dump_json().encode(), headers


async def publish(broker: NatsBroker, subject: str, event: Event, subjects: Subjects) -> None:
    """Publish one event to the stream, deduplicated by its event id; waits for the PubAck."""
    await publish_many(broker, subject, [event], subjects)


async def publish_many(
    broker: NatsBroker, subject: str, events: Sequence[Event], subjects: Subjects, window: int = 1024
) -> None:
    """Publish events to the stream (``window`` awaiting their PubAck at once), each
    deduplicated by its id; raises when the stream does not acknowledge them all in time."""
    publisher = _publishers.get(id(broker))
    for start in range(0, len(events), window):
        chunk = [_prepare(ev) for ev in events[start : start + window]]
        if publisher is None:  # a broker outside a ServiceHost (tests): FastStream's own publish
            await asyncio.gather(
                *(
                    broker.publish(data, subject, headers=headers, stream=subjects.stream)
                    for data, headers in chunk
                )
            )
            continue
        await _publish_retrying(publisher, subject, chunk, subjects.stream)


PUBLISH_RETRIES_S = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
"""Waits before publishing a chunk again when the stream did not take all of it (a 503
while JetStream is busy or a cluster elects a new stream leader: ~5 s after a node dies);
every message carries its dedupe id, so what was stored the first time is not stored twice."""


async def _publish_retrying(
    publisher: AckedPublisher, subject: str, chunk: list[tuple[bytes, dict[str, str]]], stream: str
) -> None:
    for pause in PUBLISH_RETRIES_S:
        try:
            await publisher.publish(subject, chunk, stream, PUBLISH_TIMEOUT_S)
            return
        except PublishError as exc:
            log.warning("publish to %s failed (%s); again in %gs", subject, exc, pause)
            await asyncio.sleep(pause)
    await publisher.publish(subject, chunk, stream, PUBLISH_TIMEOUT_S)
